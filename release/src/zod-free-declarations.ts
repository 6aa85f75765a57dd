/**
 * Declarations without zod. The config contracts (the toolchain server's, the broker's) are zod schemas, and
 * their emitted declarations import zod: every app whose types reach them loads zod's own declarations, whose
 * CommonJS flavour needs `esModuleInterop` — so the unchanged `cdk8s init typescript-app` template (which does
 * not set it, nor `skipLibCheck`) failed with 63 TS1259 errors in zod's locales.
 *
 * This rewrites each emitted declaration file that imports zod from the types TypeScript itself infers: a type
 * alias over a schema (`z.input<typeof schema>`) becomes the object type it stands for, and a schema constant
 * becomes a `ConfigSchema<Output, Input>` (`parse`, `safeParse`), declared in the file itself. Nothing is written
 * by hand, so the declarations follow the schemas; the JavaScript is untouched (zod stays a dependency).
 */
import { readFile, writeFile } from 'node:fs/promises';
import ts from 'typescript';

const FORMAT =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.InTypeAlias |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;

/** The zod-free type of a schema constant, declared once per rewritten file. */
const CONFIG_SCHEMA = `/** A config schema: \`parse\` throws on a bad config, \`safeParse\` says why. (Declared without zod.) */
export interface ConfigSchema<Output, Input = Output> {
    parse(value: unknown): Output;
    safeParse(value: unknown): { success: true; data: Output } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
    readonly _input?: Input;
}`;

const ZOD_IMPORT = /^import\s*\{\s*z\s*\}\s*from\s*['"]zod['"];?\s*$/m;

function mentionsZod(text: string): boolean {
  return /\bfrom\s*['"]zod(\/[^'"]*)?['"]|import\(['"]zod/.test(text);
}

function isExported(node: ts.Node): boolean {
  return (ts.getCombinedModifierFlags(node as ts.Declaration) & ts.ModifierFlags.Export) !== 0;
}

/** Exported type aliases and constants of a source file whose declared types mention zod, as flattened text. */
function flattenedDeclarations(program: ts.Program, sourceFile: ts.SourceFile): Map<string, string> {
  const checker = program.getTypeChecker();
  const out = new Map<string, string>();
  const typeText = (type: ts.Type, at: ts.Node) => checker.typeToString(type, at, FORMAT);
  for (const statement of sourceFile.statements) {
    if (ts.isTypeAliasDeclaration(statement) && isExported(statement)) {
      const type = checker.getTypeAtLocation(statement.name);
      const params = statement.typeParameters
        ? `<${statement.typeParameters.map((p) => p.getText()).join(', ')}>`
        : '';
      out.set(
        statement.name.text,
        `export type ${statement.name.text}${params} = ${typeText(type, statement)};`,
      );
    }
    if (ts.isVariableStatement(statement) && isExported(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        const type = checker.getTypeAtLocation(declaration.name);
        const output = type.getProperty('_output');
        const input = type.getProperty('_input');
        if (!output || !input) continue;
        const outputText = typeText(checker.getTypeOfSymbolAtLocation(output, declaration), statement);
        const inputText = typeText(checker.getTypeOfSymbolAtLocation(input, declaration), statement);
        out.set(
          declaration.name.text,
          `export declare const ${declaration.name.text}: ConfigSchema<${outputText}, ${inputText}>;`,
        );
      }
    }
  }
  return out;
}

/** The name a top-level declaration statement declares, if it is one this rewrite may replace. */
function declaredName(statement: ts.Statement): string | undefined {
  if (ts.isTypeAliasDeclaration(statement)) return statement.name.text;
  if (ts.isVariableStatement(statement)) {
    const [first] = statement.declarationList.declarations;
    return first && ts.isIdentifier(first.name) ? first.name.text : undefined;
  }
  return undefined;
}

/** Rewrites one emitted declaration file (`text`) from its source, without zod. */
export function zodFreeDeclaration(program: ts.Program, sourceFile: ts.SourceFile, text: string): string {
  const flattened = flattenedDeclarations(program, sourceFile);
  const emitted = ts.createSourceFile('out.d.ts', text, ts.ScriptTarget.Latest, true);
  let result = '';
  let at = 0;
  for (const statement of emitted.statements) {
    const name = declaredName(statement);
    const start = statement.getStart(emitted);
    if (name === undefined || !mentionsZodType(statement.getText(emitted))) continue;
    const replacement = flattened.get(name);
    if (replacement === undefined) continue;
    result += text.slice(at, start) + printed(replacement);
    at = statement.getEnd();
  }
  result += text.slice(at);
  result = result.replace(ZOD_IMPORT, CONFIG_SCHEMA);
  if (mentionsZod(result) || /\bz\.[A-Za-z$]/.test(stripComments(result)))
    throw new Error(`${sourceFile.fileName}: its declarations still mention zod after the rewrite`);
  return result;
}

/** A declaration as TypeScript's printer lays it out (one member per line), not as one long line. */
function printed(declaration: string): string {
  const file = ts.createSourceFile('x.d.ts', declaration, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  return file.statements
    .map((statement) => printer.printNode(ts.EmitHint.Unspecified, statement, file))
    .join('\n');
}

function mentionsZodType(text: string): boolean {
  return /\bz\.[A-Za-z$]/.test(stripComments(text));
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
}

/**
 * Rewrites every declaration file in `declarations` (emitted path → source path) that imports zod. `options`:
 * the compiler options the emit used.
 */
export async function rewriteZodDeclarations(
  declarations: ReadonlyMap<string, string>,
  options: ts.CompilerOptions,
): Promise<string[]> {
  const withZod: [string, string, string][] = [];
  for (const [emitted, source] of declarations) {
    const text = await readFile(emitted, 'utf8');
    if (mentionsZod(text)) withZod.push([emitted, source, text]);
  }
  if (withZod.length === 0) return [];
  const program = ts.createProgram(
    withZod.map(([, source]) => source),
    { ...options, noEmit: true, declaration: false },
  );
  for (const [emitted, source, text] of withZod) {
    const sourceFile = program.getSourceFile(source);
    if (!sourceFile) throw new Error(`${source}: not in the program that rewrites zod declarations`);
    await writeFile(emitted, zodFreeDeclaration(program, sourceFile, text));
  }
  return withZod.map(([emitted]) => emitted);
}
