/**
 * Parses spec text (YAML or JSON, one or more `---`-separated documents), validates each document against
 * the Agent schema and maps every problem to `file:line`. Isomorphic: takes text, never touches the disk.
 */
import {
  type Alias,
  type Document,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
  visit,
} from 'yaml';
import type { ToolyardAgent } from './types.generated.ts';
import { type SpecProblem, splitPointer, validateAgentDocument } from './validator.ts';

/** A problem located in a file. */
export interface SpecError extends SpecProblem {
  readonly file: string;
  /** 1-based line of the offending value (or of its closest existing parent); 0: the file as a whole. */
  readonly line: number;
}

/** One valid Agent document of a spec file. */
export interface LoadedSpec {
  readonly file: string;
  readonly agent: ToolyardAgent;
  /** 1-based line of the value at a JSON Pointer in this document (or of its closest existing parent). */
  lineOf(pointer: string): number;
}

export type LoadResult =
  | { readonly ok: true; readonly specs: readonly LoadedSpec[] }
  | { readonly ok: false; readonly errors: readonly SpecError[] };

/** One parsed YAML document of a spec file, not yet validated. */
export interface SpecDocument {
  readonly value: unknown;
  /** `[document 2] ` in a file of several documents, else empty: put before every message about it. */
  readonly prefix: string;
  lineOf(pointer: string): number;
  /** The text a plain (unquoted) scalar at a JSON Pointer was written as, when one is exactly there. */
  plainScalarAt(pointer: string): string | undefined;
}

export type ParseResult =
  | { readonly ok: true; readonly documents: readonly SpecDocument[] }
  | { readonly ok: false; readonly errors: readonly SpecError[] };

/** Parses every document in `text`; YAML errors of any document fail the whole file. */
export function parseSpecDocuments(text: string, file: string): ParseResult {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (!Array.isArray(parsed)) {
    return {
      ok: false,
      errors: [{ file, line: 0, path: '', message: 'empty file' }],
    };
  }
  const nonEmpty = parsed.filter((doc) => doc.contents !== null || doc.errors.length > 0);
  if (nonEmpty.length === 0) {
    const blank = text.trim() === '';
    return {
      ok: false,
      errors: [
        {
          file,
          line: 0,
          path: '',
          message: blank ? 'empty file' : 'no YAML document in this file, only comments',
          hint: 'write an Agent spec (apiVersion: toolyard.dev/v1alpha1, kind: Agent)',
        },
      ],
    };
  }
  const errors: SpecError[] = [];
  const documents: SpecDocument[] = [];
  for (const [index, doc] of nonEmpty.entries()) {
    const prefix = nonEmpty.length > 1 ? `[document ${index + 1}] ` : '';
    for (const error of doc.errors) {
      const line = error.linePos?.[0]?.line ?? lineCounter.linePos(error.pos[0]).line;
      errors.push({
        file,
        line,
        path: '',
        message: `${prefix}not YAML: ${error.message.split('\n')[0]}`,
      });
    }
    if (doc.errors.length > 0) continue;
    const value = documentValue(doc, lineCounter);
    if (!value.ok) {
      errors.push({ file, ...value.error, message: `${prefix}${value.error.message}` });
      continue;
    }
    documents.push({
      value: value.value,
      prefix,
      lineOf: (pointer: string) => lineOfPointer(doc, lineCounter, pointer),
      plainScalarAt: (pointer: string) => plainScalarAt(doc, text, pointer),
    });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, documents };
}

/**
 * A document's value. The YAML parser accepts `*name` without an `&name` anchor before it (and aliases beyond
 * the limit that stops an alias bomb); turning it into a value then fails: report that at the alias.
 */
function documentValue(
  doc: Document,
  lineCounter: LineCounter,
): { ok: true; value: unknown } | { ok: false; error: Omit<SpecError, 'file'> } {
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    // The first alias without an anchor, else (too many aliases) the first alias.
    let unresolved: Alias | undefined;
    let first: Alias | undefined;
    visit(doc, {
      Alias(_key, node) {
        first ??= node;
        if (node.resolve(doc) !== undefined) return undefined;
        unresolved = node;
        return visit.BREAK;
      },
    });
    const at = unresolved ?? first;
    const line = at?.range ? lineCounter.linePos(at.range[0]).line : 0;
    return {
      ok: false,
      error: {
        line,
        path: '',
        message: `not YAML: ${(error as Error).message.split('\n')[0]}`,
        ...(unresolved
          ? {
              hint: `"*${unresolved.source}" is read as a YAML alias: quote a value that starts with "*", e.g. "*${unresolved.source}"`,
            }
          : {}),
      },
    };
  }
}

