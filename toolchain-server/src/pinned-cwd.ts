/**
 * The working directory a call was checked with is the one it runs in. The checked real path is opened at
 * check time (no symlink followed at the last step) and the child is started in `/proc/self/fd/<n>`: the
 * kernel resolves that to the opened directory itself, so no rename, symlink swap or `rmdir`+`mkdir` done
 * while the call waits in the queue can move it elsewhere. Before the call runs, `unchanged()` also tells
 * whether the checked path still names that directory, so its relative operands are re-checked against the
 * same place they will be opened from.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readlinkSync, statSync } from 'node:fs';
import { ToolError } from './errors.ts';

/** Whether `/proc/self/fd` exists (every Linux pod has /proc; without it the checked path is used as is). */
const HAS_PROC_FD = existsSync('/proc/self/fd');

/**
 * The stdio descriptors a confined child gets (0-2 and the helper's report pipe, 3): libuv dup2s onto them in the
 * child before it changes directory, so a directory descriptor below this would be replaced first.
 */
const LOWEST_SAFE_FD = 4;

export class PinnedCwd {
  /** The real path the policy checked. */
  readonly path: string;
  /** What to pass to spawn as cwd: the opened directory through /proc, or the checked path without /proc. */
  readonly spawnPath: string;
  /** `<dev>:<ino>` of the opened directory: the confinement helper enters the path only if it still names it. */
  readonly id: string;
  private readonly fd: number | undefined;
  private readonly dev: bigint;
  private readonly ino: bigint;

  private constructor(path: string, fd: number | undefined, dev: bigint, ino: bigint) {
    this.path = path;
    this.fd = fd;
    this.dev = dev;
    this.ino = ino;
    this.id = `${dev}:${ino}`;
    this.spawnPath = fd === undefined ? path : `/proc/self/fd/${fd}`;
  }

  /**
   * Opens `real` (a real path inside the roots, as `WorkspaceRoots.resolveCwd` returned it). Throws
   * TOOLYARD_CWD_NOT_FOUND when it was replaced between the check and the open.
   */
  static open(real: string): PinnedCwd {
    if (!HAS_PROC_FD) {
      const s = statSync(real, { bigint: true });
      return new PinnedCwd(real, undefined, s.dev, s.ino);
    }
    const held: number[] = [];
    let fd: number;
    try {
      do {
        fd = openSync(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
        held.push(fd);
      } while (fd < LOWEST_SAFE_FD);
    } catch {
      for (const h of held) closeSync(h);
      throw cwdChanged(real);
    }
    for (const h of held) if (h !== fd) closeSync(h);
    // realpath, then open: a component swapped in between would show here as another directory.
    if (readlinkSync(`/proc/self/fd/${fd}`) !== real) {
      closeSync(fd);
      throw cwdChanged(real);
    }
    const s = fstatSync(fd, { bigint: true });
    return new PinnedCwd(real, fd, s.dev, s.ino);
  }

  /** Whether the checked path still names the opened directory. */
  unchanged(): boolean {
    try {
      const s = statSync(this.path, { bigint: true });
      return s.dev === this.dev && s.ino === this.ino;
    } catch {
      return false;
    }
  }

  /** Throws TOOLYARD_CWD_NOT_FOUND unless the checked path still names the opened directory. */
  assertUnchanged(): void {
    if (!this.unchanged()) throw cwdChanged(this.path);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }
}

/** The error for a working directory that was moved or replaced after it was checked (nothing ran). */
export function cwdChanged(path: string): ToolError {
  return new ToolError(
    'TOOLYARD_CWD_NOT_FOUND',
    `the working directory ${JSON.stringify(path)} was moved or replaced after it was checked; nothing ran.`,
    { allowed: 'retry the call once whatever renames or relinks that directory has finished' },
  );
}
