/**
 * Bundles the toolchain server and the broker, each into one self-contained ESM file —
 * `toolchain-server/dist/toolchain-server.mjs` and `toolchain-server/dist/toolyard-broker.mjs` — which the
 * images place under /opt/toolyard next to a Node runtime. No node_modules needed.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
export const BUNDLE_PATH = join(root, 'dist', 'toolchain-server.mjs');
export const BROKER_BUNDLE_PATH = join(root, 'dist', 'toolyard-broker.mjs');
export const SANDBOX_MANAGER_BUNDLE_PATH = join(root, 'dist', 'toolyard-sandbox-manager.mjs');

/**
 * What the server never loads, left out of the bundle (each is replaced by a module that throws if it ever
 * is loaded, so a change that needs one fails loudly in the bundle test):
 * - the MCP SDK's Node shims construct an ajv-based default JSON Schema validator; every Server here gets
 *   its own (mcp.ts), so the shims resolve to src/sdk-shims.ts instead;
 * - fastify's schema compilers (ajv, fast-json-stringify): no route declares a schema (http.ts passes
 *   compilers that refuse), and fastify loads them only when it would build its defaults;
 * - fastify's inject helper (light-my-request) and pino: the server never injects and runs with logger: false.
 * The source they would add is parsed at every start; leaving it out is worth a few megabytes of idle memory
 * (docs/benchmarks.md).
 */
const NOT_BUNDLED = [
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'light-my-request',
  'pino',
];

const leaveOutUnused: Plugin = {
  name: 'toolyard-leave-out-unused',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: join(root, 'src', 'sdk-shims.ts'),
    }));
    const names = new RegExp(`^(${NOT_BUNDLED.map((n) => n.replace(/[/.]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter: names }, (args) => ({ path: args.path, namespace: 'toolyard-not-bundled' }));
    build.onLoad({ filter: /.*/, namespace: 'toolyard-not-bundled' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not in the toolchain server bundle`)});`,
      loader: 'js',
    }));
  },
};

interface Entry {
  /** The module (relative to toolchain-server/) whose `main` the bundle runs. */
  readonly main: string;
  /** The program name in error messages. */
  readonly program: string;
  readonly plugins: Plugin[];
}

async function bundleEntry(entry: Entry, outfile: string): Promise<string> {
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    stdin: {
      contents: [
        `import { main } from ${JSON.stringify(entry.main)};`,
        'main(process.argv.slice(2)).catch((error) => {',
        `  process.stderr.write(${JSON.stringify(`${entry.program}: `)} + (error?.stack ?? error) + '\\n');`,
        '  process.exit(1);',
        '});',
      ].join('\n'),
      resolveDir: root,
      sourcefile: `${entry.program}-entry.ts`,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    minify: true,
    keepNames: true,
    legalComments: 'eof',
    // CommonJS dependencies (fastify) call require() for Node built-ins.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __toolyardCreateRequire } from 'node:module'; const require = __toolyardCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
    plugins: entry.plugins,
  });
  return outfile;
}

/** The toolchain server bundle. */
export function bundle(outfile = BUNDLE_PATH): Promise<string> {
  return bundleEntry(
    { main: './src/main.ts', program: 'toolyard-toolchain-server', plugins: [leaveOutUnused] },
    outfile,
  );
}

/** The broker bundle: node:http/net/tls and zod only. */
export function bundleBroker(outfile = BROKER_BUNDLE_PATH): Promise<string> {
  return bundleEntry({ main: './broker/main.ts', program: 'toolyard-broker', plugins: [] }, outfile);
}

/** The sandbox manager bundle: fastify and the MCP SDK's server, as the toolchain server uses them. */
export function bundleSandboxManager(outfile = SANDBOX_MANAGER_BUNDLE_PATH): Promise<string> {
  return bundleEntry(
    { main: './sandbox-manager/main.ts', program: 'toolyard-sandbox-manager', plugins: [leaveOutUnused] },
    outfile,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // `bundle.ts [server-out]` builds every bundle (the server's at server-out when given).
  for (const out of [
    await bundle(process.argv[2] ?? BUNDLE_PATH),
    await bundleBroker(),
    await bundleSandboxManager(),
  ])
    process.stdout.write(`${out} (${(statSync(out).size / 1024).toFixed(0)} KiB)\n`);
}
