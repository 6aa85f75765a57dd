/**
 * The `toolyard-confine` helper from the server's side: where it is, what the kernel offers (a probe at start),
 * and the report lines it writes on its report fd (protocol in docs/confinement.md).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConfinementMode } from '../config.ts';

export const CONFINE_BINARY = 'toolyard-confine';
/** The helper's exit code when `--mode required` and the kernel has no Landlock. */
export const EXIT_UNAVAILABLE = 122;
/** The helper's exit code when it could not set up (usage, ruleset, rule, fork, restrict). */
export const EXIT_SETUP = 125;

/** One parsed report line: `confine v=1 key=value…`. */
export type ConfineReport = Readonly<Record<string, string>>;

/** Parses every `confine v=1 …` line of `text`; other lines are ignored. */
export function parseReports(text: string): ConfineReport[] {
  const out: ConfineReport[] = [];
  for (const line of text.split('\n')) {
    const words = line.trim().split(' ');
    if (words[0] !== 'confine' || words[1] !== 'v=1') continue;
    const fields: Record<string, string> = {};
    for (const word of words.slice(2)) {
      const eq = word.indexOf('=');
      if (eq > 0) fields[word.slice(0, eq)] = word.slice(eq + 1);
      else fields[word] = '';
    }
    out.push(fields);
  }
  return out;
}

/**
 * The second wall under Landlock (docs/confinement.md, "The second wall"): per-call user and IPC namespaces with a
 * seccomp filter (`namespaces`), the filter alone where the node forbids unprivileged user namespaces (`seccomp`),
 * none (`off`: confinement off, no helper, or `--no-wall`), or none because the kernel refuses seccomp filters
 * (`unavailable`: qemu-user; `required` refuses to start then).
 */
export type WallMechanism = 'namespaces' | 'seccomp' | 'off' | 'unavailable';
export const WALL_MECHANISMS: readonly WallMechanism[] = ['namespaces', 'seccomp', 'off', 'unavailable'];

function wallOf(report: ConfineReport | undefined): WallMechanism {
  const wall = report?.wall as WallMechanism | undefined;
  return wall && WALL_MECHANISMS.includes(wall) ? wall : 'off';
}

/** What confinement the server applies to every call, decided once at start. */
export interface ConfinementState {
  readonly mode: ConfinementMode;
  /** The Landlock ABI applied to calls; 0 when none (off, unavailable, or no helper). */
  readonly abi: number;
  /** `enforced`, `unavailable` (best-effort without Landlock), `no-helper` (best-effort, helper missing), `off`. */
  readonly status: 'enforced' | 'unavailable' | 'no-helper' | 'off';
  /** The second wall calls get (a call whose node refuses a user namespace at that moment falls back to seccomp). */
  readonly wall: WallMechanism;
  /** The helper path when calls go through it. */
  readonly helper: string | undefined;
  /** Extra helper flags: test-only (`--simulate-no-landlock`, `--simulate-no-userns`), and `--no-wall` when the
   *  kernel refuses seccomp filters under `best-effort`. */
  readonly helperFlags: readonly string[];
}

/** Candidate helper paths: config, then `<bundleDir>/bin/`, then the dist tree of a checkout. */
export function helperCandidates(configured: string | undefined, moduleUrl = import.meta.url): string[] {
  if (configured) return [configured];
  const dir = dirname(fileURLToPath(moduleUrl));
  const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
  return [
    join(dir, 'bin', CONFINE_BINARY), // the bundle: /opt/toolyard/toolchain-server.mjs
    join(dir, 'confine', arch, CONFINE_BINARY), // toolchain-server/dist/toolchain-server.mjs
    join(dir, '..', '..', 'dist', 'confine', arch, CONFINE_BINARY), // toolchain-server/src/confinement/*.ts
  ];
}

export function locateHelper(configured: string | undefined): string | undefined {
  for (const path of helperCandidates(configured)) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return undefined;
}

/**
 * Probes the kernel through the helper. `required` throws (naming what to do) when the helper is missing or
 * the kernel has no Landlock; `best-effort` returns the degraded state instead.
 */
export function probeConfinement(
  mode: ConfinementMode,
  configuredHelper: string | undefined,
  helperFlags: readonly string[] = [],
): ConfinementState {
  if (mode === 'off') return { mode, abi: 0, status: 'off', wall: 'off', helper: undefined, helperFlags };
  const helper = locateHelper(configuredHelper);
  if (!helper) {
    if (mode === 'required')
      throw new Error(
        `limits.confinement is required but the ${CONFINE_BINARY} helper was not found (looked at ${helperCandidates(configuredHelper).join(', ')}): run npm run build:server, or set confinementHelper`,
      );
    return { mode, abi: 0, status: 'no-helper', wall: 'off', helper: undefined, helperFlags };
  }
  const r = spawnSync(helper, ['--probe', '--mode', mode, ...helperFlags], {
    encoding: 'utf8',
    timeout: 5000,
  });
  const report = parseReports(r.stdout ?? '')[0];
  if (r.status === EXIT_UNAVAILABLE)
    throw new Error(
      'limits.confinement is required but this kernel offers no Landlock (Linux 5.13+ with landlock in the lsm= list, and a seccomp profile that allows landlock_*; docs/confinement.md): run on such a node, or set limits.confinement to best-effort',
    );
  if (r.status !== 0 || !report || report.abi === undefined)
    throw new Error(
      `the confinement helper ${helper} failed its probe (exit ${r.status ?? r.signal}): ${(r.stdout ?? '').trim() || (r.stderr ?? '').trim() || r.error?.message}`,
    );
  const abi = Number(report.abi);
  const wall = wallOf(report);
  if (wall === 'unavailable' && mode === 'required')
    throw new Error(
      'limits.confinement is required but this kernel refuses seccomp filters, the second wall under Landlock (CONFIG_SECCOMP_FILTER, and a seccomp profile that allows seccomp(2) and prctl(PR_SET_SECCOMP); docs/confinement.md): run on such a node, or set limits.confinement to best-effort',
    );
  return {
    mode,
    abi,
    status: abi > 0 ? 'enforced' : 'unavailable',
    wall,
    helper,
    helperFlags: wall === 'unavailable' ? [...helperFlags, '--no-wall'] : helperFlags,
  };
}
