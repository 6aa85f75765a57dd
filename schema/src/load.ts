/**
 * Parses spec text (YAML or JSON, one or more `---`-separated documents), validates each document against
 * the Agent schema and maps every problem to `file:line`. Isomorphic: takes text, never touches the disk.
 */
import { type Document, isMap, isSeq, LineCounter, type Node, parseAllDocuments } from 'yaml';
import type { ToolyardAgent } from './types.generated.ts';
import { type SpecProblem, splitPointer, validateAgentDocument } from './validator.ts';

/** A problem located in a file. */
export interface SpecError extends SpecProblem {
  readonly file: string;
  /** 1-based line of the offending value (or of its closest existing parent). */
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
      errors: [{ file, line: 1, path: '/', message: 'expected at least one YAML document' }],
    };
  }
  const nonEmpty = parsed.filter((doc) => doc.contents !== null || doc.errors.length > 0);
  if (nonEmpty.length === 0) {
    return {
      ok: false,
      errors: [
        {
          file,
          line: 1,
          path: '/',
          message: 'the file holds no document',
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
        path: '/',
        message: `${prefix}invalid YAML: ${error.message.split('\n')[0]}`,
      });
    }
    if (doc.errors.length > 0) continue;
    documents.push({
      value: doc.toJS({ maxAliasCount: 100 }),
      prefix,
      lineOf: (pointer: string) => lineOfPointer(doc, lineCounter, pointer),
    });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, documents };
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
  return { ...problem, file, line: doc.lineOf(problem.path), message: doc.prefix + problem.message };
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

/** `file:line: /path: message` and, when there is one, an indented hint line. */
export function formatSpecError(error: SpecError): string {
  const head = `${error.file}:${error.line}: ${error.path}: ${error.message}`;
  return error.hint ? `${head}\n  hint: ${error.hint}` : head;
}
