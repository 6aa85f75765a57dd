/**
 * The examples are what new users copy: each points editors at the published schema (so a copy keeps
 * completion wherever it goes), and renders without warnings — a warning an example demonstrates is
 * acknowledged in the spec, with its reason.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import { agentSchema } from '../../schema/src/validator.ts';
import { REPO_ROOT } from '../support/golden.ts';

const EXAMPLES = join(REPO_ROOT, 'examples');
const files = readdirSync(EXAMPLES).filter((f) => /\.ya?ml$/.test(f));

describe('examples', () => {
  it('the schema’s $id is its address on the site', () => {
    assert.equal(agentSchema.$id, 'https://toolyard.dev/schema/v1alpha1/agent.json');
  });

  for (const file of files) {
    it(`${file}: first line points at the published schema; renders without warnings`, () => {
      const text = readFileSync(join(EXAMPLES, file), 'utf8');
      assert.equal(text.split('\n')[0], `# yaml-language-server: $schema=${agentSchema.$id}`);
      const checked = checkSpecText(text, file);
      assert.ok(checked.ok, JSON.stringify(!checked.ok && checked.errors));
      for (const spec of checked.specs) assert.deepEqual(renderAgent(spec.agent).warnings, []);
    });
  }
});
