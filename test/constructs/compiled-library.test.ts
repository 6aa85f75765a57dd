/**
 * "Usable from any cdk8s app": compile the library as it is published (tsc → .js + .d.ts) and drive it
 * from a plain JavaScript cdk8s app with no TypeScript support at all.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('compiled library', () => {
  it('builds with tsc and renders from a plain JavaScript cdk8s app', { timeout: 120_000 }, async () => {
    const out = await mkdtemp(join(root, 'node_modules', '.toolyard-lib-'));
    try {
      await run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--outDir', out], {
        cwd: root,
      });
      const app = join(out, 'app.mjs');
      await writeFile(
        app,
        `import { App, Chart } from 'cdk8s';
import { Agent } from './constructs/src/index.js';
const app = new App({ outdir: ${JSON.stringify(join(out, 'dist'))} });
const chart = new Chart(app, 'platform', { disableResourceNameHashes: true });
new Agent(chart, 'agent', {
  metadata: { name: 'js', namespace: 'agents' },
  spec: { backends: [{ name: 'claude', type: 'claude', image: { repository: 'x', tag: '1' }, port: 8080 }] },
});
console.log(JSON.stringify(chart.toJson().map((o) => o.kind + '/' + o.metadata.name)));
`,
      );
      // --no-experimental-strip-types proves no .ts file is loaded at run time.
      const { stdout } = await run(process.execPath, ['--no-experimental-strip-types', app], { cwd: out });
      assert.deepEqual(JSON.parse(stdout), [
        'ServiceAccount/js',
        'ConfigMap/js-mcp-clients',
        'Service/js',
        'Deployment/js',
        'NetworkPolicy/js',
      ]);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
