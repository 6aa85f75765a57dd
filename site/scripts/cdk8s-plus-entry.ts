/**
 * cdk8s-plus-28's `lib/index.js` is CommonJS re-exporting every module of the library (Pod, Deployment,
 * Ingress, HorizontalPodAutoscaler, …), so importing the package pulls all of them into the browser bundle
 * although the renderer uses two L2 classes and the `k8s` namespace. This plugin (browser bundle only)
 * resolves the bundle's own `import … from 'cdk8s-plus-28'` to an index that re-exports just the members
 * those modules use, each required from the library file that defines it: the same classes, the same code,
 * fewer unused modules. A member no library file exports fails the build.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';

const NAMESPACE = 'toolyard-cdk8s-plus-entry';

/** For each member, the library file that exports it (k8s: the generated imports module). */
function memberFiles(packageIndex: string, members: ReadonlySet<string>): Map<string, string> {
  const lib = dirname(packageIndex);
  const load = createRequire(packageIndex);
  const files = [
    ...readFileSync(packageIndex, 'utf8').matchAll(/__exportStar\(require\("(\.\/[^"]+)"\)/g),
  ].map((m) => join(lib, `${m[1]}.js`));
  const found = new Map<string, string>();
  for (const member of members) {
    if (member === 'k8s') {
      found.set(member, join(lib, 'imports/k8s.js'));
      continue;
    }
    const file = files.find((f) => Object.hasOwn(load(f) as object, member));
    if (!file) throw new Error(`${NAMESPACE}: no module of ${lib} exports ${member}`);
    found.set(member, file);
  }
  return found;
}

export function cdk8sPlusEntry(members: ReadonlySet<string>): Plugin {
  return {
    name: NAMESPACE,
    setup(b) {
      b.onResolve({ filter: /^cdk8s-plus-28$/ }, async (args) => {
        // Only the bundle's own modules (the library's files require each other by relative path), and not
        // the lookup of the real entry just below, which comes through here too.
        if (/[\\/]node_modules[\\/]/.test(args.importer) || args.pluginData === NAMESPACE) return undefined;
        const index = await b.resolve('cdk8s-plus-28', {
          kind: args.kind,
          resolveDir: args.resolveDir,
          pluginData: NAMESPACE,
        });
        if (index.errors.length > 0) return undefined;
        return { path: index.path, namespace: NAMESPACE };
      });
      b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const lines = [...memberFiles(args.path, members)].map(([member, file]) =>
          member === 'k8s'
            ? `exports.k8s = require(${JSON.stringify(file)});`
            : `exports.${member} = require(${JSON.stringify(file)}).${member};`,
        );
        return {
          contents: `"use strict";\n${lines.join('\n')}\n`,
          loader: 'js',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}
