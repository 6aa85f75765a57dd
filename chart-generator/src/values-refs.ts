/** How generated templates name values: camelCase keys, `.Values` references, small template literals. */
import { goString } from './template-yaml.ts';

/** camelCase values key of a DNS-label name: `toolchain-go-python` → `toolchainGoPython`. */
export function valuesKey(name: string): string {
  const key = name
    .replace(/[-_.]+([a-z0-9])/g, (_, c: string) => c.toUpperCase())
    .replace(/[^A-Za-z0-9]/g, '');
  return /^[0-9]/.test(key) ? `_${key}` : key;
}

/** A reference into .Values: `$.Values.a.b`, or `(index $.Values "a" "b")` for keys that are not identifiers. */
export function valuesRef(path: readonly string[]): string {
  if (path.every((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))) return ['$.Values', ...path].join('.');
  return `(index $.Values ${path.map(goString).join(' ')})`;
}

export function dictLiteral(map: Readonly<Record<string, string>>): string {
  const args = Object.entries(map).flatMap(([k, v]) => [goString(k), goString(v)]);
  return args.length === 0 ? '(dict)' : `(dict ${args.join(' ')})`;
}

export function pad(indent: number): string {
  return ' '.repeat(indent);
}

export function sameMap(a: unknown, b: Readonly<Record<string, string>>): boolean {
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return false;
  const ak = Object.keys(a);
  return ak.length === Object.keys(b).length && ak.every((k) => (a as Record<string, unknown>)[k] === b[k]);
}

/** `a` without the entries that `common` has with the same value. */
export function without(a: Readonly<Record<string, string>>, common: Readonly<Record<string, string>>) {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(a)) if (common[k] !== v) out[k] = v;
  return out;
}
