/**
 * `npm run bench:cluster [-- --agents N]`: a fleet of agents of the examples' shape applied to the real test
 * control plane onto kwok nodes (issue 28: 1,000 agents by default). Prints the time to apply, the time until every
 * Deployment and StatefulSet is Available, the objects and pods, and the API server's and etcd's resident memory
 * before and after. A benchmark, not a test: figures go to docs/benchmarks.md.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { checkSpecText } from '../constructs/src/check-spec-text.ts';
import { renderAgent } from '../constructs/src/render.ts';
import { quantityValue } from '../constructs/src/sandbox-plan.ts';
import type { ToolyardAgent } from '../schema/src/types.generated.ts';
import { buildClusterBinaries } from '../test/cluster/binaries.ts';
import { startCluster } from '../test/cluster/cluster.ts';
import { exampleFiles, REPO_ROOT } from '../test/support/golden.ts';

const at = process.argv.indexOf('--agents');
const AGENTS = at >= 0 ? Number(process.argv[at + 1]) : 1000;
const NAMESPACES = 20;
/** kubectl processes applying at once. */
const PARALLEL = 8;
const log = (line: string) => process.stderr.write(`${line}\n`);

function applyAsync(
  cluster: { kubectlPath: string; kubeconfig: string; dir: string },
  items: readonly unknown[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      cluster.kubectlPath,
      [`--kubeconfig=${cluster.kubeconfig}`, 'apply', '--server-side', '--field-manager=toolyard', '-f', '-'],
      {
        stdio: ['pipe', 'ignore', 'pipe'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cluster.dir },
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`kubectl apply exited ${code}: ${stderr}`)),
    );
    child.stdin.end(items.map((o) => JSON.stringify(o)).join('\n---\n'));
  });
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

/** The examples' agents, renamed `<example>-<i>` and spread over NAMESPACES namespaces, rendered. */
function fleet(): { objects: Record<string, unknown>[]; namespaces: string[] } {
  const bases = exampleFiles().map((file) => {
    const checked = checkSpecText(readFileSync(join(REPO_ROOT, file), 'utf8'), file);
    if (!checked.ok) throw new Error(`${file} is invalid`);
    return checked.specs[0]!.agent;
  });
  const objects: Record<string, unknown>[] = [];
  const namespaces = new Set<string>();
  for (let i = 0; i < AGENTS; i++) {
    const base = bases[i % bases.length]!;
    const ns = `fleet-${i % NAMESPACES}`;
    const copy = parse(stringify(base)) as ToolyardAgent & { spec: Record<string, unknown> };
    copy.metadata = { ...copy.metadata, name: `${base.metadata.name}-${i}`.slice(0, 40), namespace: ns };
    // Gateways' authority follows the agent into its namespace.
    for (const gateway of (copy.spec['gateways'] ?? []) as {
      authority?: { kubernetes?: { namespaces?: string[] } };
    }[])
      if (gateway.authority?.kubernetes) gateway.authority.kubernetes.namespaces = [ns];
    namespaces.add(ns);
    const checked = checkSpecText(stringify(copy), `fleet-${i}.yaml`);
    if (!checked.ok) throw new Error(`agent ${i}: ${checked.errors.map((e) => e.message).join('; ')}`);
    objects.push(...(renderAgent(checked.specs[0]!.agent).objects as unknown as Record<string, unknown>[]));
  }
  return { objects, namespaces: [...namespaces].sort() };
}

interface PodTemplate {
  readonly spec: {
    readonly containers: readonly Container[];
    readonly initContainers?: readonly (Container & { restartPolicy?: string })[];
  };
}
interface Container {
  readonly resources?: { readonly requests?: Readonly<Record<string, string>> };
}

/** What one pod asks the scheduler for: its containers' requests, or its largest init container's if larger. */
function podRequests(pod: PodTemplate): { cpu: number; memory: number } {
  const of = (c: Container, name: string) => quantityValue(c.resources?.requests?.[name] ?? '0') || 0;
  // Sidecars (init containers that always restart) run beside the containers and count with them.
  const running = [
    ...pod.spec.containers,
    ...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'),
  ];
  const init = (pod.spec.initContainers ?? []).filter((c) => c.restartPolicy !== 'Always');
  const sum = (name: string) => running.reduce((total, c) => total + of(c, name), 0);
  const max = (name: string) => Math.max(0, ...init.map((c) => of(c, name)));
  return { cpu: Math.max(sum('cpu'), max('cpu')), memory: Math.max(sum('memory'), max('memory')) };
}

