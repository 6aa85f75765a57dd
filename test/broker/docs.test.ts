/** docs/broker.md (the server half) lists exactly the error codes, audit fields and metrics the broker has. */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { BROKER_TOKEN_ENV, BROKER_URL_ENV } from '../../constructs/src/defaults.ts';
import { BROKER_AUDIT_FIELDS } from '../../toolchain-server/broker/audit.ts';
import { BROKER_ERRORS } from '../../toolchain-server/broker/errors.ts';
import { BROKER_METRICS } from '../../toolchain-server/broker/metrics.ts';

const doc = readFileSync(new URL('../../docs/broker.md', import.meta.url), 'utf8');
const server = doc.split(/^## /m).find((s) => s.startsWith('The broker server'));

function rows(heading: string): { name: string; cells: string[] }[] {
  assert.ok(server, 'docs/broker.md has a "The broker server" section');
  const section = server.split(/^### /m).find((s) => s.startsWith(heading));
  assert.ok(section, `docs/broker.md has a "${heading}" subsection`);
  return [...section.matchAll(/^\| `([^`]+)` +\|(.*)\|$/gm)].map((m) => ({
    name: m[1]!,
    cells: m[2]!.split(' | ').map((c) => c.trim()),
  }));
}

describe('docs/broker.md', () => {
  it('lists every error code with its status, and mentions no other', () => {
    const table = rows('Error codes');
    assert.deepEqual(
      table.map((r) => r.name),
      Object.keys(BROKER_ERRORS),
    );
    for (const row of table)
      assert.equal(
        Number(row.cells[0]),
        BROKER_ERRORS[row.name as keyof typeof BROKER_ERRORS].status,
        row.name,
      );
    // The two variables the renderer sets in backends share the prefix; every other name must be a code.
    const variables = new Set<string>([BROKER_TOKEN_ENV, BROKER_URL_ENV, 'TOOLYARD_BROKER_']);
    for (const code of new Set(doc.match(/TOOLYARD_BROKER_[A-Z_]+/g)))
      assert.ok(code in BROKER_ERRORS || variables.has(code), `${code} in docs is not in the catalogue`);
  });

  it('lists every audit field, in the order lines are written', () => {
    assert.deepEqual(
      rows('Audit lines').map((r) => r.name),
      Object.keys(BROKER_AUDIT_FIELDS),
    );
  });

  it('lists every metric with its type and labels', () => {
    const table = rows('Metrics');
    assert.deepEqual(
      table.map((r) => r.name),
      Object.keys(BROKER_METRICS),
    );
    for (const row of table) {
      const metric = BROKER_METRICS[row.name as keyof typeof BROKER_METRICS];
      assert.equal(row.cells[0], metric.type, row.name);
      assert.equal(row.cells[1], metric.labels.map((l) => `\`${l}\``).join(', '), row.name);
    }
  });
});
