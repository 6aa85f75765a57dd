/**
 * A YAML emitter for Helm templates: plain JSON values are written as YAML (YAML 1.1-safe quoting, so Go's
 * YAML parser reads back exactly what the renderer produced), while marked nodes become Go template text.
 * Every literal is escaped so that no `{{` in generated content can start a template action.
 * Pure: no fs, no process.
 */
import { stringify } from 'yaml';

const MARK = Symbol('template-node');

/** True for characters that YAML cannot hold in a plain or block scalar (controls other than tab/newline). */
function hasControlChars(text: string, allowNewline = false): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 9 || (allowNewline && c === 10)) continue;
    if (c < 32 || c === 127) return true;
  }
  return false;
}

/** A scalar replaced by one template action: `{{ text }}`. */
export interface ExprNode {
  readonly [MARK]: 'expr';
  readonly text: string;
}

/** A string built from literal parts and template actions (e.g. a URL holding the release's fullname). */
export interface StringNode {
  readonly [MARK]: 'string';
  readonly parts: readonly (string | ExprNode)[];
}

/** A whole map entry written by hand: receives the key's indent and the key, returns complete lines. */
export interface EntryNode {
  readonly [MARK]: 'entry';
  render(indent: number, key: string): string[];
}

export type TemplateNode = ExprNode | StringNode | EntryNode;

export function expr(text: string): ExprNode {
  return { [MARK]: 'expr', text };
}

export function templatedString(parts: readonly (string | ExprNode)[]): StringNode | string {
  const merged: (string | ExprNode)[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if (typeof part === 'string' && typeof last === 'string') merged[merged.length - 1] = last + part;
    else if (part !== '') merged.push(part);
  }
  if (merged.every((p) => typeof p === 'string')) return merged.join('');
  return { [MARK]: 'string', parts: merged };
}

export function entry(render: (indent: number, key: string) => string[]): EntryNode {
  return { [MARK]: 'entry', render };
}

export function isTemplateNode(value: unknown): value is TemplateNode {
  return typeof value === 'object' && value !== null && MARK in value;
}

/** Escapes literal text so Go's text/template prints it verbatim. */
export function escapeLiteral(text: string): string {
  return text.replaceAll('{{', '{{ "{{" }}');
}

/** A Go string literal (JSON's escapes are a subset of Go's). */
export function goString(text: string): string {
  return JSON.stringify(text);
}

/** YAML text of a plain scalar or a map key, quoted wherever YAML 1.1 or 1.2 would read another type. */
export function yamlScalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = String(value);
  if (hasControlChars(text)) return JSON.stringify(text);
  const out = stringify(text, { version: '1.1', lineWidth: 0 }).replace(/\n$/, '');
  return out.includes('\n') ? JSON.stringify(text) : out;
}

function pad(indent: number): string {
  return ' '.repeat(indent);
}

function renderParts(parts: readonly (string | ExprNode)[]): string {
  let out = '';
  for (const [index, part] of parts.entries()) {
    if (typeof part === 'string') {
      let text = escapeLiteral(part);
      // A literal "{" right before an action would merge with its "{{".
      if (text.endsWith('{') && index + 1 < parts.length) text = `${text.slice(0, -1)}{{ "{" }}`;
      out += text;
    } else out += `{{ ${part.text} }}`;
  }
  return out;
}

/** Inline scalar text of a value (plain scalar or expression), or undefined when it needs its own lines. */
function inline(value: unknown): string | undefined {
  if (isTemplateNode(value)) {
    if (value[MARK] === 'expr') return `{{ ${value.text} }}`;
    if (value[MARK] === 'string') {
      const hasNewline = value.parts.some((p) => typeof p === 'string' && p.includes('\n'));
      if (hasNewline) return undefined;
      const args = value.parts.map((p) => (typeof p === 'string' ? goString(p) : `(${p.text})`));
      return `{{ print ${args.join(' ')} | quote }}`;
    }
    return undefined;
  }
  if (Array.isArray(value)) return value.length === 0 ? '[]' : undefined;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0 ? '{}' : undefined;
  return escapeLiteral(yamlScalar(value));
}

/** A multi-line templated string as a YAML block literal. */
function blockLiteral(node: StringNode, indent: number): { header: string; lines: string[] } {
  const text = node.parts.map((p) => (typeof p === 'string' ? p : '\u0000')).join('');
  if (hasControlChars(text.replaceAll('\u0000', ''), true)) {
    throw new Error('a templated multi-line string contains control characters; cannot write it as a block');
  }
  const chomp = text.endsWith('\n\n') ? '+' : text.endsWith('\n') ? '' : '-';
  const firstLine = text.split('\n').find((l) => l.trim() !== '') ?? '';
  const indicator = /^[ \t]/.test(firstLine) ? '2' : '';
  const rendered = renderParts(node.parts);
  const body = chomp === '' ? rendered.slice(0, -1) : chomp === '+' ? rendered.slice(0, -1) : rendered;
  const lines = body.split('\n').map((line) => (line === '' ? '' : pad(indent) + line));
  return { header: `|${indicator}${chomp}`, lines };
}

/** Lines of a map at `indent`. */
export function emitMap(map: Readonly<Record<string, unknown>>, indent: number): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(map)) {
    if (value === undefined) continue;
    lines.push(...emitEntry(key, value, indent));
  }
  return lines;
}

export function emitEntry(key: string, value: unknown, indent: number): string[] {
  if (isTemplateNode(value) && value[MARK] === 'entry') return value.render(indent, key);
  const k = escapeLiteral(yamlScalar(key));
  if (typeof value === 'string' && value.includes('\n') && !hasControlChars(value, true)) {
    const block = blockLiteral({ [MARK]: 'string', parts: [value] }, indent + 2);
    return [`${pad(indent)}${k}: ${block.header}`, ...block.lines];
  }
  const text = inline(value);
  if (text !== undefined) return [`${pad(indent)}${k}: ${text}`];
  if (isTemplateNode(value) && value[MARK] === 'string') {
    const block = blockLiteral(value, indent + 2);
    return [`${pad(indent)}${k}: ${block.header}`, ...block.lines];
  }
  if (Array.isArray(value)) return [`${pad(indent)}${k}:`, ...emitSeq(value, indent + 2)];
  return [`${pad(indent)}${k}:`, ...emitMap(value as Record<string, unknown>, indent + 2)];
}

export function emitSeq(items: readonly unknown[], indent: number): string[] {
  const lines: string[] = [];
  for (const item of items) {
    if (typeof item === 'string' && item.includes('\n') && !hasControlChars(item, true)) {
      const block = blockLiteral({ [MARK]: 'string', parts: [item] }, indent + 2);
      lines.push(`${pad(indent)}- ${block.header}`, ...block.lines);
      continue;
    }
    const text = inline(item);
    if (text !== undefined) {
      lines.push(`${pad(indent)}- ${text}`);
      continue;
    }
    const sub = Array.isArray(item)
      ? emitSeq(item, indent + 2)
      : emitMap(item as Record<string, unknown>, indent + 2);
    const first = sub[0] ?? '';
    if (!first.startsWith(pad(indent + 2)) || first.trimStart().startsWith('{{')) {
      throw new Error(`a list item cannot start with template text: ${first}`);
    }
    lines.push(`${pad(indent)}- ${first.slice(indent + 2)}`, ...sub.slice(1));
  }
  return lines;
}
