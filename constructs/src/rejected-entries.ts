/**
 * The list entries the schema rejected (a toolchain with a port out of range, a cache with a bad size), by name:
 * the semantic checks run on the rest in the same pass, and a reference to a rejected entry (an acknowledgement
 * naming that toolchain, a toolchain using that cache) is not a second problem — the entry exists, it is wrong.
 */
import { splitPointer } from '../../schema/src/validator.ts';

export type EntryKind = 'toolchains' | 'gateways' | 'caches';

export interface RejectedEntries {
  /** Whether a rejected entry of this kind may have been called `name` (any name, when one had no name). */
  has(kind: EntryKind, name: string): boolean;
  /** Whether any entry of this kind was rejected. */
  any(kind: EntryKind): boolean;
}

export const NO_REJECTED_ENTRIES: RejectedEntries = { has: () => false, any: () => false };

const LISTS: readonly { kind: EntryKind; at: readonly string[] }[] = [
  { kind: 'toolchains', at: ['spec', 'toolchains'] },
  { kind: 'gateways', at: ['spec', 'gateways'] },
  { kind: 'caches', at: ['spec', 'workspace', 'caches'] },
];

/** The named entries among the pointers the accepted part left out of `document`. */
export function rejectedEntries(document: unknown, removed: readonly string[]): RejectedEntries {
  const names = new Map<EntryKind, Set<string>>();
  const unnamed = new Set<EntryKind>();
  for (const pointer of removed) {
    const segments = splitPointer(pointer);
    for (const { kind, at } of LISTS) {
      if (segments.length < at.length + 1 || at.some((segment, i) => segments[i] !== segment)) continue;
      let entry: unknown = document;
      for (const segment of segments.slice(0, at.length + 1))
        entry =
          entry !== null && typeof entry === 'object'
            ? (entry as Record<string, unknown>)[segment]
            : undefined;
      const name =
        entry !== null && typeof entry === 'object' ? (entry as { name?: unknown }).name : undefined;
      if (typeof name === 'string') names.set(kind, (names.get(kind) ?? new Set()).add(name));
      else unnamed.add(kind);
    }
  }
  return {
    has: (kind, name) => unnamed.has(kind) || (names.get(kind)?.has(name) ?? false),
    any: (kind) => unnamed.has(kind) || names.has(kind),
  };
}
