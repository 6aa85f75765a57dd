/** docs/sandboxes.md lists exactly the manager's error codes, audit fields and tools, and carries measured figures. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SANDBOX_ERROR_CODES } from '../../toolchain-server/sandbox-manager/errors.ts';
import { SANDBOX_AUDIT_FIELDS, SANDBOX_TOOLS } from '../../toolchain-server/sandbox-manager/tools.ts';

const doc = readFileSync(fileURLToPath(new URL('../../docs/sandboxes.md', import.meta.url)), 'utf8');

function tableRows(heading: string): string[] {
  const section = doc.split(/^#+ /m).find((s) => s.startsWith(heading));
  assert.ok(section, `docs have a "${heading}" section`);
  return [...section.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1]!);
}

describe('docs/sandboxes.md', () => {
  it('lists every error code of the manager, with its meaning', () => {
    assert.deepEqual(tableRows('Error codes').sort(), Object.keys(SANDBOX_ERROR_CODES).sort());
    for (const [code, meaning] of Object.entries(SANDBOX_ERROR_CODES))
      assert.ok(doc.includes(meaning), `${code}: its meaning as the code says it`);
  });

  it('lists every audit field, in order', () => {
    assert.deepEqual(tableRows('Audit lines'), Object.keys(SANDBOX_AUDIT_FIELDS));
  });

  it('lists every tool', () => {
    assert.deepEqual(tableRows('Tools').sort(), SANDBOX_TOOLS.map((t) => t.name).sort());
  });

  it('carries measured benchmark figures', () => {
    assert.doesNotMatch(doc, /BENCH_FIGURES/);
    assert.match(doc, /p50 \d+ ms/);
  });
});
