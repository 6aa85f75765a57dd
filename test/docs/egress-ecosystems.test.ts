/**
 * The ecosystems table in docs/broker.md is generated from constructs/src/ecosystems.ts; the schema's description
 * of `ecosystems` names the same ecosystems. Regenerate the docs section from `ecosystemsMarkdownTable()`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ECOSYSTEM_NAMES, ECOSYSTEMS, ecosystemsMarkdownTable } from '../../constructs/src/ecosystems.ts';
import { markedRegion, normalizeMarkdownTable } from '../support/generated-table.ts';
import { REPO_ROOT } from '../support/golden.ts';

describe('egress ecosystems', () => {
  it('docs/broker.md carries the table generated from the one ecosystems table', () => {
    const region = markedRegion(join(REPO_ROOT, 'docs', 'broker.md'), 'ecosystems');
    assert.ok(region !== undefined, 'docs/broker.md has the ecosystems markers');
    assert.equal(normalizeMarkdownTable(region), normalizeMarkdownTable(ecosystemsMarkdownTable()));
  });

  it("the schema's description of ecosystems names exactly the table's ecosystems", () => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schema', 'agent.schema.json'), 'utf8'));
    const description: string = schema.definitions.NamedEgress.properties.ecosystems.description;
    const named = [...description.matchAll(/`([a-z]+)`/g)].map((m) => m[1]);
    assert.deepEqual(named, ECOSYSTEM_NAMES);
  });

  it('every host is a lower-case DNS name or a *. pattern over one name, never an IP literal', () => {
    for (const [name, ecosystem] of Object.entries(ECOSYSTEMS))
      for (const host of ecosystem.hosts)
        assert.match(
          host,
          /^(\*\.)?([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)+[a-z]([-a-z0-9]*[a-z0-9])?$/,
          `${name}: ${host}`,
        );
  });
});
