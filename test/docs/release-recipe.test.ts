/**
 * The release recipe of docs/release.md, held to the repository: valid YAML; every `npm run` script it names
 * exists; it publishes exactly the images images/definitions.ts defines, each with `skopeo copy --all` (every
 * architecture); and every file it takes from dist/release/ is one `npm run release` writes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { IMAGES } from '../../images/definitions.ts';
import { REPO_ROOT } from '../support/golden.ts';

const doc = readFileSync(join(REPO_ROOT, 'docs/release.md'), 'utf8');
const [block] = [...doc.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
const scripts = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

type Step = { run?: string; uses?: string };
const workflow = parse(block ?? '') as {
  on: { push: { tags: string[] } };
  jobs: { release: { steps: Step[] } };
};
const runs = workflow.jobs.release.steps.map((s) => s.run ?? '').join('\n');

describe('the release recipe of docs/release.md', () => {
  it('is a workflow triggered by tags that runs CI before it builds the release', () => {
    assert.deepEqual(workflow.on.push.tags, ['v*']);
    assert.ok(runs.indexOf('bash .ci/run') < runs.indexOf('npm run release'));
  });

  it('names only npm scripts that exist', () => {
    const named = [...runs.matchAll(/npm run (?:--silent )?([\w:-]+)/g)].map((m) => m[1]!);
    assert.ok(named.length >= 2);
    for (const name of named) assert.ok(scripts[name], `npm run ${name}`);
  });

  it('publishes every image, each with all its architectures', () => {
    const loop = /for name in ([^;]+);/.exec(runs);
    assert.ok(loop, 'an image loop');
    assert.deepEqual(
      loop[1]!.trim().split(/\s+/),
      IMAGES.map((i) => i.name),
    );
    assert.match(runs, /skopeo copy --all /);
  });

  it('takes from dist/release/ only what npm run release writes', () => {
    const paths = [...runs.matchAll(/dist\/release\/([^\s";]+)/g)].map((m) => m[1]!);
    const written = [
      /^toolyard-\$\{GITHUB_REF_NAME#v\}\.tgz$/,
      /^images\/\$\{name\}\.oci\.tar$/,
      /^images\/\*\.spdx\.json$/,
      /^charts\/\*(\.tgz)?$/,
      /^SHA256SUMS$/,
    ];
    for (const path of paths)
      assert.ok(
        written.some((re) => re.test(path)),
        path,
      );
  });
});
