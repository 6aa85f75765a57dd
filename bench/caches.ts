/**
 * Cold vs warm caches: what a pod pays for `cargo test`, `go test`, `npm test` and `pytest` when its caches are
 * empty (a fresh emptyDir: today's behaviour on every restart) and when they are full (a cache claim a previous
 * pod filled), through the real toolchain server and the real broker (test/broker-e2e/caches-fixture.ts: fake
 * registries over TLS behind the broker, the server in the agent's network namespace with
 * `egressProxy.phase: fetch`, Debian's cargo, go, npm and pip).
 *
 * Each round starts a pod on fresh cache directories (cold) and then a second pod, with a fresh workspace, on the
 * same directories (warm); each pod runs, per project, the fetch tool (cargo_fetch, go_mod_download,
 * npm_ci_fetch, pip_download) and then the build and test an agent runs (cargo_test; go_test; `npm ci` +
 * npm_test; `pip install --target` + pytest), all over MCP. The download caches and the build caches (GOCACHE,
 * CARGO_TARGET_DIR) are both part of the claim. Times are the commands' run times as the server measured them
 * (`durationMs`, summed per step), not the MCP client's start-up. Median of 3 rounds; cold and warm are
 * measured in the same round.
 * The fake registries answer on a local link, so the cold figures hold no internet latency: with real registries
 * the cold side only grows. Needs root. Usage: npm run bench:caches [-- --rounds N]
 */
import { cpSync, existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import {
  assertOk,
  buildAndTest,
  CachesFixture,
  FETCH,
  type Pod,
  TOOLS,
  type Tool,
} from '../test/broker-e2e/caches-fixture.ts';

const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;

interface Sample {
  fetchMs: number;
  buildMs: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Run times as the server measured them (`durationMs`): the MCP client's own start-up is not counted. */
async function measure(fixture: CachesFixture, pod: Pod, tool: Tool): Promise<Sample> {
  const fetch = await fixture.call(pod, FETCH[tool].tool, { cwd: tool });
  assertOk(fetch, FETCH[tool].tool);
  return { fetchMs: fetch.durationMs, buildMs: await buildAndTest(fixture, pod, tool) };
}

const missing = process.getuid?.() === 0 ? CachesFixture.missing() : 'bench:caches needs root (namespaces)';
if (missing) {
  process.stderr.write(`${missing}\n`);
  process.exit(2);
}
const fixture = await CachesFixture.start({ projectCode: false });
const samples: Record<'cold' | 'warm', Record<Tool, Sample[]>> = {
  cold: { cargo: [], go: [], npm: [], pip: [], uv: [] },
  warm: { cargo: [], go: [], npm: [], pip: [], uv: [] },
};
const loads: number[] = [loadavg()[0]!];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const caches = fixture.cacheSet(`round-${round}`);
    for (const kind of ['cold', 'warm'] as const) {
      const pod = await fixture.startPod(`${kind}-${round}`, { phase: 'fetch', caches, sharedBuild: true });
      for (const tool of TOOLS) {
        const sample = await measure(fixture, pod, tool);
        samples[kind][tool].push(sample);
        process.stderr.write(
          `round ${round} ${kind} ${tool}: fetch ${sample.fetchMs.toFixed(0)} ms, build+test ${sample.buildMs.toFixed(0)} ms\n`,
        );
        // The repository commits the lockfile the first fetch resolved.
        const lock = join(pod.workspace, 'cargo', 'Cargo.lock');
        if (tool === 'cargo' && !existsSync(join(fixture.projectsDir, 'cargo', 'Cargo.lock')))
          cpSync(lock, join(fixture.projectsDir, 'cargo', 'Cargo.lock'));
        if (tool === 'uv' && !existsSync(join(fixture.projectsDir, 'uv', 'uv.lock')))
          cpSync(join(pod.workspace, 'uv', 'uv.lock'), join(fixture.projectsDir, 'uv', 'uv.lock'));
      }
      await fixture.stopPod(pod);
    }
    loads.push(loadavg()[0]!);
  }
} finally {
  await fixture.stop();
}

const rows = TOOLS.map((tool) => {
  const m = (kind: 'cold' | 'warm', key: keyof Sample) => median(samples[kind][tool].map((s) => s[key]));
  const cold = median(samples.cold[tool].map((s) => s.fetchMs + s.buildMs));
  const warm = median(samples.warm[tool].map((s) => s.fetchMs + s.buildMs));
  return {
    tool,
    coldFetch: m('cold', 'fetchMs'),
    coldBuild: m('cold', 'buildMs'),
    warmFetch: m('warm', 'fetchMs'),
    warmBuild: m('warm', 'buildMs'),
    cold,
    warm,
  };
});
const TEST_NAME: Record<Tool, string> = {
  cargo: 'cargo test',
  go: 'go test',
  npm: 'npm test',
  pip: 'pytest',
  uv: 'uv run',
};
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
console.log(
  `caches bench: ${ROUNDS} rounds, median; load ${loads.map((l) => l.toFixed(1)).join(' → ')} on ${process.env.HOSTNAME ?? 'this machine'}`,
);
console.log(
  '| project | cold fetch | cold build+test | warm fetch | warm build+test | cold total | warm total | warm/cold |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows)
  console.log(
    `| ${TEST_NAME[r.tool]} | ${s(r.coldFetch)} | ${s(r.coldBuild)} | ${s(r.warmFetch)} | ${s(r.warmBuild)} | ${s(r.cold)} | ${s(r.warm)} | ${((100 * r.warm) / r.cold).toFixed(0)} % |`,
  );
