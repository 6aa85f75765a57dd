/**
 * Runs one child process: argv only (never a shell), its own process group, a scrubbed environment, a timeout
 * that kills the whole group (SIGTERM, then SIGKILL after a grace period), per-stream output caps that keep
 * the tail in bounded memory, cancellation through an AbortSignal, and periodic progress callbacks.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { ToolError } from './errors.ts';
import { noteBytesRead } from './reclaim.ts';
import { tailWithinSentBytes } from './sent-size.ts';

/**
 * Keeps the last `cap` bytes written to it. Small outputs stay as the chunks received; once the cap is
 * exceeded the tail moves into one ring buffer of `cap` bytes and every later chunk is copied in and released
 * at once, so a flood produces only short-lived garbage and memory stays at `cap` per stream.
 */
export class TailBuffer {
  readonly cap: number;
  private chunks: Buffer[] = [];
  private held = 0;
  private ring: Buffer | undefined;
  private ringPos = 0;
  /** Every byte ever written. */
  total = 0;

  constructor(cap: number) {
    this.cap = cap;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.ring) {
      this.writeRing(chunk);
      return;
    }
    this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.held > this.cap) {
      const all = Buffer.concat(this.chunks, this.held);
      this.chunks = [];
      this.ring = Buffer.allocUnsafe(this.cap);
      this.ringPos = 0;
      this.writeRing(all.subarray(all.length - this.cap));
      this.held = this.cap;
    }
  }

  private writeRing(chunk: Buffer): void {
    const ring = this.ring!;
    if (chunk.length >= this.cap) {
      chunk.copy(ring, 0, chunk.length - this.cap);
      this.ringPos = 0;
      return;
    }
    const first = Math.min(chunk.length, this.cap - this.ringPos);
    chunk.copy(ring, this.ringPos, 0, first);
    if (first < chunk.length) chunk.copy(ring, 0, first);
    this.ringPos = (this.ringPos + chunk.length) % this.cap;
  }

  get dropped(): number {
    return this.total - this.held;
  }

  /** The kept tail as UTF-8, skipping a partial character at the cut. */
  text(): string {
    let buffer = this.ring
      ? Buffer.concat([this.ring.subarray(this.ringPos), this.ring.subarray(0, this.ringPos)], this.cap)
      : Buffer.concat(this.chunks, this.held);
    if (this.dropped > 0) {
      let start = 0;
      while (start < buffer.length && start < 4 && (buffer[start]! & 0xc0) === 0x80) start++;
      buffer = buffer.subarray(start);
    }
    return buffer.toString('utf8');
  }
}

export interface RunRequest {
  /** Absolute path of the binary, resolved at start. */
  readonly file: string;
  /** The name shown as argv[0]. */
  readonly argv0: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** Delay between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly progressIntervalMs?: number | undefined;
  readonly onProgress?: ((progress: RunProgress) => void) | undefined;
  /** Called with the process group id once spawned, and with undefined once it is gone. */
  readonly onGroup?: ((pgid: number | undefined) => void) | undefined;
}

export interface RunProgress {
  readonly elapsedMs: number;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
}

export interface RunResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly stdoutDroppedBytes: number;
  readonly stderrDroppedBytes: number;
  readonly truncated: boolean;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  readonly durationMs: number;
  /** What the confinement helper wrote on its report fd (empty when not confined: runCommand). */
  readonly confineReport: string;
}

/** What a finished call produced, before the cap for what is sent is applied. */
export interface CallOutput {
  readonly stdout: TailBuffer;
  readonly stderr: TailBuffer;
  readonly maxOutputBytes: number;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  /** performance.now() when the call started. */
  readonly started: number;
  readonly confineReport: string;
}

/** The result of a call: each kept tail, JSON-escaped, fits maxOutputBytes (sent-size.ts). */
export function callResult(out: CallOutput): RunResult {
  const sentStdout = tailWithinSentBytes(out.stdout.text(), out.maxOutputBytes);
  const sentStderr = tailWithinSentBytes(out.stderr.text(), out.maxOutputBytes);
  const stdoutDropped = out.stdout.dropped + sentStdout.droppedBytes;
  const stderrDropped = out.stderr.dropped + sentStderr.droppedBytes;
  return {
    exitCode: out.exitCode,
    signal: out.signal,
    stdout: sentStdout.text,
    stderr: sentStderr.text,
    stdoutBytes: out.stdout.total,
    stderrBytes: out.stderr.total,
    stdoutDroppedBytes: stdoutDropped,
    stderrDroppedBytes: stderrDropped,
    truncated: stdoutDropped > 0 || stderrDropped > 0,
    timedOut: out.timedOut,
    cancelled: out.cancelled,
    durationMs: Math.round((performance.now() - out.started) * 1000) / 1000,
    confineReport: out.confineReport,
  };
}