/**
 * kwok nodes enough for every pod with a fifth to spare: each takes 250 pods, 64 CPUs and 512 GiB
 * (kwok-stages.ts), and the fleet's requests, not its pod count, decide (its pods ask for more than a quarter CPU
 * each on average).
 */
function nodesFor(objects: readonly Record<string, unknown>[]): number {
  let pods = 0;
  let cpu = 0;
  let memory = 0;
  for (const o of objects) {
    if (o['kind'] !== 'Deployment' && o['kind'] !== 'StatefulSet') continue;
    const spec = o['spec'] as { replicas?: number; template: PodTemplate };
    const replicas = spec.replicas ?? 1;
    const asked = podRequests(spec.template);
    pods += replicas;
    cpu += replicas * asked.cpu;
    memory += replicas * asked.memory;
  }
  return Math.ceil(Math.max((pods * 1.2) / 250, (cpu * 1.2) / 64, (memory * 1.2) / 512 / 1024 ** 3)) + 1;
}

buildClusterBinaries(log);
const { objects, namespaces } = fleet();
const workloads = objects.filter((o) => o['kind'] === 'Deployment' || o['kind'] === 'StatefulSet').length;
const nodes = nodesFor(objects);
// The controllers unthrottled, as kwok's own scale tests run them: the figure is then the API server's and the
// controllers' work, not their client rate limits (`--throttled` keeps the defaults, for comparison).
const cluster = await startCluster({
  kwokNodes: nodes,
  log,
  unlimitedClientQps: !process.argv.includes('--throttled'),
});
try {
  const etcdPid = cluster.component('etcd')?.pid ?? 0;
  const before = { apiserver: cluster.apiserverRss(), etcd: rss(etcdPid) };
  for (const ns of namespaces) cluster.kubectlOk(['create', 'namespace', ns]);
  const started = Date.now();
  // Several kubectl processes at once, one namespace's objects each: the API server, not one client's round
  // trips, is what is measured.
  const byNamespace = new Map<string, Record<string, unknown>[]>();
  for (const o of objects) {
    const ns = String((o['metadata'] as { namespace?: string }).namespace);
    byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), o]);
  }
  const queue = [...byNamespace.values()];
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let chunk = queue.shift(); chunk; chunk = queue.shift()) await applyAsync(cluster, chunk);
    }),
  );
  const applied = Date.now();
  log(
    `applied ${objects.length} objects of ${AGENTS} agents in ${((applied - started) / 1000).toFixed(1)} s`,
  );
  let available = 0;
  for (;;) {
    available = 0;
    for (const kind of ['deployments', 'statefulsets']) {
      const list = cluster.kubectlJson<{
        items: {
          spec: { replicas?: number };
          status?: { availableReplicas?: number; readyReplicas?: number };
        }[];
      }>(['get', kind, '-A']);
      for (const w of list.items)
        if ((w.status?.availableReplicas ?? w.status?.readyReplicas ?? 0) >= (w.spec.replicas ?? 1))
          available++;
    }
    if (available >= workloads || Date.now() - applied > 30 * 60_000) break;
    log(
      `${((Date.now() - applied) / 1000).toFixed(0)} s after the apply: ${available}/${workloads} Available`,
    );
    // Each look lists every Deployment and StatefulSet: a heavy read itself, so not too often.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
  }
  const done = Date.now();
  const pods = cluster.kubectlOk(['get', 'pods', '-A', '--no-headers']).split('\n').filter(Boolean).length;
  const after = { apiserver: cluster.apiserverRss(), etcd: rss(etcdPid) };
  const lines = [
    `agents                         ${AGENTS} (${namespaces.length} namespaces, ${nodes} kwok nodes)`,
    `controllers' client limits     ${process.argv.includes('--throttled') ? 'the defaults (20/50 requests/s)' : 'none (5,000 requests/s, as kwokctl --disable-qps-limits)'}`,
    `objects applied                ${objects.length} (${workloads} Deployments/StatefulSets, ${pods} pods)`,
    `apply (server-side)            ${((applied - started) / 1000).toFixed(1)} s`,
    `apply → all Available          ${((done - applied) / 1000).toFixed(1)} s (${available}/${workloads})`,
    `total                          ${((done - started) / 1000).toFixed(1)} s`,
    `kube-apiserver RSS             ${mib(before.apiserver)} → ${mib(after.apiserver)}`,
    `etcd RSS                       ${mib(before.etcd)} → ${mib(after.etcd)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await cluster.stop();
}
