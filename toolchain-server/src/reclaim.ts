/**
 * Keeps memory flat while children print more than we keep. Every pipe read allocates a fresh off-heap buffer;
 * the tail buffer drops most of them at once, but V8 only collects them when its external-memory budget
 * (about 64 MB) is exhausted, so a child printing hundreds of megabytes would grow RSS by that much. A cheap
 * young-generation collection every few megabytes read returns those buffers promptly (and measured faster,
 * since the allocator reuses warm pages).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options?: {
  type?: 'minor' | 'major';
  execution?: 'sync' | 'async';
  flavor?: 'regular' | 'last-resort';
}) => void;

const RECLAIM_EVERY_BYTES = 4 * 1024 * 1024;
let gc: GcFunction | null | undefined;
let sinceLast = 0;

function loadGc(): GcFunction | null {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as GcFunction;
  try {
    setFlagsFromString('--expose-gc');
    const fn = runInNewContext('gc') as unknown;
    return typeof fn === 'function' ? (fn as GcFunction) : null;
  } catch {
    return null;
  }
}

/** Accounts for `bytes` read from a child pipe; runs a minor GC once enough garbage can have piled up. */
export function noteBytesRead(bytes: number): void {
  sinceLast += bytes;
  if (sinceLast < RECLAIM_EVERY_BYTES) return;
  sinceLast = 0;
  if (gc === undefined) gc = loadGc();
  gc?.({ type: 'minor', execution: 'sync' });
}

/** A full collection, for moments when the server is idle (after start-up): returns start-up garbage. */
export function reclaimIdleMemory(): void {
  if (gc === undefined) gc = loadGc();
  gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
