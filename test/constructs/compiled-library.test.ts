/**
 * "Usable from any cdk8s app": build the library as it is published (release/src/build-lib.ts: CommonJS +
 * declarations) and drive it from plain JavaScript, with require() and with import, without any TypeScript
 * support; and type-check a consumer against its declarations with the compiler options of the unchanged
 * `cdk8s init typescript-app` template (no esModuleInterop, no skipLibCheck). test/package/consumer.e2e.ts
 * does the same with the packed tarball in a real cdk8s app.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildLib } from '../../release/src/build-lib.ts';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `cdk8s init typescript-app`'s tsconfig.json compilerOptions (cdk8s-cli 2.207), as the template writes them. */
const TEMPLATE_COMPILER_OPTIONS = {
  alwaysStrict: true,
  declaration: true,
  experimentalDecorators: true,
  inlineSourceMap: true,
  inlineSources: true,
  lib: ['es2016'],
  module: 'CommonJS',
  noEmit: false,
  noEmitOnError: true,
  noFallthroughCasesInSwitch: true,
  noImplicitAny: true,
  noImplicitReturns: true,
  noImplicitThis: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  resolveJsonModule: true,
  strict: true,
  strictNullChecks: true,
  strictPropertyInitialization: true,
  stripInternal: true,
  target: 'ES2017',
};

/** Runs tsc on `main.ts` in `dir` with the template's options; its output (errors), empty when clean. */
async function templateTsc(dir: string, main: string): Promise<string> {
  await writeFile(join(dir, 'main.ts'), main);
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...TEMPLATE_COMPILER_OPTIONS, types: ['node'] },
      include: ['main.ts'],
    }),
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return run(process.execPath, [tsc, '-p', dir, '--noEmit'], { cwd: dir }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}

describe('compiled library', () => {
  let out: string;
  let lib: string;
  before(async () => {
    out = await mkdtemp(join(root, 'node_modules', '.toolyard-lib-'));
    lib = await buildLib(root, join(out, 'lib'));
  });
  after(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it("its declarations type-check under the cdk8s template's compiler options: no zod in them (issue 31)", {
    timeout: 120_000,
  }, async () => {
    const files = await readdir(lib, { recursive: true });
    for (const file of files.filter((name) => name.endsWith('.d.ts')))
      assert.doesNotMatch(await readFile(join(lib, file), 'utf8'), /from ['"]zod|import\(['"]zod/, file);
    const consumer = join(out, 'consumer');
    await mkdir(consumer);
    const errors = await templateTsc(
      consumer,
      `import { Agent, checkSpecText, renderAgent } from '../lib/constructs/src/index';
import { validateAgentDocument } from '../lib/schema/src/index';
import { parseToolchainServerConfig, toolchainServerConfigSchema } from '../lib/toolchain-server/src/config';

export const used = [Agent, checkSpecText, renderAgent, validateAgentDocument, parseToolchainServerConfig];
export const name: string = toolchainServerConfigSchema.parse({}).name;
`,
    );
    assert.equal(errors, '');
    // The control: the same options on a file that imports zod itself give TS1259 (zod needs esModuleInterop).
    const control = await templateTsc(consumer, `import { z } from 'zod';\nexport const s = z.string();\n`);
    assert.match(control, /TS1259/);
  });

  it('builds to CommonJS + declarations and renders from plain JavaScript, with require() and import', {
    timeout: 120_000,
  }, async () => {
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
  });
});
