/**
 * The resident spawner: one `toolyard-confine --serve` process, started on the first confined call, that forks a
 * reaper per call (which confines, runs and cleans up exactly as the command line form does) and relays each
 * call's stdout, stderr and report back as frames. A call then costs a fork of a 10 KB static process instead of
 * a fork of the ~70 MB server, plus an exec of the helper (docs/confinement.md, "The resident spawner").
 *
 * Frames both ways: u32 length of what follows (little-endian), a kind byte, the u32 call id, the payload.
 * In: `R` run (u32 argc, u32 envc, then argc + envc NUL-terminated strings: the helper's options and command,
 * then the environment), `K` signal (one byte: SIGTERM or SIGKILL, to the call's reaper). Out: `1`/`2`/`3`
 * stdout/stderr/report bytes, `E` ended (the command's wait status), `X` could not start (errno). Calls run by the
 * spawner are not process groups of the server's: `close()` ends them (and the spawner dies with the server).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { ToolError } from '../errors.ts';
import { noteBytesRead } from '../reclaim.ts';
import { callResult, type RunRequest, type RunResult, TailBuffer, watchCall } from '../runner.ts';

/** What a confined call needs beyond a plain run: the helper's options and the checked cwd's identity. */
export interface ConfinedRunRequest extends RunRequest {
  /** The helper's policy options (helperArgs), without the command. */
  readonly helperArgs: readonly string[];
  /** `<dev>:<ino>` of `cwd` as checked: the reaper enters it only if the path still names that directory. */
  readonly cwdId?: string | undefined;
}

/** The largest run request the spawner accepts (its input buffer is 4 MiB; execve allows less anyway). */
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
/** Payloads below this are copied out of the read buffer, so a kept tail never pins a whole read buffer. */
const COPY_BELOW = 8192;

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(constants.signals).map(([name, n]) => [n, name] as const),
);

/** The frame being read from one spawner: its header so far, then what of its payload is still to come. */
interface FrameState {
  readonly header: Buffer;
  headerLength: number;
  remaining: number | undefined;
  kind: number;
  id: number;
  parts: Buffer[];
}

interface PendingCall {
  readonly stdout: TailBuffer;
  readonly stderr: TailBuffer;
  report: string;
  readonly onEnded: (status: number) => void;
  readonly onFailed: (error: ToolError) => void;
}

export class ConfineSpawner {
  private child: ChildProcess | undefined;
  private pending = new Map<number, PendingCall>();
  private nextId = 1;
  private readonly helper: string;

  constructor(helper: string) {
    this.helper = helper;
  }

  /** Live calls (for tests and metrics). */
  get calls(): number {
    return this.pending.size;
  }

  /** The spawner's pid once started (tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** This process's descriptor of the spawner's request socket (tests: whoever holds it can ask for any call). */
  get requestFd(): number | undefined {
    return (this.child?.stdin as unknown as { _handle?: { fd?: number } } | undefined)?._handle?.fd;
  }

  run(req: ConfinedRunRequest): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const args = [
        ...req.helperArgs,
        '--report-fd',
        '3',
        '--argv0',
        req.argv0,
        '--cwd',
        req.cwd,
        ...(req.cwdId ? ['--cwd-id', req.cwdId] : []),
        '--',
        req.file,
        ...req.args,
      ];
      const env = Object.entries(req.env).map(([name, value]) => `${name}=${value}`);
      const strings = [...args, ...env];
      if (strings.some((s) => s.includes('\0'))) {
        reject(
          new ToolError(
            'TOOLYARD_SPAWN_FAILED',
            `could not start ${req.argv0}: an argument contains a NUL byte`,
          ),
        );
        return;
      }
      const body = Buffer.from(`${strings.join('\0')}\0`);
      if (body.length > MAX_REQUEST_BYTES) {
        reject(
          new ToolError(
            'TOOLYARD_SPAWN_FAILED',
            `could not start ${req.argv0}: its arguments and environment take ${body.length} bytes (at most ${MAX_REQUEST_BYTES})`,
          ),
        );
        return;
      }
      const id = this.nextId++;
      const stdout = new TailBuffer(req.maxOutputBytes);
      const stderr = new TailBuffer(req.maxOutputBytes);
      let timedOut = false;
      let cancelled = false;
      let settled = false;
      let killTimer: NodeJS.Timeout | undefined;

      const cleanup = () => {
        settled = true;
        this.pending.delete(id);
        unwatch();
        clearTimeout(killTimer);
      };
      // SIGTERM to the reaper: it terminates the command and everything it started, and kills after its grace.
      // Should the reaper itself not end by then, SIGKILL it: the spawner then kills its orphans.
      const stop = (why: 'timeout' | 'cancel') => {
        if (settled || killTimer) return;
        if (why === 'timeout') timedOut = true;
        else cancelled = true;
        this.signal(id, constants.signals.SIGTERM);
        killTimer = setTimeout(() => this.signal(id, constants.signals.SIGKILL), req.killGraceMs + 1000);
      };
      const unwatch = watchCall(req, started, stdout, stderr, stop);

