/**
 * cdk8s-plus-28's `lib/imports/k8s.js` is a generated 2.7 MB CommonJS file: one `KubeXxx` class and one
 * `toJson_Xxx` function per Kubernetes type. esbuild cannot tree-shake CommonJS, so the whole file would land
 * in the browser bundle although the renderer and the cdk8s-plus-28 classes it pulls in reach a fraction of it.
 *
 * This plugin (browser bundle only) loads that file pruned to the top-level statements reachable from the
 * `k8s.X` members the bundle's modules actually use. Kept statements are the library's own text, byte for
 * byte; only unreachable ones are left out. Which members are used is read from the sources of every module
 * in the bundle that imports the file or the package (found with a first, unwritten esbuild pass over the
 * same entry points). Anything the analysis cannot follow (the namespace passed around, a dynamic
 * `k8s[name]`, a member the file does not define) fails the build instead of producing a bundle that could
 * break at run time.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { type BuildOptions, build, type Plugin, transformSync } from 'esbuild';
import ts from 'typescript';

const K8S_FILE = /[\\/]node_modules[\\/]cdk8s-plus-28[\\/]lib[\\/]imports[\\/]k8s\.js$/;
const PACKAGE_INDEX = /[\\/]node_modules[\\/]cdk8s-plus-28[\\/]lib[\\/]index\.js$/;

class PruneError extends Error {
  constructor(message: string) {
    super(`prune-k8s-imports: ${message}`);
  }
}

function parse(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

interface MembersUsed {
  /** Members of k8s.js: `binding.Name` (the module itself) or `binding.k8s.Name` (via the package). */
  readonly k8s: Set<string>;
  /** Members of the package: `plus.Name` or `import { Name } from 'cdk8s-plus-28'`. */
  readonly package: Set<string>;
}

/** What one module reads from k8s.js and from the package. */
function membersUsed(
  file: string,
  code: string,
  directSpecifiers: ReadonlySet<string>,
  packageSpecifiers: ReadonlySet<string>,
): MembersUsed {
  const source = parse(file, code);
  const direct = new Set<string>();
  const viaPackage = new Set<string>();
  const used = new Set<string>();
  const packageMembers = new Set<string>();
  const fail = (node: ts.Node, what: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    throw new PruneError(`${file}:${line + 1}: ${what} (\`${node.getText().slice(0, 80)}\`)`);
  };
  const specifierKind = (node: ts.Node): 'direct' | 'package' | undefined => {
    if (!ts.isStringLiteral(node)) return undefined;
    if (directSpecifiers.has(node.text)) return 'direct';
    if (packageSpecifiers.has(node.text)) return 'package';
    return undefined;
  };

  // 1. The local bindings of the k8s module and of the package.
  walk(source, (node) => {
    if (ts.isImportDeclaration(node)) {
      const kind = specifierKind(node.moduleSpecifier);
      if (!kind) return;
      const clause = node.importClause;
      if (!clause || clause.isTypeOnly) return;
      if (clause.name) fail(node, 'default import of cdk8s-plus-28 cannot be followed');
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) {
        (kind === 'direct' ? direct : viaPackage).add(bindings.name.text);
      } else if (bindings) {
        for (const element of bindings.elements) {
          if (element.isTypeOnly) continue;
          const imported = (element.propertyName ?? element.name).text;
          if (kind === 'direct') used.add(imported);
          else {
            packageMembers.add(imported);
            if (imported === 'k8s') direct.add(element.name.text);
          }
        }
      }
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && specifierKind(node.moduleSpecifier)) {
      fail(node, 're-export of cdk8s-plus-28 cannot be followed');
    } else if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'require' &&
      node.arguments.length === 1
    ) {
      const kind = specifierKind(node.arguments[0]!);
      if (!kind) return;
      const parent = node.parent;
      if (!ts.isVariableDeclaration(parent) || !ts.isIdentifier(parent.name)) {
        fail(node, 'require() of cdk8s-plus-28 not bound to a variable');
        return;
      }
      (kind === 'direct' ? direct : viaPackage).add(parent.name.text);
    }
  });

  // 2. Every use of those bindings must be a static member access.
  walk(source, (node) => {
    if (!ts.isIdentifier(node)) return;
    const parent = node.parent;
    if (
      ts.isImportSpecifier(parent) ||
      ts.isNamespaceImport(parent) ||
      (ts.isVariableDeclaration(parent) && parent.name === node) ||
      (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
      ((ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent)) && parent.name === node)
    ) {
      return;
    }
    if (direct.has(node.text)) {
      if (ts.isPropertyAccessExpression(parent) && parent.expression === node) used.add(parent.name.text);
      else
        fail(
          node,
          `\`${node.text}\` (cdk8s-plus-28's k8s module) used other than as \`${node.text}.Member\``,
        );
    } else if (viaPackage.has(node.text)) {
      if (!ts.isPropertyAccessExpression(parent) || parent.expression !== node) {
        fail(node, `\`${node.text}\` (cdk8s-plus-28) used other than as \`${node.text}.Member\``);
        return;
      }
      packageMembers.add(parent.name.text);
      if (parent.name.text !== 'k8s') return;
      const outer = parent.parent;
      if (ts.isPropertyAccessExpression(outer) && outer.expression === parent) used.add(outer.name.text);
      else fail(parent, `\`${node.text}.k8s\` used other than as \`${node.text}.k8s.Member\``);
    }
  });
  return { k8s: used, package: packageMembers };
}

/**
 * The modules of the bundle that import k8s.js (or the package that re-exports it as `k8s`), and the members
 * of k8s.js they use. A first esbuild pass over the same entry points, nothing written, finds them.
 */
