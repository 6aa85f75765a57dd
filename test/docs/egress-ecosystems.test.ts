/**
 * The ecosystems table in docs/broker.md is generated from constructs/src/ecosystems.ts; the schema's description
 * of `ecosystems` names the same ecosystems. Regenerate the docs section from `ecosystemsMarkdownTable()`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ECOSYSTEM_NAMES, ECOSYSTEMS, ecosystemsMarkdownTable } from '../../constructs/src/ecosystems.ts';
import { REPO_ROOT } from '../support/golden.ts';

describe('egress ecosystems', () => {
  it('docs/broker.md carries the table generated from the one ecosystems table', () => {
    const text = readFileSync(join(REPO_ROOT, 'docs', 'broker.md'), 'utf8');
    const begin = text.indexOf('\n', text.indexOf('<!-- ecosystems:begin'));
    const end = text.indexOf('<!-- ecosystems:end -->');
    assert.ok(begin > 0 && end > begin, 'docs/broker.md has the ecosystems markers');
    // Compared cell by cell: the formatter pads Markdown tables (biome format).
    const normalize = (markdown: string) =>
      markdown
        .trim()
        .split('\n')
        .map((line) =>
          line.startsWith('|')
            ? line
                .split('|')
                .map((cell) => cell.trim().replace(/^-{3,}$/, '---'))
                .join('|')
            : line,
        )
        .join('\n');
    assert.equal(normalize(text.slice(begin + 1, end)), normalize(ecosystemsMarkdownTable()));
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
