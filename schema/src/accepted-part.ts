/**
 * The part of a document the schema accepts, so that semantic checks can run on it in the same pass as the
 * schema errors are reported: a spec with a misspelt field and a port clash reports both at once.
 *
 * What the schema rejects is left out, in units that cannot make the rest look wrong: an unknown field is
 * dropped on its own (it means nothing); any other problem drops the innermost list entry that is an object
 * (a whole backend, toolchain, gateway or secretEnv entry), so that no default fills in for a rejected value
 * and clashes with a neighbour; outside such entries the rejected value itself (and, if that leaves a
 * required field missing, its parent, and so on). When the document's root would have to go, nothing is
 * accepted. Isomorphic.
 */
import type { ErrorObject } from 'ajv';
import type { ToolyardAgent } from './types.generated.ts';
import { joinPointer, schemaErrors, splitPointer } from './validator.ts';

export interface AcceptedPart {
  /** The document without what the schema rejected: valid against the schema. */
  readonly agent: ToolyardAgent;
  /** Pointers (into the original document) of what was left out. */
  readonly removed: readonly string[];
  /** A pointer into `agent` as a pointer into the original document (list entries may have moved up). */
  originalPointer(pointer: string): string;
}

/** New index → original index, per array (keyed by the array's pointer after the removal). */
type IndexMap = Map<string, number[]>;

const MAX_ROUNDS = 16;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function valueAt(root: unknown, segments: readonly string[]): unknown {
  let current = root;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function pointerOf(segments: readonly string[]): string {
  return segments.reduce<string>((base, segment) => joinPointer(base, segment), '');
}

/** What to leave out for one schema error (a pointer into the current document; '' for the root). */
function removalFor(error: ErrorObject, document: unknown): string {
  if (error.keyword === 'additionalProperties') {
    return joinPointer(error.instancePath, String(error.params['additionalProperty']));
  }
  // A map's key that breaks its rule (a label key with two slashes): the entry goes, not the map.
  if (error.propertyName !== undefined) return joinPointer(error.instancePath, error.propertyName);
  if (error.keyword === 'propertyNames') {
    return joinPointer(error.instancePath, String(error.params['propertyName']));
  }
  const segments = splitPointer(error.instancePath);
  for (let i = segments.length - 1; i >= 0; i--) {
    const container = valueAt(document, segments.slice(0, i));
    if (Array.isArray(container) && isObject(container[Number(segments[i])])) {
      return pointerOf(segments.slice(0, i + 1));
    }
  }
  return error.instancePath;
}

function translate(pointer: string, map: IndexMap): string {
  const segments = splitPointer(pointer);
  const out: string[] = [];
  for (const [i, segment] of segments.entries()) {
    const original = map.get(pointerOf(segments.slice(0, i)))?.[Number(segment)];
    out.push(original === undefined ? segment : String(original));
  }
  return pointerOf(out);
}

/** Removes the targets from `document` in place; returns how the arrays' indexes moved. */
function remove(document: unknown, targets: ReadonlySet<string>): IndexMap {
  const removedIndexes = new Map<string, { array: unknown[]; indexes: Set<number> }>();
  const objectKeys: { object: Record<string, unknown>; key: string }[] = [];
  for (const target of targets) {
    const segments = splitPointer(target);
    const parent = valueAt(document, segments.slice(0, -1));
    const last = segments.at(-1)!;
    if (Array.isArray(parent)) {
      const key = pointerOf(segments.slice(0, -1));
      const entry = removedIndexes.get(key) ?? { array: parent, indexes: new Set<number>() };
      entry.indexes.add(Number(last));
      removedIndexes.set(key, entry);
    } else if (isObject(parent)) objectKeys.push({ object: parent, key: last });
  }
  for (const { object, key } of objectKeys) delete object[key];
  // Pointers of arrays after this removal: outer arrays' entries may have moved up.
  const moved = new Map<string, number[]>();
  for (const [pointer, { indexes }] of [...removedIndexes].sort((a, b) => a[0].length - b[0].length)) {
    const segments = splitPointer(pointer);
    const after: string[] = [];
    let gone = false;
    for (const [i, segment] of segments.entries()) {
      const outer = removedIndexes.get(pointerOf(segments.slice(0, i)));
      if (outer?.indexes.has(Number(segment))) gone = true;
      const newIndex = outer
        ? [...outer.array.keys()].filter((j) => !outer.indexes.has(j)).indexOf(Number(segment))
        : -1;
      after.push(outer ? String(newIndex) : segment);
    }
    const length = removedIndexes.get(pointer)!.array.length;
    if (!gone) {
      moved.set(
        pointerOf(after),
        [...Array(length).keys()].filter((j) => !indexes.has(j)),
      );
    }
  }
  for (const { array, indexes } of removedIndexes.values()) {
    const kept = array.filter((_, j) => !indexes.has(j));
    array.splice(0, array.length, ...kept);
  }
  return moved;
}

/** The accepted part of a document that failed the schema with `errors`, or undefined if nothing is left. */
export function acceptedPart(document: unknown, errors: readonly ErrorObject[]): AcceptedPart | undefined {
  const current: unknown = structuredClone(document);
  const rounds: IndexMap[] = [];
  const removed: string[] = [];
  const originalPointer = (pointer: string) => rounds.reduceRight((p, map) => translate(p, map), pointer);
  let pending = errors;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const targets = new Set<string>();
    for (const error of pending) {
      // An if/then/else failure repeats what the branch reported.
      if (error.keyword === 'if') continue;
      const target = removalFor(error, current);
      if (target === '') return undefined;
      targets.add(target);
    }
    if (targets.size === 0) return undefined;
    for (const target of targets) removed.push(originalPointer(target));
    rounds.push(remove(current, targets));
    pending = schemaErrors(current);
    if (pending.length === 0) {
      return { agent: current as ToolyardAgent, removed, originalPointer };
    }
  }
  return undefined;
}
