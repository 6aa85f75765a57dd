/**
 * Runs the real CLI (`node cli/src/main.ts …`) in a fresh process, as a user or a pipeline runs it, and
 * measures it from outside: wall time from spawn to exit (module loading included), and the child's peak RSS
 * and CPU time (all threads), which a preload (`--import` of bench/report-peak-rss.ts) reads from
 * `process.resourceUsage()` as the process exits and prints as its last stderr line. Shared by bench/synth and
 * bench/fleet.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../cli/src/main.ts', import.meta.url));
const REPORTER = new URL('./report-peak-rss.ts', import.meta.url).href;
export const PEAK_RSS_MARKER = 'toolyard-bench-peak-rss-kib:';

export interface CliRun {
  readonly code: number;
  readonly wallMs: number;
  readonly peakRssMiB: number;
  /** User + system CPU time of the process, every thread. */
  readonly cpuMs: number;
  /** The 1-minute load average when the run started. */
  readonly load: number;
}

export function runCli(argv: readonly string[], cwd = process.cwd()): CliRun {
  const load = loadavg()[0]!;
  const start = performance.now();
  const child = spawnSync(process.execPath, ['--import', REPORTER, MAIN, ...argv], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const wallMs = performance.now() - start;
  const lines = child.stderr.trimEnd().split('\n');
  const report = lines.findLast((line) => line.startsWith(PEAK_RSS_MARKER));
  if (child.status === null || report === undefined)
    throw new Error(`toolyard ${argv.join(' ')} did not finish:\n${child.stderr.slice(-4000)}`);
  return {
    code: child.status,
    wallMs,
    peakRssMiB: Number(/^\S+:(\d+)/.exec(report)![1]) / 1024,
    cpuMs: Number(/cpu-ms:(\d+)/.exec(report)?.[1] ?? Number.NaN),
    load,
  };
}

/** The median run by wall time (the lower middle of an even count), with min and max. */
export function medianRun<T extends { readonly wallMs: number }>(
  runs: readonly T[],
): {
  median: T;
  min: number;
  max: number;
} {
  const sorted = [...runs].sort((a, b) => a.wallMs - b.wallMs);
  return {
    median: sorted[Math.floor((sorted.length - 1) / 2)]!,
    min: sorted[0]!.wallMs,
    max: sorted.at(-1)!.wallMs,
  };
}
