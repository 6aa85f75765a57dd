/**
 * "Usable from any cdk8s app": build the library as it is published (release/src/build-lib.ts: CommonJS +
 * declarations) and drive it from plain JavaScript, with require() and with import, without any TypeScript
 * support. test/package/consumer.e2e.ts does the same with the packed tarball in a real cdk8s app.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildLib } from '../../release/src/build-lib.ts';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('compiled library', () => {
  it('builds to CommonJS + declarations and renders from plain JavaScript, with require() and import', {
    timeout: 120_000,
  }, async () => {
    const out = await mkdtemp(join(root, 'node_modules', '.toolyard-lib-'));
    try {
      const lib = await buildLib(root, join(out, 'lib'));
      assert.deepEqual(JSON.parse(await readFile(join(lib, 'package.json'), 'utf8')), { type: 'commonjs' });
      const files = await readdir(lib, { recursive: true });
      for (const file of files.filter((name) => name.endsWith('.d.ts'))) {
        const declarations = await readFile(join(lib, file), 'utf8');
        assert.doesNotMatch(declarations, /from '[^']*\.(json|ts)'/, `${file} imports JSON or a .ts file`);
      }
      const body = `const app = new App({ outdir: ${JSON.stringify(join(out, 'dist'))} });
const chart = new Chart(app, 'platform', { disableResourceNameHashes: true });
new Agent(chart, 'agent', {
  metadata: { name: 'js', namespace: 'agents' },
  spec: {
    backends: [
      {
        name: 'claude',
        type: 'claude',
        image: { repository: 'x', tag: '1' },
        port: 8080,
        model: { apiKeySecret: { name: 'claude-credentials', key: 'api-key' } },
      },
    ],
  },
});
console.log(JSON.stringify(chart.toJson().map((o) => o.kind + '/' + o.metadata.name)));
`;
      await writeFile(
        join(out, 'app.mjs'),
        `import { App, Chart } from 'cdk8s';\nimport { Agent } from './lib/constructs/src/index.js';\n${body}`,
      );
      await writeFile(
        join(out, 'app.cjs'),
        `const { App, Chart } = require('cdk8s');\nconst { Agent } = require('./lib/constructs/src/index.js');\n${body}`,
      );
      for (const app of ['app.mjs', 'app.cjs']) {
        // --no-experimental-strip-types proves no .ts file is loaded at run time.
        const { stdout } = await run(process.execPath, ['--no-experimental-strip-types', app], { cwd: out });
        assert.deepEqual(
          JSON.parse(stdout),
          [
            'ServiceAccount/js',
            'ConfigMap/js-mcp-clients',
            'Service/js',
            'Deployment/js',
            'ServiceAccount/js-broker',
            'ConfigMap/js-broker',
            'Deployment/js-broker',
            'Service/js-broker',
            'NetworkPolicy/js',
            'NetworkPolicy/js-broker',
          ],
          app,
        );
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
