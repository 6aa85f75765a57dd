/**
 * How the tests build what they need from pinned Go modules (the test cluster's binaries, agent-sandbox's
 * controller, Jaeger, the Grafana dashboard validator): static, trimmed, stripped, with the machine's own Go,
 * and into a cache entry that is filled atomically, so a build that fails or is interrupted never counts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The environment of every Go build here. GOTOOLCHAIN=local: the machine's Go builds it, never a toolchain
 * fetched because a go.mod asks for one; -mod=readonly: go.sum is the lock, a missing entry is an error rather
 * than a silent update; CGO off: the binaries run in any root filesystem.
 */
export function goBuildEnv(): NodeJS.ProcessEnv {
  return { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly -buildvcs=false' };
}

export interface GoBuild {
  /** The module directory the build runs in (its go.mod pins every dependency). */
  readonly moduleDir: string;
  /** `-o`: a directory ending in `/` (one binary per package, named after it) or a file. */
  readonly output: string;
  readonly packages: readonly string[];
  /** Linker flags besides `-s -w` (e.g. the version stamps Kubernetes' binaries print). */
  readonly ldflags?: string;
  /** The `go` to run; `go` on PATH unless given. */
  readonly go?: string;
}

/** Runs `go build`, its output going to this process's stderr and stdout. */
export function goBuild(build: GoBuild): void {
  execFileSync(
    build.go ?? 'go',
    [
      'build',
      '-trimpath',
      '-ldflags',
      `-s -w ${build.ldflags ?? ''}`.trim(),
      '-o',
      build.output,
      ...build.packages,
    ],
    { cwd: build.moduleDir, env: goBuildEnv(), stdio: ['ignore', 'inherit', 'inherit'] },
  );
}

/**
 * Fills the cache directory `dir` unless `complete(dir)` already says it is: `fill` writes into a staging
 * directory beside it, which is then renamed into place in one step. If another process renamed its own
 * (identical) build there first, that one is kept; a failing `fill` leaves nothing behind.
 */
export function fillCacheDir(
  dir: string,
  complete: (dir: string) => boolean,
  fill: (staging: string) => void,
): void {
  if (complete(dir)) return;
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.staging-`);
  try {
    fill(staging);
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!complete(dir)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** `complete` for an entry whose last step writes `marker` (a binary, or a `.complete` file). */
export function hasFile(marker: string): (dir: string) => boolean {
  return (dir) => existsSync(`${dir}/${marker}`);
}
