/**
 * JSON values as TOML 1.0, for Codex's `config.toml` and `requirements.toml`. Objects become tables (nested
 * objects `[a.b]` sections, objects inside arrays inline tables), so any JSON document without `null`
 * round-trips; `null` has no TOML spelling and is reported with its JSON pointer instead.
 */

export type TomlValue =
  | string
  | number
  | boolean
  | readonly TomlValue[]
  | { readonly [key: string]: TomlValue };

/** A value TOML cannot express, at a JSON pointer relative to the document. */
export interface TomlProblem {
  readonly pointer: string;
  readonly message: string;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

export function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : JSON.stringify(key);
}

/** JSON string escapes are a subset of TOML basic-string escapes (JSON.stringify never writes `\/`). */
export function tomlString(value: string): string {
  return JSON.stringify(value);
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pointerOf(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Every place in `value` that TOML cannot express. */
export function tomlProblems(value: unknown, pointer = ''): TomlProblem[] {
  if (value === null) return [{ pointer, message: 'null has no TOML form; leave the key out instead' }];
  if (typeof value === 'number' && !Number.isFinite(value))
    return [{ pointer, message: `${value} has no TOML form` }];
  if (Array.isArray(value)) return value.flatMap((item, i) => tomlProblems(item, pointerOf(pointer, i)));
  if (isTable(value))
    return Object.entries(value).flatMap(([k, v]) => tomlProblems(v, pointerOf(pointer, k)));
  if (['string', 'number', 'boolean'].includes(typeof value)) return [];
  return [{ pointer, message: `a ${typeof value} has no TOML form` }];
}

function inlineValue(value: TomlValue): string {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(inlineValue).join(', ')}]`;
  const entries = Object.entries(value as Record<string, TomlValue>);
  return entries.length === 0
    ? '{}'
    : `{ ${entries.map(([k, v]) => `${tomlKey(k)} = ${inlineValue(v)}`).join(', ')} }`;
}

/**
 * A TOML document: scalar and array keys first, then one `[section]` per nested table, depth first, in
 * insertion order. Callers check `tomlProblems` first; this throws on a value TOML cannot express.
 */
export function toToml(document: Readonly<Record<string, TomlValue>>): string {
  const problems = tomlProblems(document);
  if (problems.length > 0)
    throw new Error(`not expressible in TOML: ${problems.map((p) => p.pointer).join(', ')}`);
  const sections: string[] = [];
  const write = (table: Readonly<Record<string, TomlValue>>, path: readonly string[]) => {
    const lines: string[] = [];
    const nested: [string, Record<string, TomlValue>][] = [];
    for (const [key, value] of Object.entries(table)) {
      if (isTable(value)) nested.push([key, value as Record<string, TomlValue>]);
      else lines.push(`${tomlKey(key)} = ${inlineValue(value)}`);
    }
    // A table with only sub-tables needs no header of its own.
    if (path.length > 0 && (lines.length > 0 || nested.length === 0))
      sections.push([`[${path.map(tomlKey).join('.')}]`, ...lines].join('\n'));
    else if (lines.length > 0) sections.push(lines.join('\n'));
    for (const [key, value] of nested) write(value, [...path, key]);
  };
  write(document, []);
  return sections.length > 0 ? `${sections.join('\n\n')}\n` : '';
}
