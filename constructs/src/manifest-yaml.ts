/**
 * A specialised YAML writer for rendered manifests: plain JSON objects (maps, arrays, strings, safe integers,
 * booleans, null), written byte for byte as cdk8s's `Yaml.stringify` writes them — the `yaml` package with
 * YAML 1.1, `lineWidth: 0`, `keepUndefined` and every other option at its default. That writer builds a node
 * tree per document and runs every scalar through its general style machinery; this one walks the JSON once.
 *
 * It knows the narrow part of the `yaml` writer's rules that manifests reach:
 * - block maps and sequences (`- ` items, sequences indented under their key), `{}` and `[]` when empty;
 * - a one-line string is plain unless YAML would read it back as something else (the 1.1 schema's own tests:
 *   numbers, booleans, null, timestamps, `<<`) or it trips an indicator rule (`: `, ` #`, a leading `-`,
 *   `*`, `&`…); a quoted one is single-quoted when it holds `"` and no `'`, else JSON-quoted;
 * - a multi-line string is a literal block (`|`, with the chomping and indentation indicators the `yaml`
 *   writer picks).
 * Anything else (a control character, a multi-line key, a float, an object seen twice — which the `yaml`
 * writer would write as an anchor and alias — a class instance, `undefined`) makes `manifestYaml` return
 * `undefined`, and the caller uses the `yaml` writer for that document. Proven byte-identical over every
 * example, every golden and generated specs in test/constructs/manifest-yaml.test.ts.
 */
import { Document } from 'yaml';

/** Thrown inside the walk when a value needs the general writer; never escapes this module. */
class NeedsGeneralWriter extends Error {}

const INDENT_STEP = '  ';
/** Characters the `yaml` writer double-quotes (control characters, lone surrogates). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters looked for
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/** A one-line string that cannot be plain: leading indicators, `: `, ` #`, trailing space or colon… */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
/** A document start, end or directive at the start of a line. */
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;
/** Runs of newlines inside a block's trailing whitespace that the next line's indentation follows. */
const BLOCK_END_NEWLINES = /(^|(?<!\n))\n+(?!\n|$)/g;
/** Keys longer than this become explicit (`? key`) in the `yaml` writer. */
const MAX_IMPLICIT_KEY = 1024;

/** The YAML 1.1 schema's tests for scalars that are not strings: a plain string matching one is quoted. */
const OTHER_TYPE_TESTS: readonly RegExp[] = (() => {
  const { tags, compat } = new Document(null, { version: '1.1' }).schema;
  return [...tags, ...(compat ?? [])]
    .filter((tag) => tag.default && tag.tag !== 'tag:yaml.org,2002:str' && tag.test)
    .map((tag) => tag.test as RegExp);
})();

/** Whether a string written plain would be read back as another type. Memoised: manifests repeat strings. */
const readsAsOtherType = (() => {
  const memo = new Map<string, boolean>();
  return (value: string): boolean => {
    let known = memo.get(value);
    if (known === undefined) {
      known = OTHER_TYPE_TESTS.some((test) => test.test(value));
      if (memo.size > 50_000) memo.clear();
      memo.set(value, known);
    }
    return known;
  };
})();

/** A one-line string the `yaml` writer quotes: single quotes for text with `"` and no `'`, else JSON. */
function quoted(value: string): string {
  if (value.includes('"') && !value.includes("'")) return `'${value}'`;
  return JSON.stringify(value);
}

/** The YAML 1.1 merge key: the `yaml` writer gives the string `<<` the merge tag, written plain. */
const MERGE_KEY = '<<';

/** A one-line string as a value or key (no newline, no control character). */
function oneLine(value: string): string {
  if (value === MERGE_KEY) return value;
  if (NOT_PLAIN.test(value) || readsAsOtherType(value)) return quoted(value);
  return value;
}

