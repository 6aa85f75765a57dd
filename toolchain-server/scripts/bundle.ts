/**
 * Bundles the toolchain server into one self-contained ESM file, `toolchain-server/dist/toolchain-server.mjs`,
 * which the image places at /opt/toolyard/toolchain-server.mjs next to a Node runtime. No node_modules needed.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
export const BUNDLE_PATH = join(root, 'dist', 'toolchain-server.mjs');

export async function bundle(outfile = BUNDLE_PATH): Promise<string> {
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    stdin: {
      contents: [
        "import { main } from './src/main.ts';",
        'main(process.argv.slice(2)).catch((error) => {',
        "  process.stderr.write('toolyard-toolchain-server: ' + (error?.stack ?? error) + '\\n');",
        '  process.exit(1);',
        '});',
      ].join('\n'),
      resolveDir: root,
      sourcefile: 'toolchain-server-entry.ts',
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
  });
  return outfile;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = await bundle(process.argv[2] ?? BUNDLE_PATH);
  process.stdout.write(`${out} (${(statSync(out).size / 1024).toFixed(0)} KiB)\n`);
}