      const call: PendingCall = {
        stdout,
        stderr,
        report: '',
        onEnded: (status) => {
          if (settled) return;
          cleanup();
          const termsig = status & 0x7f;
          resolve(
            callResult({
              stdout,
              stderr,
              maxOutputBytes: req.maxOutputBytes,
              exitCode: termsig === 0 ? (status >> 8) & 0xff : null,
              signal: termsig === 0 ? null : (SIGNAL_NAMES.get(termsig) ?? `SIG${termsig}`),
              timedOut,
              cancelled,
              started,
              confineReport: call.report,
            }),
          );
        },
        onFailed: (error) => {
          if (settled) return;
          cleanup();
          reject(error);
        },
      };
      this.pending.set(id, call);
      const head = Buffer.allocUnsafe(17);
      head.writeUInt32LE(13 + body.length, 0);
      head[4] = 0x52; // 'R'
      head.writeUInt32LE(id, 5);
      head.writeUInt32LE(args.length, 9);
      head.writeUInt32LE(env.length, 13);
      this.send(Buffer.concat([head, body]));
    });
  }

  /** Signals a live call's reaper; a call that already ended is left alone. */
  private signal(id: number, signal: number): void {
    if (!this.pending.has(id) || !this.child) return;
    const frame = Buffer.alloc(10);
    frame.writeUInt32LE(6, 0);
    frame[4] = 0x4b; // 'K'
    frame.writeUInt32LE(id, 5);
    frame[9] = signal;
    this.child.stdin?.write(frame);
  }

  private send(frame: Buffer): void {
    // A spawner being closed still finishes its calls (their end frames arrive) but takes no new one.
    const current = this.child;
    const child = current && !current.stdin!.writableEnded ? current : this.start();
    child.stdin!.write(frame);
  }

  private start(): ChildProcess {
    const child = spawn(this.helper, ['--serve'], {
      argv0: 'toolyard-confine',
      stdio: ['pipe', 'pipe', 'inherit'],
      env: {},
      shell: false,
    });
    this.child = child;
    const frame: FrameState = {
      header: Buffer.alloc(9),
      headerLength: 0,
      remaining: undefined,
      kind: 0,
      id: 0,
      parts: [],
    };
    // The spawner never keeps the server alive by itself: every call has its own timer while it runs.
    child.unref();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    child.stdout!.on('data', (chunk: Buffer) => this.receive(frame, chunk));
    child.stdin!.on('error', () => {});
    const gone = (why: string) => {
      if (this.child !== child) return;
      this.child = undefined;
      const calls = [...this.pending.values()];
      this.pending.clear();
      for (const call of calls)
        call.onFailed(
          new ToolError(
            'TOOLYARD_CONFINEMENT_FAILED',
            `the confinement spawner ${why}; the call's processes were killed. Retry the call (a new spawner starts).`,
          ),
        );
    };
    child.on('error', (error) => gone(`could not run: ${error.message}`));
    child.on('exit', (code, signal) => gone(`exited (${code ?? signal})`));
    return child;
  }

  /**
   * Parses frames as bytes arrive. Output payloads are streamed into the call's tail as they come (a frame may span
   * reads): nothing is concatenated, so a flood costs no copies here. Other payloads are small and collected.
   */
  private receive(frame: FrameState, chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (frame.remaining === undefined) {
        // The 9-byte header, possibly split across reads.
        const take = Math.min(9 - frame.headerLength, chunk.length - at);
        chunk.copy(frame.header, frame.headerLength, at, at + take);
        frame.headerLength += take;
        at += take;
        if (frame.headerLength < 9) return;
        frame.headerLength = 0;
        frame.remaining = frame.header.readUInt32LE(0) - 5;
        frame.kind = frame.header[4]!;
        frame.id = frame.header.readUInt32LE(5);
        frame.parts = [];
      }
      const take = Math.min(frame.remaining, chunk.length - at);
      const part = chunk.subarray(at, at + take);
      at += take;
      frame.remaining -= take;
      const call = this.pending.get(frame.id);
      if (call && (frame.kind === 0x31 || frame.kind === 0x32)) {
        if (part.length > 0) {
          noteBytesRead(part.length);
          // Small pieces are copied out, so a kept tail never pins a whole read buffer.
          (frame.kind === 0x31 ? call.stdout : call.stderr).push(
            part.length < COPY_BELOW ? Buffer.from(part) : part,
          );
        }
      } else if (call && part.length > 0) frame.parts.push(Buffer.from(part));
      if (frame.remaining > 0) return;
      frame.remaining = undefined;
      if (call && frame.kind !== 0x31 && frame.kind !== 0x32)
        this.control(call, frame.kind, Buffer.concat(frame.parts));
    }
  }

  private control(call: PendingCall, kind: number, payload: Buffer): void {
    const text = payload.toString('latin1');
    if (kind === 0x33) {
      if (call.report.length < 4096) call.report += text;
    } else if (kind === 0x45) call.onEnded(Number(text));
    else if (kind === 0x58)
      call.onFailed(
        new ToolError(
          'TOOLYARD_SPAWN_FAILED',
          text === '11'
            ? 'could not start the call: the confinement spawner runs at most 4096 calls at once (lower limits.maxConcurrency)'
            : `could not start the call: errno ${text}`,
        ),
      );
  }

  /**
   * Ends the spawner: every live call's reaper gets SIGTERM (and kills after its grace), and the spawner exits once
   * they are gone. Resolves then, or after `waitMs` at most.
   */
  close(waitMs = 0): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    child.stdin?.end();
    if (waitMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
