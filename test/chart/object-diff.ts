/** Where two renders differ, as `Kind/namespace/name:dotted.path` lines; and "these changed, nothing else". */
import assert from 'node:assert/strict';
import type { KubeObject } from '../../constructs/src/render.ts';
import { identity } from './support.ts';

type Json = Record<string, unknown>;

/** Paths where two object lists differ; objects matched by kind/namespace/name (`:+` added, `:-` removed). */
export function diff(before: readonly KubeObject[], after: readonly KubeObject[]): string[] {
  const out: string[] = [];
  const a = new Map(before.map((o) => [identity(o), o]));
  const b = new Map(after.map((o) => [identity(o), o]));
  for (const id of new Set([...a.keys(), ...b.keys()])) {
    if (!a.has(id)) out.push(`${id}:+`);
    else if (!b.has(id)) out.push(`${id}:-`);
    else walk(a.get(id), b.get(id), `${id}:`, out);
  }
  return out.sort();
}

function walk(x: unknown, y: unknown, path: string, out: string[]): void {
  if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null) {
    if (Array.isArray(x) !== Array.isArray(y)) {
      out.push(path);
      return;
    }
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    for (const k of keys) {
      const sub = Array.isArray(x) ? `${path}[${k}]` : `${path}${path.endsWith(':') ? '' : '.'}${k}`;
      walk((x as Json)[k], (y as Json)[k], sub, out);
    }
    return;
  }
  if (x !== y) out.push(path);
}

/** Something changed, and every change matches `allowed`. */
export function assertOnly(changes: readonly string[], allowed: RegExp, what: string): void {
  assert.ok(changes.length > 0, `${what}: nothing changed`);
  const unexpected = changes.filter((c) => !allowed.test(c));
  assert.deepEqual(unexpected, [], `${what}: unexpected changes`);
}

export const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
