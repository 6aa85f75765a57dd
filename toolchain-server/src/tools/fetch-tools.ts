/**
 * Structured fetch tools: each fills a package cache from the project's lockfile and runs no project code, so
 * under `egressProxy.phase: fetch` their calls alone get the broker proxy and write `download` caches
 * (docs/confinement.md, "Caches and fetch phase"). Why each runs no project code:
 * - `cargo fetch` resolves and downloads crates; it compiles nothing and runs no build script. It does ask
 *   `rustc -vV` for the host target, and a project's `.cargo/config.toml` may name `build.rustc` or a rustc
 *   wrapper in the workspace: `RUSTC`, `RUSTC_WRAPPER` and `RUSTC_WORKSPACE_WRAPPER` are pinned (environment
 *   beats configuration in cargo).
 * - `go mod download` downloads and verifies module zips against go.sum; it builds nothing and runs no
 *   `go:generate`. `GOTOOLCHAIN=local`: a go.mod `toolchain` line cannot make go 1.21+ fetch and run another go.
 * - `npm ci --ignore-scripts` installs exactly the lockfile and runs no lifecycle script (neither the
 *   project's nor its dependencies'); lockfiles with git dependencies are refused (npm clones and may prepare
 *   those).
 * - `pip download --only-binary=:all:` takes wheels only: an sdist would run its `setup.py` (or build backend)
 *   to read its metadata. The requirements file must be pinned `name==version` lines (optionally with
 *   markers and `--hash`): an option line (`--no-binary`, `-e`, `-r`) or a path or URL is refused, since each
 *   could bring a source tree whose build backend pip would run.
 * - `uv sync --no-install-project --no-install-workspace --no-install-local --no-build` (`--frozen` with a
 *   uv.lock) installs the project's locked dependencies, wheels only, into a throwaway environment in the call's
 *   scratch directory: no sdist is built (`--no-build` also makes resolution without a lockfile run no build
 *   backend), the project and its workspace members and path dependencies are not installed (that would build
 *   them), and the interpreter is the image's own (`UV_PYTHON`, the python3 found at start): never the
 *   workspace's `.venv/bin/python` or whatever a `.python-version` names, which uv would run. No interpreter
 *   download, no keyring program. Lockfiles with git sources are refused (uv would clone and build them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { ToolPreset } from '../config.ts';
import { ToolError } from '../errors.ts';
import {
  type CommonInput,
  commonInputShape,
  type ExecPlan,
  type ExecTool,
  execTool,
  type PlanContext,
  workspacePath,
} from './types.ts';

/** Refuses a uv.lock that takes a package from git (uv clones it and would build it). */
function assertUvLockRegistryOnly(text: string): void {
  const git = /^source\s*=\s*\{\s*git\s*=\s*"([^"]*)"/m.exec(text);
  if (git)
    throw new ToolError(
      'TOOLYARD_POLICY_DENIED',
      `uv.lock takes a package from git (${git[1]}): git sources are cloned and built, so uv_sync_fetch refuses them.`,
      {
        rule: 'fetch-runs-no-code',
        allowed: 'registry (wheel) dependencies; path dependencies are not installed',
      },
    );
}

/** The directory of a `pip` cache that `pip_download` fills and offline installs read (`PIP_FIND_LINKS`). */
export const PIP_WHEELHOUSE = 'wheelhouse';

/** A fetch tool: one binary, and `fetch: true` (its calls alone get the proxy under `phase: fetch`). */
function fetchTool<I extends CommonInput>(
  group: ToolPreset,
  name: string,
  title: string,
  description: string,
  input: z.ZodType<I>,
  binary: string,
  plan: (input: I, ctx: PlanContext) => ExecPlan,
): ExecTool {
  return execTool(group, name, title, description, input, [binary], plan, { fetch: true });
}

const onlyCommon = z.object({ ...commonInputShape }).strict();

