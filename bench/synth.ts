/**
 * `npm run bench:synth`: renders 1, 100 and 1,000 agents of the examples' shape (cycling the three examples,
 * renamed per agent) to YAML, and compares with building the very same objects with bare cdk8s (cdk8s-plus-28's
 * `k8s` L1 classes in a Chart, then `chart.toJson()` and the same YAML serialisation) in the same run. A second
 * scenario renders 1,000 agents with two toolchains in their own pods each (`polyglot-reviewer`'s shape:
 * per agent a shared claim, three Deployments, Services, ServiceAccounts and NetworkPolicies).
 *
 * Each case runs in a fresh child process, so peak RSS and heap belong to that case alone. The baseline's
 * props are prepared before its clock starts (hand-written cdk8s code would have them as literals), and its
 * output is checked to equal toolyard's, so the ratio is an upper bound of toolyard's overhead over cdk8s.
 * A benchmark, not a test: it prints figures and exits 0 unless something breaks.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Chart, Yaml } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import type { Construct } from 'constructs';
import { checkSpecText } from '../constructs/src/check-spec-text.ts';
import { type KubeObject, renderAgent, toYamlDocuments } from '../constructs/src/render.ts';
import type { ToolyardAgent } from '../schema/src/types.generated.ts';
import { writeFleet } from '../test/support/fleet-fixture.ts';
import { type CliRun, medianRun, runCli } from './cli-run.ts';

const SIZES = [1, 100, 1000] as const;
/** End-to-end runs of the CLI over 1,000 spec files (`SYNTH_CLI_RUNS`, default 3; 0 skips them). */
const CLI_RUNS = Number(process.env['SYNTH_CLI_RUNS'] ?? 3);
const CLI_AGENTS = 1000;
/** Scenarios: the examples' mix, and agents whose two toolchains each run in a pod of their own. */
const SHAPES = {
  examples: ['polyglot-reviewer', 'web-infra', 'cluster-operator'],
  'toolchain-pods': ['polyglot-reviewer'],
} as const;
type Shape = keyof typeof SHAPES;
const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** `count` agents of a scenario's shape, each with its own name. */
function agents(count: number, shape: Shape): ToolyardAgent[] {
  const shapes = SHAPES[shape].map((name) => {
    const file = `${ROOT}examples/${name}.yaml`;
    const result = checkSpecText(readFileSync(file, 'utf8'), file);
    if (!result.ok) throw new Error(`${file} is invalid`);
    return result.specs[0]!.agent;
  });
  if (shape === 'toolchain-pods')
    assert.equal(
      shapes[0]!.spec.toolchains?.filter((t) => t.placement === 'pod').length,
      2,
      'the scenario needs two toolchain pods per agent',
    );
  return Array.from({ length: count }, (_, i) => {
    const spec = shapes[i % shapes.length]!;
    return { ...spec, metadata: { ...spec.metadata, name: `${spec.metadata.name}-${i}` } };
  });
}

// ---- baseline: the same objects through cdk8s-plus-28's L1 classes ----------------------------------------

type L1 = new (scope: Construct, id: string, props: never) => unknown;
const L1_CLASSES: Readonly<Record<string, L1>> = {
  ServiceAccount: k8s.KubeServiceAccount as unknown as L1,
  ConfigMap: k8s.KubeConfigMap as unknown as L1,
  Service: k8s.KubeService as unknown as L1,
  Deployment: k8s.KubeDeployment as unknown as L1,
  StatefulSet: k8s.KubeStatefulSet as unknown as L1,
  Role: k8s.KubeRole as unknown as L1,
  RoleBinding: k8s.KubeRoleBinding as unknown as L1,
  NetworkPolicy: k8s.KubeNetworkPolicy as unknown as L1,
  PersistentVolumeClaim: k8s.KubePersistentVolumeClaim as unknown as L1,
};

/** Rendered JSON → L1 props: quantities and int-or-strings become cdk8s' wrapper types. */
function toL1Props(value: unknown, key = '', parentKey = '', inPolicyPorts = false): unknown {
  if (Array.isArray(value))
    return value.map((item) =>
      toL1Props(
        item,
        key,
        parentKey,
        inPolicyPorts || (key === 'ports' && ['egress', 'ingress'].includes(parentKey)),
      ),
    );
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if ((key === 'limits' || key === 'requests') && typeof v === 'string')
        out[k] = k8s.Quantity.fromString(v);
      else if (k === 'sizeLimit' && typeof v === 'string') out[k] = k8s.Quantity.fromString(v);
      else if (
        (k === 'port' && (key === 'httpGet' || key === 'tcpSocket' || inPolicyPorts)) ||
        k === 'targetPort' ||
        k === 'maxSurge' ||
        k === 'maxUnavailable'
      )
        out[k] =
          typeof v === 'number' ? k8s.IntOrString.fromNumber(v) : k8s.IntOrString.fromString(String(v));
      else out[k] = toL1Props(v, k, key, inPolicyPorts);
    }
    return out;
  }
  return value;
}

