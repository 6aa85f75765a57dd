/**
 * Bundles the playground (CodeMirror + the toolyard renderer from constructs/) for the browser with esbuild.
 * cdk8s is CommonJS and imports Node built-ins at module top for file-based helpers the renderer never
 * calls; those resolve to stubs that throw, and `crypto` to a synchronous SHA-1 so construct addresses (and
 * therefore selector labels) are the same bytes as in Node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';
import { cdk8sPlusEntry } from './cdk8s-plus-entry.ts';
import { k8sMembersUsed, pruneK8sImports } from './prune-k8s-imports.ts';
import { standaloneValidator } from './standalone-validator.ts';

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
    // Helpers the renderer never calls: http redirects (cdk8s's Include), glob matching (ConfigMap's addDirectory).
    b.onResolve({ filter: /^(follow-redirects|minimatch)$/ }, () => ({ path: `${shims}node-builtin.ts` }));
    // The renderer's self-check against the toolchain server's zod schema (constructs/src/server-contract.ts):
    // the config bytes do not depend on it, and it is all the page would need zod for.
    b.onLoad({ filter: /[\\/]constructs[\\/]src[\\/]server-contract\.ts$/ }, () => ({
      contents: 'export function assertServerContract() {}\n',
      loader: 'js',
    }));
    // Likewise the broker config's self-check against toolyard-broker's zod schema (broker-contract.ts).
    b.onLoad({ filter: /[\\/]constructs[\\/]src[\\/]broker-contract\.ts$/ }, () => ({
      contents: 'export function assertBrokerContract() {}\n',
      loader: 'js',
    }));
    // And the sandbox manager config's self-check against toolyard-sandbox-manager's schema.
    b.onLoad({ filter: /[\\/]constructs[\\/]src[\\/]sandbox-manager-contract\.ts$/ }, () => ({
      contents: 'export function assertSandboxManagerContract() {}\n',
      loader: 'js',
    }));
    // cdk8s bundles its own copy of `yaml` (the same 2.x release the renderer uses); one copy is enough.
    b.onResolve({ filter: /^yaml$/ }, async (args) => {
      if (!sameYamlRelease || !/[\\/]node_modules[\\/]cdk8s[\\/]/.test(args.importer)) return undefined;
      const root = await b.resolve('yaml', { kind: args.kind, resolveDir: repoRoot });
      return root.errors.length > 0 ? undefined : { path: root.path };
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
    // The chart generator is loaded when a chart is downloaded: a chunk next to playground.js.
    splitting: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    // cdk8s reads a few CDK8S_* switches from process.env; the browser has none set, as a clean CLI run.
    define: { 'process.env': '{}', 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
    plugins: [nodeBuiltins, standaloneValidator],
  };
  // cdk8s-plus-28: the package entry narrowed to the members our modules use, then its generated k8s.js
  // (CommonJS, not tree-shakable) pruned to what the remaining modules reach. Each step is measured on an
  // unwritten pass over the bundle as the previous step leaves it.
  const used = await k8sMembersUsed(common, repoRoot);
  const narrowed: BuildOptions = {
    ...common,
    plugins: [...(common.plugins ?? []), ...(used ? [cdk8sPlusEntry(used.package)] : [])],
  };
  const reached = used ? await k8sMembersUsed(narrowed, repoRoot) : undefined;
  const result = await build({
    ...narrowed,
    minify: options.minify ?? true,
    metafile: true,
    plugins: [...(narrowed.plugins ?? []), ...(reached ? [pruneK8sImports(reached.k8s)] : [])],
  });
  return result.metafile;
}
