/**
 * Bundles the playground (CodeMirror + the toolyard renderer from constructs/) for the browser with esbuild.
 * cdk8s is CommonJS and imports Node built-ins at module top for file-based helpers the renderer never
 * calls; those resolve to stubs that throw, and `crypto` to a synchronous SHA-1 so construct addresses (and
 * therefore selector labels) are the same bytes as in Node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';

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

export interface BundleOptions {
  readonly entryPoints: Record<string, string>;
  readonly outdir: string;
  readonly minify?: boolean;
}

export async function bundleForBrowser(options: BundleOptions): Promise<Metafile> {
  const result = await build({
    entryPoints: options.entryPoints,
    outdir: options.outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox121', 'safari17'],
    splitting: false,
    minify: options.minify ?? true,
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    // cdk8s reads a few CDK8S_* switches from process.env; the browser has none set, as a clean CLI run.
    define: { 'process.env': '{}', 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
    plugins: [nodeBuiltins],
  });
  return result.metafile;
}
