/**
 * A fresh HOME and TMPDIR per call, removed after it, and tool configuration pinned to files no call can
 * write: nothing one call leaves in a home directory or a user-level config reaches the next.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * User-level configuration pinned in every child (unless the operator's `env.set` names its own file): `/dev/null`
 * is empty, read-only to children and owned by nobody a call could be.
 */
export const PINNED_CONFIG_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  NPM_CONFIG_USERCONFIG: '/dev/null',
  npm_config_userconfig: '/dev/null',
  PIP_CONFIG_FILE: '/dev/null',
  GOENV: 'off',
};

/**
 * The base of every call's scratch directory, private to the server user: under the children's configured
 * `TMPDIR` (`env.set`, a writable emptyDir in a pod with a read-only root filesystem), else the server's.
 */
export function makeScratchBase(dir?: string): string {
  if (dir?.startsWith('/')) {
    try {
      return mkdtempSync(join(dir, 'toolyard-calls-'));
    } catch {}
  }
  return mkdtempSync(join(tmpdir(), 'toolyard-calls-'));
}

export interface CallScratch {
  readonly dir: string;
  /** HOME, TMPDIR (and TMP/TEMP), XDG dirs, and CARGO_HOME when the operator declared none. */
  readonly env: Readonly<Record<string, string>>;
  /** Removes the directory after the call unless the helper's report says it did (`scratch=removed`). */
  remove(report?: string): void;
}

/**
 * One call's scratch directory under `base`. With the confinement helper (`byHelper`) only its name is chosen here:
 * the helper makes it (new and private, or the call fails) and removes it when the call left it empty, so the
 * server spends no file system call on it (docs/benchmarks.md). Without the helper it is made here.
 */
export function createCallScratch(
  base: string,
  declared: Readonly<Record<string, string>>,
  byHelper = false,
): CallScratch {
  // One directory is both HOME and TMPDIR: both are the call's own and thrown away with it.
  const dir = byHelper ? join(base, `call-${randomUUID()}`) : mkdtempSync(join(base, 'call-'));
  const env: Record<string, string> = { HOME: dir, TMPDIR: dir, TMP: dir, TEMP: dir };
  if (declared.XDG_CONFIG_HOME === undefined) env.XDG_CONFIG_HOME = join(dir, '.config');
  if (declared.CARGO_HOME === undefined) env.CARGO_HOME = join(dir, '.cargo');
  return {
    dir,
    env,
    remove: (report) => {
      if (byHelper && report !== undefined && / scratch=removed\b/.test(report)) return;
      removeScratch(dir);
    },
  };
}

/**
 * Removes a call's scratch directory in the background, off the call's path. Every call has its own directory,
 * and nothing of the call is left to write into it (the helper killed every descendant before the call returned).
 */
function removeScratch(dir: string): void {
  void rm(dir, { recursive: true, force: true, maxRetries: 2 }).catch(() => {});
}

/**
 * Cargo has no variable for its user config: it reads `$CARGO_HOME/config.toml`, and a declared CARGO_HOME is a
 * writable cache. This guard remembers those files as they were at start and puts them back after every call.
 */
export class PinnedFiles {
  private readonly files: ReadonlyArray<{ path: string; content: Buffer | undefined }>;

  constructor(paths: readonly string[]) {
    this.files = paths.map((path) => ({ path, content: readOrUndefined(path) }));
  }

  /** Restores any file a call created, changed or removed; returns the paths it restored. */
  restore(): string[] {
    const restored: string[] = [];
    for (const { path, content } of this.files) {
      const now = readOrUndefined(path);
      if (now === undefined && content === undefined) continue;
      if (now !== undefined && content !== undefined && now.equals(content)) continue;
      try {
        if (content === undefined) unlinkSync(path);
        else writeFileSync(path, content);
        restored.push(path);
      } catch {}
    }
    return restored;
  }
}

function readOrUndefined(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** The cargo user-config files to pin for a declared CARGO_HOME. */
export function cargoConfigFiles(declared: Readonly<Record<string, string>>): string[] {
  const home = declared.CARGO_HOME;
  return home?.startsWith('/') ? [join(home, 'config.toml'), join(home, 'config')] : [];
}