/** A multi-line string as a literal block whose lines are indented by `indent`. */
function literalBlock(text: string, indent: string): string {
  // Trailing spaces after the last newline cannot be kept by a block; the `yaml` writer quotes those.
  if (/\n[\t ]+$/.test(text)) throw new NeedsGeneralWriter();
  let contentEnd = text.length;
  while (contentEnd > 0 && '\n\t '.includes(text[contentEnd - 1]!)) contentEnd--;
  let trailing = text.slice(contentEnd);
  const firstNewline = trailing.indexOf('\n');
  const chomp =
    firstNewline === -1 ? '-' : text === trailing || firstNewline !== trailing.length - 1 ? '+' : '';
  let body = text;
  if (trailing !== '') {
    body = body.slice(0, -trailing.length);
    if (trailing.endsWith('\n')) trailing = trailing.slice(0, -1);
    trailing = trailing.replace(BLOCK_END_NEWLINES, `$&${indent}`);
  }
  let leadingSpace = false;
  let lastLeadingNewline = -1;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === ' ') leadingSpace = true;
    else if (body[i] === '\n') lastLeadingNewline = i;
    else break;
  }
  let leading = body.slice(0, lastLeadingNewline + 1);
  if (leading !== '') {
    body = body.slice(leading.length);
    leading = leading.replace(/\n+/g, `$&${indent}`);
  }
  const header = (leadingSpace ? '2' : '') + chomp;
  return `|${header}\n${indent}${leading}${body.replace(/\n+/g, `$&${indent}`)}${trailing}`;
}

function scalarString(value: string, indent: string): string {
  if (CONTROL.test(value)) throw new NeedsGeneralWriter();
  return value.includes('\n') ? literalBlock(value, indent) : oneLine(value);
}

function key(name: string): string {
  if (
    name === '' ||
    name.includes('\n') ||
    name.length > MAX_IMPLICIT_KEY ||
    CONTROL.test(name) ||
    DOCUMENT_MARKER.test(name)
  )
    throw new NeedsGeneralWriter();
  return oneLine(name);
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether a value is written as a non-empty block collection (on the lines after its key). */
function isBlockCollection(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
}

class ManifestWriter {
  /** Objects already written: the `yaml` writer turns a second sighting into an alias. */
  private readonly seen = new Set<object>();

  /** A value whose own lines (after the first) are indented by `indent`. */
  write(value: unknown, indent: string): string {
    switch (typeof value) {
      case 'string':
        return scalarString(value, indent);
      case 'boolean':
        return value ? 'true' : 'false';
      case 'number':
        if (!Number.isSafeInteger(value) || Object.is(value, -0)) throw new NeedsGeneralWriter();
        return String(value);
      case 'object':
        if (value === null) return 'null';
        if (this.seen.has(value)) throw new NeedsGeneralWriter();
        this.seen.add(value);
        if (Array.isArray(value)) return this.sequence(value, indent);
        if (!isPlainObject(value)) throw new NeedsGeneralWriter();
        return this.map(value, indent);
      default:
        throw new NeedsGeneralWriter();
    }
  }

  private sequence(items: readonly unknown[], indent: string): string {
    if (items.length === 0) return '[]';
    const itemIndent = indent + INDENT_STEP;
    let out = '';
    for (let i = 0; i < items.length; i++) {
      if (i > 0) out += `\n${indent}`;
      out += `- ${this.write(items[i], itemIndent)}`;
    }
    return out;
  }

  private map(object: Record<string, unknown>, indent: string): string {
    const names = Object.keys(object);
    if (names.length === 0) return '{}';
    const valueIndent = indent + INDENT_STEP;
    let out = '';
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const value = object[name];
      if (i > 0) out += `\n${indent}`;
      const separator = isBlockCollection(value) ? `\n${valueIndent}` : ' ';
      out += `${key(name)}:${separator}${this.write(value, valueIndent)}`;
    }
    return out;
  }
}

/**
 * One manifest object as a YAML document (with its final newline), byte for byte what the `yaml` writer
 * produces with cdk8s's options; `undefined` when the object holds something only the general writer handles.
 */
export function manifestYaml(object: object): string | undefined {
  if (typeof object !== 'object' || object === null || Array.isArray(object) || !isPlainObject(object))
    return undefined;
  try {
    return `${new ManifestWriter().write(object, '')}\n`;
  } catch (error) {
    if (error instanceof NeedsGeneralWriter) return undefined;
    throw error;
  }
}