/** Parses and schema-validates every document in `text`. All problems of all documents are reported. */
export function loadSpecText(text: string, file: string): LoadResult {
  const parsed = parseSpecDocuments(text, file);
  if (!parsed.ok) return parsed;
  const errors: SpecError[] = [];
  const specs: LoadedSpec[] = [];
  for (const doc of parsed.documents) {
    const problems = validateAgentDocument(doc.value);
    for (const problem of problems) errors.push(locate(problem, doc, file));
    if (problems.length === 0) specs.push({ file, agent: doc.value as ToolyardAgent, lineOf: doc.lineOf });
  }
  if (errors.length > 0) return { ok: false, errors: sortByLine(errors) };
  return { ok: true, specs };
}

/** A problem of a document, located in its file. */
export function locate(problem: SpecProblem, doc: SpecDocument, file: string): SpecError {
  const hint = quoteHint(problem, doc) ?? problem.hint;
  return {
    ...problem,
    file,
    line: doc.lineOf(problem.path),
    message: doc.prefix + problem.message,
    ...(hint === undefined ? {} : { hint }),
  };
}

/**
 * A string field written as an unquoted number or boolean (`tag: 1.20`): YAML read it as one, and may have
 * changed it on the way (1.20 became 1.2). Say how to write it, with the text as it was typed.
 */
function quoteHint(problem: SpecProblem, doc: SpecDocument): string | undefined {
  if (problem.message !== 'must be a string') return undefined;
  const typed = doc.plainScalarAt(problem.path);
  if (typed === undefined) return undefined;
  const value = valueAtPointer(doc.value, problem.path);
  if (typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const key = splitPointer(problem.path).at(-1) ?? '';
  const quoted = /^\d+$/.test(key) ? JSON.stringify(typed) : `${key}: ${JSON.stringify(typed)}`;
  const read = String(value) === typed ? `a ${typeof value}` : `the ${typeof value} ${String(value)}`;
  return `quote it: ${quoted} (unquoted, YAML reads ${typed} as ${read})`;
}

function valueAtPointer(root: unknown, pointer: string): unknown {
  let current = root;
  for (const segment of splitPointer(pointer)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function plainScalarAt(doc: Document, text: string, pointer: string): string | undefined {
  let node: unknown = doc.contents;
  for (const segment of splitPointer(pointer)) {
    if (isMap(node)) {
      node = node.items.find(
        (item) => String((item.key as { value?: unknown } | null)?.value ?? item.key) === segment,
      )?.value;
    } else if (isSeq(node)) {
      node = node.items[Number(segment)];
    } else return undefined;
  }
  if (!isScalar(node) || node.type !== 'PLAIN' || !node.range) return undefined;
  return text.slice(node.range[0], node.range[1]).trim();
}

/** Errors in file order (stable: problems on one line keep their order). */
export function sortByLine(errors: readonly SpecError[]): SpecError[] {
  return [...errors].sort((a, b) => a.line - b.line);
}

function lineOfPointer(doc: Document, lineCounter: LineCounter, pointer: string): number {
  let node: unknown = doc.contents;
  let line = nodeLine(node, lineCounter) ?? 1;
  for (const segment of splitPointer(pointer)) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => String((item.key as { value?: unknown } | null)?.value ?? item.key) === segment,
      );
      if (!pair) break;
      // A field is located at its key: a block value starts on a later line.
      line = nodeLine(pair.key, lineCounter) ?? line;
      next = pair.value;
    } else if (isSeq(node)) {
      next = node.items[Number(segment)];
      line = nodeLine(next, lineCounter) ?? line;
    } else {
      break;
    }
    if (next === undefined || next === null) break;
    node = next;
  }
  return line;
}

function nodeLine(node: unknown, lineCounter: LineCounter): number | undefined {
  const range = (node as Node | null)?.range;
  return range ? lineCounter.linePos(range[0]).line : undefined;
}

/**
 * `file:line: /path: message` and, when there is one, an indented hint line. A problem of the whole file (line
 * 0: it cannot be read, is empty) is `file: message`; one of the text rather than a field (path "": not YAML)
 * is `file:line: message`.
 */
export function formatSpecError(error: SpecError): string {
  const where = error.line > 0 ? `${error.file}:${error.line}` : error.file;
  const head = `${where}: ${error.path === '' ? '' : `${error.path}: `}${error.message}`;
  return error.hint ? `${head}\n  hint: ${error.hint}` : head;
}
