/**
 * Bundles the playground (CodeMirror + the toolyard renderer from constructs/) for the browser with esbuild.
 * cdk8s is CommonJS and imports Node built-ins at module top for file-based helpers the renderer never
 * calls; those resolve to stubs that throw, and `crypto` to a synchronous SHA-1 so construct addresses (and
 * therefore selector labels) are the same bytes as in Node.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';
import { k8sMembersUsed, pruneK8sImports } from './prune-k8s-imports.ts';

const shims = fileURLToPath(new URL('../src/playground/shims/', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

function packageVersion(path: string): string | undefined {
  try {
    return (
      JSON.parse(readFileSync(join(repoRoot, 'node_modules', path, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return undefined;
  }
}
const sameYamlRelease = packageVersion('cdk8s/node_modules/yaml') === packageVersion('yaml');

const nodeBuiltins: Plugin = {
  name: 'toolyard-node-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?crypto$/ }, () => ({ path: `${shims}crypto.ts` }));
    b.onResolve({ filter: /^(node:)?zlib$/ }, () => ({ path: `${shims}zlib.ts` }));
    b.onResolve({ filter: /^(node:)?(fs|path|os|child_process|url|util|http|https|stream)$/ }, () => ({
      path: `${shims}node-builtin.ts`,
    }));
    b.onResolve({ filter: /^follow-redirects$/ }, () => ({ path: `${shims}node-builtin.ts` }));
    // cdk8s bundles its own copy of `yaml` (the same 2.x release the renderer uses); one copy is enough.
    b.onResolve({ filter: /^yaml$/ }, async (args) => {
      if (!sameYamlRelease || !/[\\/]node_modules[\\/]cdk8s[\\/]/.test(args.importer)) return undefined;
      const root = await b.resolve('yaml', { kind: args.kind, resolveDir: repoRoot });
      return root.errors.length > 0 ? undefined : { path: root.path };
    });
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: `${shims}zod-locales.ts` } : undefined,
    );
  },
};

/**
 * `import { z } from 'zod'` hands out zod's classic API as one namespace value (zod's index.js is
 * `import * as z from "./v4/classic/external.js"; export { z }`), so esbuild keeps every export of it: the
 * JSON Schema converters, the codecs, all string formats. Our own modules that import it that way load it as
 * `import * as z from "<zod>/v4/classic/external.js"` instead: the very same module namespace object, which
 * esbuild can tree-shake because every use is a static `z.member`. Nothing else in the file changes.
 */
const ZOD_NAMED_IMPORT = /^import \{ z \} from 'zod';$/m;
const zodNamespace: Plugin = {
  name: 'toolyard-zod-namespace',
  setup(b) {
    let classic: Promise<string> | undefined;
    const classicPath = () => {
      classic ??= (async () => {
        const index = await b.resolve('zod', { kind: 'import-statement', resolveDir: repoRoot });
        if (index.errors.length > 0) throw new Error('toolyard-zod-namespace: cannot resolve zod');
        const source = readFileSync(index.path, 'utf8');
        if (
          !source.includes('import * as z from "./v4/classic/external.js";') ||
          !/export \{ z[ ,}]/.test(source)
        ) {
          throw new Error(
            `toolyard-zod-namespace: ${index.path} no longer exports z as ./v4/classic/external.js`,
          );
        }
        return join(dirname(index.path), 'v4/classic/external.js');
      })();
      return classic;
    };
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (/[\\/]node_modules[\\/]/.test(args.path)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!ZOD_NAMED_IMPORT.test(text)) return undefined;
      const target = JSON.stringify(await classicPath());
      return { contents: text.replace(ZOD_NAMED_IMPORT, `import * as z from ${target};`), loader: 'ts' };
    });
  },
};

export interface BundleOptions {
  readonly entryPoints: Record<string, string>;
  readonly outdir: string;
  readonly minify?: boolean;
}

export async function bundleForBrowser(options: BundleOptions): Promise<Metafile> {
  const common: BuildOptions = {
    entryPoints: options.entryPoints,
    outdir: options.outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox121', 'safari17'],
    splitting: false,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    // cdk8s reads a few CDK8S_* switches from process.env; the browser has none set, as a clean CLI run.
    define: { 'process.env': '{}', 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
    plugins: [nodeBuiltins, zodNamespace],
  };
  // cdk8s-plus-28's generated k8s.js (CommonJS, not tree-shakable) is loaded pruned to what the bundle reaches.
  const k8sMembers = await k8sMembersUsed(common, repoRoot);
  const result = await build({
    ...common,
    minify: options.minify ?? true,
    metafile: true,
    plugins: [nodeBuiltins, zodNamespace, ...(k8sMembers ? [pruneK8sImports(k8sMembers)] : [])],
  });
  return result.metafile;
}