/** Refuses a package-lock.json that installs anything by git (npm would clone it and may run its prepare). */
function assertNpmLockRegistryOnly(cwd: string): void {
  let lock: { packages?: Record<string, { resolved?: unknown }> };
  try {
    lock = JSON.parse(readFileSync(join(cwd, 'package-lock.json'), 'utf8'));
  } catch {
    throw new ToolError(
      'TOOLYARD_INVALID_ARGUMENTS',
      `npm_ci_fetch needs a readable package-lock.json in ${cwd}.`,
      {
        allowed: 'a cwd with package.json and package-lock.json (npm install --package-lock-only writes one)',
      },
    );
  }
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    const resolved = typeof entry?.resolved === 'string' ? entry.resolved : '';
    if (/^(git\+|git:|github:|gitlab:|bitbucket:|ssh:)/.test(resolved))
      throw new ToolError(
        'TOOLYARD_POLICY_DENIED',
        `package-lock.json installs ${path || 'the project'} from ${resolved}: git dependencies are cloned and prepared (their scripts run), so npm_ci_fetch refuses them.`,
        { rule: 'fetch-runs-no-code', allowed: 'registry and tarball dependencies only' },
      );
  }
}

/** One pinned requirement: `name[extras]==version`, an optional marker, optional `--hash=alg:hex`. */
const PINNED =
  /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,\s-]*\])?\s*===?\s*[A-Za-z0-9.+!_-]+(\s*;[^#]*?)?(\s+--hash[=\s][A-Za-z0-9]+:[0-9a-fA-F]+)*$/;

/** Refuses a requirements file with anything but pinned requirements (see the module comment). */
export function assertPinnedRequirements(text: string, file: string): void {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '' || PINNED.test(line)) return;
    throw new ToolError(
      'TOOLYARD_POLICY_DENIED',
      `${file} line ${i + 1} is not a pinned requirement: ${JSON.stringify(line.slice(0, 200))}. pip_download takes only name==version lines (with markers and --hash), since an option, path or URL could make pip build a source tree.`,
      {
        rule: 'fetch-runs-no-code',
        allowed:
          'lines such as "requests==2.31.0 --hash=sha256:…" (pip-compile --generate-hashes writes them)',
      },
    );
  });
}

