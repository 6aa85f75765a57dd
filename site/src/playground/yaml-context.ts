/**
 * Where the cursor is in a YAML document that may be half typed: the path of the mapping it is in, and
 * whether it is on a key or on a key's value. Read from indentation, `- ` markers and single-line flow
 * collections (`{ … }`, `[ … ]`), so it works on text no parser accepts yet. Pure; no editor types.
 */

export interface YamlContext {
  /** Keys and list indexes from the root to the mapping (or list) the cursor is in. */
  readonly path: readonly string[];
  /** `key`: typing a key of the mapping at `path`; `value`: typing the value of `key`; `item`: a list item. */
  readonly kind: 'key' | 'value' | 'item';
  /** For `value`: the key whose value is typed. */
  readonly key?: string;
  /** Document offset where the word being typed starts (completions replace from here). */
  readonly from: number;
  /** What is typed so far. */
  readonly prefix: string;
  /** Keys already present in the mapping at `path` on the cursor's line (flow mappings). */
  readonly siblings?: readonly string[];
}

interface Line {
  readonly blank: boolean;
  readonly separator: boolean;
  /** Columns of `- ` markers before the content. */
  readonly dashes: readonly number[];
  readonly contentCol: number;
  readonly key?: string;
  readonly keyCol?: number;
  /** Column just after the key's `:`. */
  readonly colonEnd?: number;
}

const KEY = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#:{}[\],'"][^:#{}[\],]*?)[ \t]*:(?=\s|$)/;

function unquote(key: string): string {
  if (key.startsWith('"')) {
    try {
      return JSON.parse(key) as string;
    } catch {
      return key.slice(1, -1);
    }
  }
  return key.startsWith("'") ? key.slice(1, -1).replace(/''/g, "'") : key.trim();
}

export function analyzeLine(text: string): Line {
  let i = 0;
  while (text[i] === ' ') i++;
  const rest = text.slice(i);
  if (rest === '' || rest.startsWith('#'))
    return { blank: true, separator: false, dashes: [], contentCol: i };
  if (/^(---|\.\.\.)(\s|$)/.test(text)) return { blank: true, separator: true, dashes: [], contentCol: 0 };
  const dashes: number[] = [];
  while (text[i] === '-' && (text[i + 1] === ' ' || i + 1 === text.length)) {
    dashes.push(i);
    i++;
    while (text[i] === ' ') i++;
  }
  const match = KEY.exec(text.slice(i));
  if (!match) return { blank: false, separator: false, dashes, contentCol: i };
  return {
    blank: false,
    separator: false,
    dashes,
    contentCol: i,
    key: unquote(match[1]!),
    keyCol: i,
    colonEnd: i + match[0].length,
  };
}

/** The index of the list item whose `- ` is at `col` on line `at`: how many items of that list come before. */
function itemIndex(lines: readonly string[], at: number, col: number): number {
  let index = 0;
  for (let l = at - 1; l >= 0; l--) {
    const line = analyzeLine(lines[l]!);
    if (line.separator) break;
    if (line.blank) continue;
    if (line.dashes.includes(col)) index++;
    else if (line.contentCol <= col) break;
  }
  return index;
}

/** The path of the mapping whose keys sit at `col` on line `at` (or of the list item it belongs to). */
function parentPath(lines: readonly string[], at: number, col: number): string[] {
  const path: string[] = [];
  let limit = col;
  const items = (l: number, dashes: readonly number[]) => {
    for (const dash of [...dashes].reverse()) {
      if (dash >= limit) continue;
      path.unshift(String(itemIndex(lines, l, dash)));
      limit = dash;
    }
  };
  items(at, analyzeLine(lines[at]!).dashes);
  for (let l = at - 1; l >= 0 && limit > 0; l--) {
    const line = analyzeLine(lines[l]!);
    if (line.separator) break;
    if (line.blank) continue;
    if (line.key !== undefined && line.keyCol! < limit) {
      path.unshift(line.key);
      limit = line.keyCol!;
    }
    items(l, line.dashes);
  }
  return path;
}

