/**
 * `npm run bench:fleet`: the fleet control plane at 1,000 agents (test/support/fleet-fixture.ts) in a git
 * repository, in two shapes: the three examples cycled and renamed (bench:synth's shape), and the three examples
 * with 997 specs of the spec generator (more toolchains, gateways and pods per agent on average):
 * - `toolyard site` of the whole fleet (`SITE_RUNS` times, default 3: the median): wall time, peak RSS, site size
 *   in total and per agent, the largest page;
 * - `toolyard diff --base HEAD` with 10 agents changed (each widened: a namespace added to a gateway, or a
 *   credential), and with all 1,000 changed (every agent's first backend image retagged: both sides rendered).
 * Each case runs the real CLI (`node cli/src/main.ts`) in a fresh process (bench/cli-run.ts: wall time from
 * spawn to exit, module loading included; peak RSS is that process's, worker threads included). The all-changed diff runs
 * `DIFF_RUNS` times (default 3): the median, min and max, each run with the load average at its start, since
 * the machine may be shared. `FLEET_SITE=0` skips the site build. Aims (issues #19, #22): site build ≤ 30 s
 * and ≤ 1 GiB with every page < 2 MB; diff of 1,000 changed agents < 10 s. A benchmark, not a test: it prints figures.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { writeFleet } from '../test/support/fleet-fixture.ts';
import { type CliRun, medianRun, runCli } from './cli-run.ts';

const AGENTS = Number(process.env['FLEET_AGENTS'] ?? 1000);
/** `examples`: the three examples cycled and renamed (bench:synth's shape); `generated`: the spec generator's. */
const SHAPES = (process.env['FLEET_SHAPES'] ?? 'examples,generated').split(',') as (
  | 'examples'
  | 'generated'
)[];
const CHANGED = 10;
const DIFF_RUNS = Number(process.env['DIFF_RUNS'] ?? 3);
const SITE = process.env['FLEET_SITE'] !== '0';
/** Site builds per shape (`SITE_RUNS`, default 3): the median is reported. */
const SITE_RUNS = Number(process.env['SITE_RUNS'] ?? 3);

/** The real CLI in a fresh process (bench/cli-run.ts): wall time from spawn to exit, peak RSS. */
function measure(cwd: string, ...argv: string[]): CliRun {
  return runCli(argv, cwd);
}

const medianCpu = (runs: readonly CliRun[]) =>
  [...runs].sort((a, b) => a.cpuMs - b.cpuMs)[Math.floor((runs.length - 1) / 2)]!.cpuMs;

/** `runs` runs of one command: the median by wall time, min–max, the highest peak RSS, each run's load. */
function repeat(
  runs: number,
  once: () => CliRun,
): { runs: CliRun[]; median: CliRun; min: number; max: number } {
  const all = Array.from({ length: runs }, once);
  return { runs: all, ...medianRun(all) };
}

/** Total size and file count of a directory, and its largest HTML page (path relative to `dir`, bytes). */
function sizeOf(dir: string): { bytes: number; files: number; largestPage: { path: string; bytes: number } } {
  let bytes = 0;
  let files = 0;
  let largestPage = { path: '', bytes: 0 };
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const size = statSync(path).size;
    bytes += size;
    files++;
    if (entry.name.endsWith('.html') && size > largestPage.bytes)
      largestPage = { path: path.slice(dir.length + 1), bytes: size };
  }
  return { bytes, files, largestPage };
}

const specFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.yaml'))
    .map((e) => join(e.parentPath, e.name))
    .sort();

