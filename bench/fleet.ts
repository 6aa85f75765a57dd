/**
 * `npm run bench:fleet`: the fleet control plane at 1,000 agents (test/support/fleet-fixture.ts) in a git
 * repository, in two shapes: the three examples cycled and renamed (bench:synth's shape), and the three examples
 * with 997 specs of the spec generator (more toolchains, gateways and pods per agent on average):
 * - `toolyard site` of the whole fleet: wall time, peak RSS, site size in total and per agent;
 * - `toolyard diff --base HEAD` with 10 agents changed (each widened: a namespace added to a gateway, or a
 *   credential), and with all 1,000 changed (every agent's first backend image retagged: both sides rendered).
 * Each case runs the real CLI in a fresh child process (peak RSS is that process's). The all-changed diff runs
 * `DIFF_RUNS` times (default 3): the median, min and max, each run with the load average at its start, since
 * the machine may be shared. `FLEET_SITE=0` skips the site build. Aims (issues #14, #19): site build < 60 s
 * and < 2 GiB; diff of 1,000 changed agents < 10 s. A benchmark, not a test: it prints figures.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { writeFleet } from '../test/support/fleet-fixture.ts';

const AGENTS = Number(process.env['FLEET_AGENTS'] ?? 1000);
/** `examples`: the three examples cycled and renamed (bench:synth's shape); `generated`: the spec generator's. */
const SHAPES = (process.env['FLEET_SHAPES'] ?? 'examples,generated').split(',') as (
  | 'examples'
  | 'generated'
)[];
const CHANGED = 10;
const DIFF_RUNS = Number(process.env['DIFF_RUNS'] ?? 3);
const SITE = process.env['FLEET_SITE'] !== '0';
const MAIN = fileURLToPath(new URL('../cli/src/main.ts', import.meta.url));

if (process.argv[2] === '--child') {
  // One measured CLI run: time, exit code and this process's peak RSS.
  const { main } = (await import(MAIN)) as { main(argv: readonly string[], io?: unknown): Promise<number> };
  const quiet = { stdout: () => {}, stderr: (line: string) => process.stderr.write(`${line}\n`) };
  const start = performance.now();
  const code = await main(process.argv.slice(3), quiet);
  const ms = performance.now() - start;
  process.stdout.write(`${JSON.stringify({ code, ms, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
  process.exit(0);
}

interface Run {
  readonly code: number;
  readonly ms: number;
  readonly maxRssMiB: number;
}

function measure(cwd: string, ...argv: string[]): Run {
  const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', ...argv], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`${argv.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Run;
}

function sizeOf(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
    files++;
  }
  return { bytes, files };
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

    const site = SITE ? measure(repo, 'site', 'fleet', '-o', join(work, 'site')) : undefined;
    if (site) assert.equal(site.code, 0);

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
    const runs: (Run & { load: number })[] = [];
    for (let i = 0; i < DIFF_RUNS; i++) {
      const load = loadavg()[0]!;
      const run = measure(repo, 'diff', '--base', 'HEAD', 'fleet');
      assert.equal(run.code, 0, 'a retag widens nothing');
      runs.push({ ...run, load });
    }
    const byTime = [...runs].sort((a, b) => a.ms - b.ms);
    const median = byTime[Math.floor((byTime.length - 1) / 2)]!;
    const seconds = (ms: number) => (ms / 1000).toFixed(1);

    const rows = [
      ['case', 'wall s', 'peak RSS MiB', 'load average', 'aim'],
      ...(site
        ? [
            [
              `site, ${count} agents`,
              seconds(site.ms),
              site.maxRssMiB.toFixed(0),
              loadavg()[0]!.toFixed(1),
              '< 60 s, < 2048 MiB',
            ],
          ]
        : []),
      [
        `diff, ${CHANGED} of ${count} changed`,
        seconds(fewChanged.ms),
        fewChanged.maxRssMiB.toFixed(0),
        '',
        '< 10 s',
      ],
      [
        `diff, all ${count} changed (median of ${runs.length}; min–max ${seconds(byTime[0]!.ms)}–${seconds(byTime.at(-1)!.ms)})`,
        seconds(median.ms),
        Math.max(...runs.map((r) => r.maxRssMiB)).toFixed(0),
        runs.map((r) => r.load.toFixed(1)).join(', '),
        '< 10 s',
      ],
    ];
    for (const row of rows) process.stdout.write(`| ${row.join(' | ')} |\n`);
    if (site) {
      const { bytes, files } = sizeOf(join(work, 'site'));
      const charts = sizeOf(join(work, 'site', 'charts')).bytes;
      process.stdout.write(
        `\nsite: ${files} files, ${(bytes / 2 ** 20).toFixed(1)} MiB, ${(bytes / count / 1024).toFixed(1)} KiB per agent (charts ${(charts / count / 1024).toFixed(1)} KiB of it)\n`,
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