export const FETCH_TOOLS: Readonly<Partial<Record<ToolPreset, readonly ExecTool[]>>> = {
  cargo: [
    fetchTool(
      'cargo',
      'cargo_fetch',
      'cargo fetch',
      'Downloads every dependency of the Rust workspace into the cargo cache (--locked when Cargo.lock exists); compiles nothing and runs no build script. The only tool with network access when the toolchain fetches in a phase.',
      onlyCommon,
      'cargo',
      (_i, ctx) => ({
        command: 'cargo',
        args: ['fetch', '--color=never', ...(existsSync(join(ctx.cwd, 'Cargo.lock')) ? ['--locked'] : [])],
        env: { RUSTC: 'rustc', RUSTC_WRAPPER: '', RUSTC_WORKSPACE_WRAPPER: '' },
      }),
    ),
  ],
  go: [
    fetchTool(
      'go',
      'go_mod_download',
      'go mod download',
      'Downloads the modules go.mod requires into the module cache, verified against go.sum; builds nothing. The only tool with network access when the toolchain fetches in a phase.',
      onlyCommon,
      'go',
      () => ({ command: 'go', args: ['mod', 'download', '-x'], env: { GOTOOLCHAIN: 'local' } }),
    ),
  ],
  node: [
    fetchTool(
      'node',
      'npm_ci_fetch',
      'npm ci --ignore-scripts',
      'Installs exactly package-lock.json into node_modules and the npm cache without running any script (no install, prepare or postinstall). The only tool with network access when the toolchain fetches in a phase.',
      onlyCommon,
      'npm',
      (_i, ctx) => {
        assertNpmLockRegistryOnly(ctx.cwd);
        return {
          command: 'npm',
          args: ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier'],
        };
      },
    ),
  ],
  python: [
    fetchTool(
      'python',
      'pip_download',
      'pip download (wheels only)',
      `Downloads the wheels of a pinned requirements file into the pip cache's ${PIP_WHEELHOUSE}/ (--only-binary=:all:: no sdist, so no setup.py runs); offline installs then find them there. The only tool with network access when the toolchain fetches in a phase.`,
      z
        .object({
          requirements: z
            .string()
            .min(1)
            .max(4096)
            .optional()
            .describe('Pinned requirements file relative to cwd. Default: requirements.txt.'),
          ...commonInputShape,
        })
        .strict(),
      'pip',
      (i, ctx) => {
        const cache = ctx.caches.find((c) => c.ecosystem === 'pip');
        if (!cache)
          throw new ToolError(
            'TOOLYARD_INVALID_ARGUMENTS',
            'pip_download needs a pip cache and this toolchain has none.',
            {
              allowed: 'a toolchain that uses a cache of ecosystem pip (spec.toolchains[].caches)',
            },
          );
        const file = workspacePath(i.requirements ?? 'requirements.txt', 'requirements', ctx, 'file');
        let text: string;
        try {
          text = readFileSync(resolve(ctx.cwd, file), 'utf8');
        } catch (error) {
          throw new ToolError(
            'TOOLYARD_INVALID_ARGUMENTS',
            `cannot read ${file}: ${(error as Error).message}.`,
          );
        }
        assertPinnedRequirements(text, file);
        return {
          command: 'pip',
          args: [
            'download',
            '--only-binary=:all:',
            '--disable-pip-version-check',
            '--no-input',
            '--progress-bar',
            'off',
            '--requirement',
            file,
          ],
          // `--dest` through pip's own variable: the cache lies outside the workspace roots argv paths must be in.
          env: { PIP_DEST: join(cache.path, PIP_WHEELHOUSE) },
        };
      },
    ),
    execTool(
      'python',
      'uv_sync_fetch',
      'uv sync (dependencies, wheels only)',
      "Downloads the project's locked dependencies (uv.lock; resolved and written when missing) into the uv cache: wheels only, never a build, and not the project itself, in a throwaway environment with the image's Python. Later calls install them offline with uv sync --frozen. The only tool with network access when the toolchain fetches in a phase.",
      onlyCommon,
      [],
      (_i, ctx) => {
        if (!ctx.caches.some((c) => c.ecosystem === 'uv'))
          throw new ToolError(
            'TOOLYARD_INVALID_ARGUMENTS',
            'uv_sync_fetch needs a uv cache and this toolchain has none.',
            { allowed: 'a toolchain that uses a cache of ecosystem uv (spec.toolchains[].caches)' },
          );
        if (!existsSync(join(ctx.cwd, 'pyproject.toml')))
          throw new ToolError(
            'TOOLYARD_INVALID_ARGUMENTS',
            `uv_sync_fetch needs a pyproject.toml in ${ctx.cwd}.`,
            {
              allowed: 'the cwd of a uv project (pyproject.toml, ideally with uv.lock)',
            },
          );
        const lock = join(ctx.cwd, 'uv.lock');
        if (existsSync(lock)) assertUvLockRegistryOnly(readFileSync(lock, 'utf8'));
        const python = ctx.pathOf('python3');
        if (!python)
          throw new ToolError(
            'TOOLYARD_COMMAND_UNAVAILABLE',
            'uv_sync_fetch needs python3 (the interpreter of its throwaway environment) and none was found at start.',
          );
        return {
          command: 'uv',
          args: [
            'sync',
            ...(existsSync(lock) ? ['--frozen'] : []),
            '--no-install-project',
            '--no-install-workspace',
            '--no-install-local',
            '--no-build',
            '--no-python-downloads',
            '--keyring-provider',
            'disabled',
            '--no-progress',
            '--color',
            'never',
          ],
          // Variables beat the project's .python-version and configuration; the interpreter is not an argv
          // operand (the policy confines paths to the workspace), and the environment is the call's own.
          env: { UV_PYTHON: python },
          scratchEnv: { UV_PROJECT_ENVIRONMENT: 'uv-fetch-venv' },
        };
      },
      { optionalBinaries: ['uv', 'python3'], fetch: true },
    ),
  ],
};