async function scenario(shape: 'examples' | 'generated'): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'toolyard-bench-fleet-'));
  try {
    const repo = join(work, 'repo');
    const count = writeFleet(join(repo, 'fleet'), AGENTS - 3, undefined, shape);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.test', ...args], {
        cwd: repo,
      });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'fleet');
    process.stdout.write(
      `\n## ${shape} shape — ${count} agents; ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, load average ${loadavg()[0]!.toFixed(1)} at start\n\n`,
    );

    const site = SITE
      ? repeat(SITE_RUNS, () => {
          rmSync(join(work, 'site'), { recursive: true, force: true });
          const run = measure(repo, 'site', 'fleet', '-o', join(work, 'site'));
          assert.equal(run.code, 0);
          return run;
        })
      : undefined;

    // 10 agents widened: the first gateway of each gains a namespace, or the first backend a credential.
    const all = specFiles(join(repo, 'fleet'));
    for (const file of all.slice(0, CHANGED)) {
      // biome-ignore lint/suspicious/noExplicitAny: the benchmark edits parsed YAML specs freely
      const spec = parse(readFileSync(file, 'utf8')) as { spec: Record<string, any> };
      const backend = spec.spec['backends'][0];
      backend.secretEnv = [
        ...(backend.secretEnv ?? []),
        { name: 'BENCH_TOKEN', secretName: 'bench', key: 'token' },
      ];
      writeFileSync(file, stringify(spec));
    }
    const fewChanged = measure(repo, 'diff', '--base', 'HEAD', 'fleet');
    assert.equal(fewChanged.code, 3, 'the widened agents widen');
    git('checkout', '-q', '--', '.');
    for (const file of all) {
      // biome-ignore lint/suspicious/noExplicitAny: the benchmark edits parsed YAML specs freely
      const spec = parse(readFileSync(file, 'utf8')) as { spec: Record<string, any> };
      const image = spec.spec['backends'][0].image;
      if (image.tag) image.tag = `${image.tag}-bench`;
      else image.digest = `sha256:${'f'.repeat(64)}`;
      writeFileSync(file, stringify(spec));
    }
    const diff = repeat(DIFF_RUNS, () => {
      const run = measure(repo, 'diff', '--base', 'HEAD', 'fleet');
      assert.equal(run.code, 0, 'a retag widens nothing');
      return run;
    });
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    const loads = (runs: readonly CliRun[]) => runs.map((r) => r.load.toFixed(1)).join(', ');

    const rows = [
      ['case', 'wall s', 'CPU s (all threads)', 'peak RSS MiB', 'load average', 'aim'],
      ...(site
        ? [
            [
              `site, ${count} agents (median of ${site.runs.length}; min–max ${seconds(site.min)}–${seconds(site.max)})`,
              seconds(site.median.wallMs),
              seconds(medianCpu(site.runs)),
              Math.max(...site.runs.map((r) => r.peakRssMiB)).toFixed(0),
              loads(site.runs),
              '≤ 30 s, ≤ 1024 MiB',
            ],
          ]
        : []),
      [
        `diff, ${CHANGED} of ${count} changed`,
        seconds(fewChanged.wallMs),
        seconds(fewChanged.cpuMs),
        fewChanged.peakRssMiB.toFixed(0),
        fewChanged.load.toFixed(1),
        '< 10 s',
      ],
      [
        `diff, all ${count} changed (median of ${diff.runs.length}; min–max ${seconds(diff.min)}–${seconds(diff.max)})`,
        seconds(diff.median.wallMs),
        seconds(medianCpu(diff.runs)),
        Math.max(...diff.runs.map((r) => r.peakRssMiB)).toFixed(0),
        loads(diff.runs),
        '≤ 10 s',
      ],
    ];
    for (const row of rows) process.stdout.write(`| ${row.join(' | ')} |\n`);
    if (site) {
      const { bytes, files, largestPage } = sizeOf(join(work, 'site'));
      const charts = sizeOf(join(work, 'site', 'charts')).bytes;
      process.stdout.write(
        `\nsite: ${files} files, ${(bytes / 2 ** 20).toFixed(1)} MiB, ${(bytes / count / 1024).toFixed(1)} KiB per agent (charts ${(charts / count / 1024).toFixed(1)} KiB of it); ` +
          `largest page ${largestPage.path} ${(largestPage.bytes / 1e6).toFixed(2)} MB (aim: every page < 2 MB: ${largestPage.bytes < 2e6 ? 'ok' : 'MISSED'})\n`,
      );
    }
    process.stdout.write(
      `load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

for (const shape of SHAPES) await scenario(shape);
