/** docs/toolchain-server.md lists exactly the error codes, policy rules, audit fields and metrics the code has. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AUDIT_FIELDS } from '../../toolchain-server/src/audit.ts';
import { ERROR_CODES, POLICY_RULES } from '../../toolchain-server/src/errors.ts';
import { METRIC_NAMES } from '../../toolchain-server/src/metrics.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(join(root, 'docs', 'toolchain-server.md'), 'utf8');

function tableRows(heading: string): string[] {
  const section = doc.split(/^## /m).find((s) => s.startsWith(heading));
  assert.ok(section, `docs have a "${heading}" section`);
  return [...section.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1]!);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('docs/toolchain-server.md', () => {
  it('lists every error code, and only those', () => {
    assert.deepEqual(tableRows('Error codes').sort(), Object.keys(ERROR_CODES).sort());
    const mentioned = new Set(doc.match(/TOOLYARD_[A-Z_]+/g));
    for (const code of mentioned) assert.ok(code in ERROR_CODES, `${code} in docs is not in the catalogue`);
  });

  it('lists every policy rule; every catalogued rule is one the code can name', () => {
    assert.deepEqual(tableRows('Policy rules').sort(), Object.keys(POLICY_RULES).sort());
    // Refusals are typed against the catalogue (PolicyRule), so code cannot name an uncatalogued rule; this
    // checks the other direction: no catalogued rule is dead.
    const sources = sourceFiles(join(root, 'toolchain-server', 'src'))
      .filter((file) => !file.endsWith('errors.ts'))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    for (const rule of Object.keys(POLICY_RULES))
      assert.ok(sources.includes(`'${rule}'`), `rule ${rule} is catalogued but no source names it`);
  });

  it('lists every audit field', () => {
    assert.deepEqual(tableRows('Audit lines'), Object.keys(AUDIT_FIELDS));
  });

  it('lists every metric', () => {
    assert.deepEqual(tableRows('Metrics'), [...METRIC_NAMES]);
  });

  it('says plainly that build tools run repository code and the container is the boundary', () => {
    assert.match(doc, /Allowed build tools run repository code by design/);
    assert.match(doc, /The container is the boundary/);
  });

  it('carries measured benchmark figures', () => {
    assert.doesNotMatch(doc, /BENCH_FIGURES/);
    assert.match(doc, /p50 [\d.]+ ms/);
  });
});