/** Inside a flow collection opened on this line: its path below the line's key, and the cursor's role. */
function flowContext(
  before: string,
  start: number,
):
  | { path: string[]; kind: 'key' | 'value' | 'item'; key?: string; word: number; siblings: string[] }
  | undefined {
  const stack: { type: '{' | '['; key?: string; keys: string[]; index: number }[] = [];
  let quote: string | undefined;
  let token = '';
  let tokenStart = start;
  let pendingKey: string | undefined;
  for (let i = start; i < before.length; i++) {
    const c = before[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      token += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      token += c;
      continue;
    }
    const top = stack.at(-1);
    if (c === '{' || c === '[') {
      stack.push({ type: c, ...(pendingKey !== undefined ? { key: pendingKey } : {}), keys: [], index: 0 });
      pendingKey = undefined;
      token = '';
      tokenStart = i + 1;
    } else if (c === '}' || c === ']') {
      stack.pop();
      pendingKey = undefined;
      token = '';
      tokenStart = i + 1;
    } else if (c === ':' && (before[i + 1] === ' ' || i + 1 === before.length) && top?.type === '{') {
      pendingKey = unquote(token.trim());
      top.keys.push(pendingKey);
      token = '';
      tokenStart = i + 1;
    } else if (c === ',') {
      if (top?.type === '[') top.index++;
      pendingKey = undefined;
      token = '';
      tokenStart = i + 1;
    } else {
      token += c;
    }
  }
  if (stack.length === 0) return undefined;
  const path: string[] = [];
  stack.forEach((frame, i) => {
    if (i > 0 && frame.key !== undefined) path.push(frame.key);
    if (i > 0 && stack[i - 1]!.type === '[') path.push(String(stack[i - 1]!.index));
  });
  const top = stack.at(-1)!;
  let word = tokenStart;
  while (before[word] === ' ') word++;
  if (top.type === '[') return { path, kind: 'item', word, siblings: [] };
  if (pendingKey !== undefined) return { path, kind: 'value', key: pendingKey, word, siblings: top.keys };
  return { path, kind: 'key', word, siblings: top.keys };
}

export function yamlContext(text: string, offset: number): YamlContext {
  const lines = text.split('\n');
  let lineNo = 0;
  let lineStart = 0;
  while (lineNo < lines.length - 1 && lineStart + lines[lineNo]!.length < offset) {
    lineStart += lines[lineNo]!.length + 1;
    lineNo++;
  }
  const lineText = lines[lineNo]!;
  const col = offset - lineStart;
  const before = lineText.slice(0, col);
  const line = analyzeLine(lineText);
  const afterColon = line.colonEnd !== undefined && col >= line.colonEnd;
  const valueStart = afterColon ? line.colonEnd! : line.contentCol;
  const flow = flowContext(before, Math.min(valueStart, before.length));
  if (flow && (afterColon || line.key === undefined)) {
    const base = parentPath(lines, lineNo, line.keyCol ?? line.contentCol);
    const owner = afterColon ? [line.key!] : [];
    const path = [...base, ...owner, ...flow.path];
    const from = lineStart + flow.word;
    const prefix = before.slice(flow.word);
    if (flow.kind === 'item') return { path, kind: 'item', from, prefix };
    if (flow.kind === 'value')
      return { path, kind: 'value', key: flow.key!, from, prefix, siblings: flow.siblings };
    return { path, kind: 'key', from, prefix, siblings: flow.siblings };
  }
  if (afterColon) {
    let word = line.colonEnd!;
    while (lineText[word] === ' ') word++;
    const path = parentPath(lines, lineNo, line.keyCol!);
    return { path, kind: 'value', key: line.key!, from: lineStart + word, prefix: before.slice(word) };
  }
  // A key being typed: the mapping is the one whose keys start where this word starts.
  const keyCol = Math.min(line.contentCol, col);
  const path = parentPath(lines, lineNo, keyCol);
  // A bare `- ` item of a list of scalars looks like a key until a `:` follows; the caller decides.
  return { path, kind: 'key', from: lineStart + keyCol, prefix: before.slice(keyCol) };
}

/** The key under `offset`, if it is on a key: its path (ending with the key) and span. */
export function keyAt(
  text: string,
  offset: number,
): { path: string[]; from: number; to: number } | undefined {
  const lines = text.split('\n');
  let lineNo = 0;
  let lineStart = 0;
  while (lineNo < lines.length - 1 && lineStart + lines[lineNo]!.length < offset) {
    lineStart += lines[lineNo]!.length + 1;
    lineNo++;
  }
  const line = analyzeLine(lines[lineNo]!);
  if (line.key === undefined) return undefined;
  const col = offset - lineStart;
  const keyEnd = line.colonEnd! - 1;
  if (col < line.keyCol! || col > keyEnd) return undefined;
  return {
    path: [...parentPath(lines, lineNo, line.keyCol!), line.key],
    from: lineStart + line.keyCol!,
    to: lineStart + keyEnd,
  };
}