export async function k8sMembersUsed(options: BuildOptions, cwd: string): Promise<MembersUsed | undefined> {
  const first = await build({ ...options, write: false, minify: false, metafile: true, absWorkingDir: cwd });
  const inputs = first.metafile.inputs;
  const absolute = (p: string) => (isAbsolute(p) ? p : join(cwd, p));
  const k8sInput = Object.keys(inputs).find((p) => K8S_FILE.test(absolute(p)));
  if (!k8sInput) return undefined;
  const packageInput = Object.keys(inputs).find((p) => PACKAGE_INDEX.test(absolute(p)));
  const used: MembersUsed = { k8s: new Set(), package: new Set() };
  let consumers = 0;
  for (const [input, { imports }] of Object.entries(inputs)) {
    if (input === packageInput || input === k8sInput) continue;
    const direct = new Set<string>();
    const viaPackage = new Set<string>();
    for (const record of imports) {
      if (record.original === undefined) continue;
      if (record.path === k8sInput) direct.add(record.original);
      else if (record.path === packageInput) viaPackage.add(record.original);
    }
    if (direct.size === 0 && viaPackage.size === 0) continue;
    consumers++;
    const path = absolute(input);
    let code = readFileSync(path, 'utf8');
    if (/\.[cm]?tsx?$/.test(path)) {
      code = transformSync(code, {
        loader: path.endsWith('x') ? 'tsx' : 'ts',
        format: 'esm',
        target: 'esnext',
      }).code;
    }
    const found = membersUsed(input, code, direct, viaPackage);
    for (const name of found.k8s) used.k8s.add(name);
    // Only the bundle's own modules matter here: cdk8s-plus-28's modules require each other by path.
    if (!/[\\/]node_modules[\\/]/.test(input)) for (const name of found.package) used.package.add(name);
  }
  if (consumers === 0) throw new PruneError(`${k8sInput} is bundled but no module importing it was found`);
  return used;
}

/** k8s.js without the top-level statements that nothing in `roots` reaches. */
export function pruneK8s(path: string, text: string, roots: ReadonlySet<string>): string {
  const source = parse(path, text);
  const statements = source.statements;

  // `exports.A = exports.B = … = void 0;`: the generated export list, rewritten to the kept names.
  const exportChain = (statement: ts.Statement): string[] | undefined => {
    if (!ts.isExpressionStatement(statement)) return undefined;
    const names: string[] = [];
    let expression: ts.Expression = statement.expression;
    while (ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const target = expression.left;
      if (
        !ts.isPropertyAccessExpression(target) ||
        !ts.isIdentifier(target.expression) ||
        target.expression.text !== 'exports'
      ) {
        return undefined;
      }
      names.push(target.name.text);
      expression = expression.right;
    }
    return names.length > 0 && ts.isVoidExpression(expression) ? names : undefined;
  };

  const declared = statements.map((statement): string[] => {
    if ((ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement)) && statement.name) {
      return [statement.name.text];
    }
    if (ts.isVariableStatement(statement)) {
      return statement.declarationList.declarations.flatMap((d) =>
        ts.isIdentifier(d.name) ? [d.name.text] : [],
      );
    }
    return [];
  });
  const topLevel = new Set(declared.flat());
  const exported = new Set(statements.flatMap((s) => exportChain(s) ?? []));
  for (const name of roots) {
    if (!exported.has(name) || !topLevel.has(name)) {
      throw new PruneError(`the bundle uses k8s.${name}, which ${path} does not define`);
    }
  }

  const references = statements.map((statement) => {
    const found = new Set<string>();
    walk(statement, (node) => {
      if (!ts.isIdentifier(node) || !topLevel.has(node.text)) return;
      const parent = node.parent;
      if (ts.isPropertyAccessExpression(parent) && parent.name === node) return;
      found.add(node.text);
    });
    return found;
  });

  // A statement that declares exported names is kept when one of them is needed; an expression statement
  // (`exports.X = X`, `X.GVK = …`, `X[_a] = …`) when it touches a needed exported name; everything else
  // (the prelude: `var _a…`, `require("cdk8s")`, the RTTI symbol) always. Kept statements need what they use.
  const chainIndex = statements.findIndex((s) => exportChain(s) !== undefined);
  const needed = new Set<string>(roots);
  const kept = new Array<boolean>(statements.length).fill(false);
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < statements.length; i++) {
      if (kept[i] || i === chainIndex) continue;
      const owns = declared[i]!.filter((n) => exported.has(n));
      const touches = [...references[i]!].filter((n) => exported.has(n));
      const keep =
        declared[i]!.length > 0
          ? owns.length === 0 || owns.some((n) => needed.has(n))
          : touches.length === 0 || touches.some((n) => needed.has(n));
      if (!keep) continue;
      kept[i] = true;
      changed = true;
      for (const name of references[i]!) needed.add(name);
    }
  }

  let out = '';
  statements.forEach((statement, i) => {
    if (i === chainIndex) {
      const names = exportChain(statement)!.filter((n) => needed.has(n));
      out += `\n${names.map((n) => `exports.${n} = `).join('')}void 0;`;
    } else if (kept[i]) {
      out += text.slice(statement.getFullStart(), statement.end);
    }
  });
  return `${out}\n`;
}

/** The esbuild plugin: k8s.js pruned to what `roots` (from `k8sMembersUsed`) reaches. */
export function pruneK8sImports(roots: ReadonlySet<string>): Plugin {
  return {
    name: 'toolyard-prune-k8s-imports',
    setup(b) {
      b.onLoad({ filter: K8S_FILE }, (args) => ({
        contents: pruneK8s(args.path, readFileSync(args.path, 'utf8'), roots),
        loader: 'js',
      }));
    },
  };
}
