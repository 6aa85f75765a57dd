/**
 * JSON text exactly as Go's `encoding/json` writes it with `MarshalIndent(v, "", "  ")`, which is what Helm's
 * `toPrettyJson`/`mustToPrettyJson` print. A config that a chart builds with those functions from values then
 * renders byte for byte like the renderer's own (docs/decisions.md, "The broker config as Go writes JSON").
 *
 * Go differs from `JSON.stringify(v, null, 2)` in two ways: object keys are sorted (Go marshals maps, whose
 * keys it sorts by their UTF-8 bytes = by code point), and `<`, `>`, `&`, U+2028 and U+2029 inside strings
 * are written as `\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`. Layout, the other escapes (`\"`, `\\`,
 * `\b`, `\f`, `\n`, `\r`, `\t`, `\u00XX` for other control characters) and integers are the same.
 * Only plain JSON data: no `undefined` in arrays, no non-finite numbers, no functions.
 */

type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** Compares strings by code point, i.e. by their UTF-8 bytes, as Go sorts map keys. */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = left[i]!.codePointAt(0)! - right[i]!.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

function sortedKeys(value: unknown, path: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${path}: ${value} has no JSON form`);
    return value;
  }
  if (Array.isArray(value)) return value.map((item, i) => sortedKeys(item, `${path}[${i}]`));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => compareCodePoints(a, b));
    for (const [key, item] of entries) out[key] = sortedKeys(item, `${path}.${key}`);
    return out;
  }
  throw new Error(`${path}: a ${typeof value} has no JSON form`);
}

const GO_ESCAPED = /[<>&\u2028\u2029]/g;

/** `value` as Go's `json.MarshalIndent(value, "", "  ")` writes it (no trailing newline). */
export function goPrettyJson(value: JsonValue | Readonly<object>): string {
  // The characters Go escapes never occur outside strings in JSON text, so escaping them in the whole text is
  // escaping them in every string.
  return JSON.stringify(sortedKeys(value, '$'), null, 2).replace(
    GO_ESCAPED,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