function l1Props(objects: readonly KubeObject[]) {
  return objects.map((object) => {
    const { apiVersion: _apiVersion, kind, ...props } = object;
    return { kind, props: toL1Props(props) as never };
  });
}

function buildBaseline(name: string, objects: ReturnType<typeof l1Props>): string {
  const app = new App({ outdir: 'dist' });
  const chart = new Chart(app, name, { disableResourceNameHashes: true });
  objects.forEach(({ kind, props }, index) => {
    const Class = L1_CLASSES[kind];
    if (!Class) throw new Error(`no L1 class for ${kind}`);
    new Class(chart, `o${index}`, props);
  });
  // Bare cdk8s serialises with its own writer (toolyard's specialised one must produce the same bytes).
  return Yaml.stringify(...chart.toJson());
}

// ---- one case, in this process ------------------------------------------------------------------------

interface CaseResult {
  readonly impl: 'toolyard' | 'cdk8s';
  readonly shape: Shape;
  readonly agents: number;
  readonly totalMs: number;
  readonly peakRssMiB: number;
  readonly peakHeapMiB: number;
  readonly bytes: number;
}

function runCase(impl: CaseResult['impl'], count: number, shape: Shape): CaseResult {
  const input = agents(count, shape);
  // The baseline starts from ready-made props (outside the clock) and must produce the same YAML.
  const prepared =
    impl === 'cdk8s' ? input.map((agent) => ({ agent, objects: l1Props(renderAgent(agent).objects) })) : [];
  if (impl === 'cdk8s')
    assert.equal(
      buildBaseline(input[0]!.metadata.name, prepared[0]!.objects),
      toYamlDocuments(renderAgent(input[0]!).objects),
      'the baseline must build exactly what toolyard renders',
    );
  globalThis.gc?.();
  let peakHeap = process.memoryUsage().heapUsed;
  const outputs: string[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    outputs.push(
      impl === 'toolyard'
        ? toYamlDocuments(renderAgent(input[i]!).objects)
        : buildBaseline(prepared[i]!.agent.metadata.name, prepared[i]!.objects),
    );
    if (i % 10 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }
  const totalMs = performance.now() - start;
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  return {
    impl,
    shape,
    agents: count,
    totalMs,
    peakRssMiB: (process.resourceUsage().maxRSS * 1024) / 2 ** 20,
    peakHeapMiB: peakHeap / 2 ** 20,
    bytes: outputs.reduce((sum, yaml) => sum + yaml.length, 0),
  };
}

// ---- the CLI end to end ------------------------------------------------------------------------------

/**
 * `toolyard synth <dir> -o <out>` over 1,000 spec files of the examples' shape (the three examples and 997
 * renamed copies: test/support/fleet-fixture.ts), each run a fresh process: reading, parsing, checking,
 * rendering, serialising and writing 1,000 manifest files, module loading included.
 */
function cliRuns(runs: number): CliRun[] {
  const work = mkdtempSync(join(tmpdir(), 'toolyard-bench-synth-'));
  try {
    const specs = join(work, 'specs');
    assert.equal(writeFleet(specs, CLI_AGENTS - 3, undefined, 'examples'), CLI_AGENTS);
    return Array.from({ length: runs }, (_, i) => {
      const out = join(work, `out-${i}`);
      const run = runCli(['synth', specs, '-o', out]);
      assert.equal(run.code, 0, 'toolyard synth succeeds');
      assert.equal(readdirSync(out).length, CLI_AGENTS, 'one manifest file per agent');
      rmSync(out, { recursive: true });
      return run;
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// ---- driver -------------------------------------------------------------------------------------------

const caseIndex = process.argv.indexOf('--case');
if (caseIndex >= 0) {
  const [impl, count, shape] = (process.argv[caseIndex + 1] ?? '').split(':');
  process.stdout.write(
    JSON.stringify(runCase(impl as CaseResult['impl'], Number(count), (shape ?? 'examples') as Shape)),
  );
} else {
  const results: CaseResult[] = [];
  const cases: [number, Shape][] = [
    ...SIZES.map((n) => [n, 'examples'] as [number, Shape]),
    [1000, 'toolchain-pods'],
  ];
  for (const [count, shape] of cases)
    for (const impl of ['toolyard', 'cdk8s'] as const) {
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', fileURLToPath(import.meta.url), '--case', `${impl}:${count}:${shape}`],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        },
      );
      if (child.status !== 0) throw new Error(`case ${impl}:${count}:${shape} failed:\n${child.stderr}`);
      results.push(JSON.parse(child.stdout) as CaseResult);
    }
  const cli = CLI_RUNS > 0 ? cliRuns(CLI_RUNS) : [];
  const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const lines = [
    `synth benchmark — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length}× ${cpus()[0]?.model.trim() ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    '',
    row([
      'scenario',
      'agents',
      'toolyard ms/agent',
      'toolyard total ms',
      'toolyard peak RSS MiB',
      'toolyard peak heap MiB',
      'cdk8s ms/agent',
      'cdk8s total ms',
      'cdk8s peak RSS MiB',
      'ratio',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  for (const [count, shape] of cases) {
    const ours = results.find((r) => r.impl === 'toolyard' && r.agents === count && r.shape === shape)!;
    const base = results.find((r) => r.impl === 'cdk8s' && r.agents === count && r.shape === shape)!;
    lines.push(
      row([
        shape,
        String(count),
        (ours.totalMs / count).toFixed(2),
        ours.totalMs.toFixed(0),
        ours.peakRssMiB.toFixed(0),
        ours.peakHeapMiB.toFixed(0),
        (base.totalMs / count).toFixed(2),
        base.totalMs.toFixed(0),
        base.peakRssMiB.toFixed(0),
        (ours.totalMs / base.totalMs).toFixed(2),
      ]),
    );
  }
  const find = (impl: CaseResult['impl'], agents: number, shape: Shape = 'examples') =>
    results.find((r) => r.impl === impl && r.agents === agents && r.shape === shape)!;
  const thousand = find('toolyard', 1000);
  const hundred = find('toolyard', 100);
  const base1000 = find('cdk8s', 1000);
  const pods = find('toolyard', 1000, 'toolchain-pods');
  lines.push(
    '',
    `aims: 1,000 agents < 10 s: ${(thousand.totalMs / 1000).toFixed(2)} s ${thousand.totalMs < 10_000 ? 'ok' : 'MISSED'}; ` +
      `< 1 GiB: ${thousand.peakRssMiB.toFixed(0)} MiB ${thousand.peakRssMiB < 1024 ? 'ok' : 'MISSED'}; ` +
      `linear (ms/agent 1,000 vs 100): ${(thousand.totalMs / 1000 / (hundred.totalMs / 100)).toFixed(2)}×; ` +
      `ratio at 1,000: ${(thousand.totalMs / base1000.totalMs).toFixed(2)} ${thousand.totalMs / base1000.totalMs < 1.5 ? 'ok' : 'MISSED'}`,
    `toolchain pods: 1,000 agents with two each < 10 s: ${(pods.totalMs / 1000).toFixed(2)} s ${pods.totalMs < 10_000 ? 'ok' : 'MISSED'}; ` +
      `< 1 GiB: ${pods.peakRssMiB.toFixed(0)} MiB ${pods.peakRssMiB < 1024 ? 'ok' : 'MISSED'}`,
  );
  if (cli.length > 0) {
    const { median, min, max } = medianRun(cli);
    const ratio = thousand.totalMs / base1000.totalMs;
    lines.push(
      '',
      `CLI end to end: \`toolyard synth\` of ${CLI_AGENTS} spec files to ${CLI_AGENTS} manifest files, a fresh process each run`,
      '',
      row([
        'runs',
        'wall s median (min–max)',
        'CPU s (all threads) median',
        'peak RSS MiB (max)',
        'load average at each run',
      ]),
      row(['---:', '---:', '---:', '---:', '---']),
      row([
        String(cli.length),
        `${(median.wallMs / 1000).toFixed(2)} (${(min / 1000).toFixed(2)}–${(max / 1000).toFixed(2)})`,
        (cli.map((r) => r.cpuMs).sort((a, b) => a - b)[Math.floor((cli.length - 1) / 2)]! / 1000).toFixed(2),
        Math.max(...cli.map((r) => r.peakRssMiB)).toFixed(0),
        cli.map((r) => r.load.toFixed(1)).join(', '),
      ]),
      '',
      `aims (issue 22): CLI ≤ 5 s: ${(median.wallMs / 1000).toFixed(2)} s ${median.wallMs <= 5000 ? 'ok' : 'MISSED'}; ` +
        `≤ 400 MiB: ${Math.max(...cli.map((r) => r.peakRssMiB)).toFixed(0)} MiB ${cli.every((r) => r.peakRssMiB <= 400) ? 'ok' : 'MISSED'}; ` +
        `in-process ratio to bare cdk8s ≤ 1.05: ${ratio.toFixed(2)} ${ratio <= 1.05 ? 'ok' : 'MISSED'}; ` +
        `load average now ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
