/**
 * Builds the library and CLI that the npm package ships, into lib/:
 *
 * 1. `tsc -p tsconfig.build.json` type-checks and emits ES modules with declarations (relative `.ts` imports
 *    rewritten to `.js`).
 * 2. Every emitted `.js` becomes CommonJS (esbuild, one file at a time, no bundling), and `lib/package.json`
 *    says `"type": "commonjs"`. One CommonJS implementation serves `require` (cdk8s's own TypeScript template,
 *    ts-node, jest) and `import` (Node's ESM loader sees the named exports through esbuild's export
 *    annotation), so an app can never load two copies of a construct class.
 * 3. Declarations that import zod are rewritten without it (zod-free-declarations.ts: zod's own declarations
 *    need `esModuleInterop`, which the cdk8s template does not set), get `.js` specifiers for the same files,
 *    and lib/ is written only when every step passed.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import ts from 'typescript';
import { rewriteZodDeclarations } from './zod-free-declarations.ts';

const run = promisify(execFile);

/** Oldest Node the package supports (package.json `engines`): the CommonJS output targets it. */
export const LIB_TARGET = 'node20.19';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** ESM → CommonJS for one emitted file. Top-level await has no CommonJS form and fails the build here. */
export async function toCommonJs(source: string, file: string): Promise<string> {
  const result = await transform(source, {
    format: 'cjs',
    platform: 'node',
    target: LIB_TARGET,
    sourcefile: file,
    logLevel: 'silent',
  });
  return result.code;
}

/** `from './x.ts'` and `import('./x.ts')` in declarations → `.js`, the file that sits next to them. */
export function declarationSpecifiers(text: string): string {
  return text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, '$1$2$3.js$2');
}

/** The compiler options of tsconfig.build.json, as the declarations were emitted with. */
function buildOptions(root: string): ts.CompilerOptions {
  const path = join(root, 'tsconfig.build.json');
  const config = ts.readConfigFile(path, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
}

export async function buildLib(root: string, outDir = join(root, 'lib')): Promise<string> {
  await mkdir(dirname(outDir), { recursive: true });
  const staging = await mkdtemp(`${outDir}.staging-`);
  try {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', staging], {
      cwd: root,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`tsc -p tsconfig.build.json failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    });
    const declarations = new Map(
      (await filesUnder(staging))
        .filter((file) => file.endsWith('.d.ts'))
        .map((file) => [file, join(root, relative(staging, file)).replace(/\.d\.ts$/, '.ts')] as const),
    );
    await rewriteZodDeclarations(declarations, buildOptions(root));
    for (const file of await filesUnder(staging)) {
      const text = await readFile(file, 'utf8');
      if (file.endsWith('.d.ts')) await writeFile(file, declarationSpecifiers(text));
      else if (file.endsWith('.js')) await writeFile(file, await toCommonJs(text, relative(staging, file)));
    }
    await writeFile(join(staging, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
    await rm(outDir, { recursive: true, force: true });
    await rename(staging, outDir);
    return outDir;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