/**
 * The clock of one running call: `stop('timeout')` after `timeoutMs`, `stop('cancel')` when the request's signal
 * aborts, progress every `progressIntervalMs`. Returns the function that ends all three.
 */
export function watchCall(
  req: RunRequest,
  started: number,
  stdout: TailBuffer,
  stderr: TailBuffer,
  stop: (why: 'timeout' | 'cancel') => void,
): () => void {
  const timeout = setTimeout(() => stop('timeout'), req.timeoutMs);
  const onAbort = () => stop('cancel');
  if (req.signal?.aborted) queueMicrotask(onAbort);
  else req.signal?.addEventListener('abort', onAbort, { once: true });
  const progress =
    req.onProgress && req.progressIntervalMs
      ? setInterval(() => {
          req.onProgress?.({
            elapsedMs: Math.round(performance.now() - started),
            stdoutBytes: stdout.total,
            stderrBytes: stderr.total,
          });
        }, req.progressIntervalMs)
      : undefined;
  return () => {
    clearTimeout(timeout);
    clearInterval(progress);
    req.signal?.removeEventListener('abort', onAbort);
  };
}

/** Signals a whole process group, ignoring a group that is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM to the group now, SIGKILL after `graceMs` unless `isDone()` by then. Returns a function that cancels
 * the pending SIGKILL.
 */
export function terminateGroup(pgid: number, graceMs: number, isDone: () => boolean): () => void {
  signalGroup(pgid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (!isDone()) signalGroup(pgid, 'SIGKILL');
  }, graceMs);
  return () => clearTimeout(timer);
}

/** How long to wait for the pipes to close after the child exited (a grandchild may hold them). */
const PIPE_DRAIN_MS = 500;

export function runCommand(req: RunRequest): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let child: ChildProcess;
    try {
      child = spawn(req.file, req.args as string[], {
        argv0: req.argv0,
        cwd: req.cwd,
        env: req.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
        shell: false,
        windowsHide: true,
      });
    } catch (error) {
      reject(
        new ToolError('TOOLYARD_SPAWN_FAILED', `could not start ${req.argv0}: ${(error as Error).message}`),
      );
      return;
    }
    const pgid = child.pid;
    const stdout = new TailBuffer(req.maxOutputBytes);
    const stderr = new TailBuffer(req.maxOutputBytes);
    let timedOut = false;
    let cancelled = false;
    let exited = false;
    let settled = false;
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let cancelKill: (() => void) | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    if (pgid !== undefined) req.onGroup?.(pgid);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      noteBytesRead(chunk.length);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      noteBytesRead(chunk.length);
    });

    const stop = (why: 'timeout' | 'cancel') => {
      if (exited || pgid === undefined || cancelKill) return;
      if (why === 'timeout') timedOut = true;
      else cancelled = true;
      cancelKill = terminateGroup(pgid, req.killGraceMs, () => settled);
    };

    const unwatch = watchCall(req, started, stdout, stderr, stop);

    const finish = () => {
      if (settled) return;
      settled = true;
      unwatch();
      clearTimeout(drainTimer);
      cancelKill?.();
      // Nothing of the group may outlive the call: kill stragglers that are still in it.
      if (pgid !== undefined) signalGroup(pgid, 'SIGKILL');
      req.onGroup?.(undefined);
      child.stdout!.destroy();
      child.stderr!.destroy();
      resolve(
        callResult({
          stdout,
          stderr,
          maxOutputBytes: req.maxOutputBytes,
          exitCode,
          signal: exitSignal,
          timedOut,
          cancelled,
          started,
          confineReport: '',
        }),
      );
    };

    child.on('error', (error) => {
      if (settled) return;
      if (pgid === undefined) {
        settled = true;
        unwatch();
        reject(new ToolError('TOOLYARD_SPAWN_FAILED', `could not start ${req.argv0}: ${error.message}`));
      }
    });
    child.on('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      // Stragglers holding the pipes open must not keep the call (or the pipes) alive.
      if (pgid !== undefined) signalGroup(pgid, 'SIGKILL');
      drainTimer = setTimeout(finish, PIPE_DRAIN_MS);
    });
    child.on('close', finish);
  });
}

/** Tracks live process groups so shutdown can kill every one of them. */
export class ProcessGroups {
  private readonly groups = new Set<number>();

  track(previous: number | undefined, next: number | undefined): void {
    if (previous !== undefined) this.groups.delete(previous);
    if (next !== undefined) this.groups.add(next);
  }

  get size(): number {
    return this.groups.size;
  }

  /** SIGTERM every group, then SIGKILL after `graceMs`; resolves once the kill was sent. */
  async killAll(graceMs: number): Promise<void> {
    for (const pgid of this.groups) signalGroup(pgid, 'SIGTERM');
    if (this.groups.size === 0) return;
    await new Promise((r) => setTimeout(r, graceMs));
    for (const pgid of this.groups) signalGroup(pgid, 'SIGKILL');
  }
}
