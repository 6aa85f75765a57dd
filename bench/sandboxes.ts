/**
 * `npm run bench:sandboxes`: sandboxes on the real test control plane with kwok nodes (test/sandboxes/cluster-world.ts:
 * agent-sandbox's controller, the manager as its own process with its ServiceAccount token, each sandbox pod's
 * server as a process in its own network namespace). Prints, for a backend's `sandbox_create` then its first
 * `sandbox_exec`:
 *
 * - warm: a new session while the warm pool is full (claim → adopted warm sandbox → bound → first command);
 * - cold: a template with no warm pool (claim → new Sandbox → pod scheduled, claim bound, server started → bound);
 * - 100 sessions at once against a pool of 20 (the rest start cold);
 *
 * each as p50 and p95 of create-to-ready (`readyMs`, what the manager reports) and create-to-first-exec (as the
 * backend sees it), and the manager's resident memory idle and after the 100 sessions. Set TOOLYARD_TEST_CLUSTER to
 * reuse a running cluster (npm run cluster). A benchmark, not a test: figures go to docs/benchmarks.md.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildClusterBinaries } from '../test/cluster/binaries.ts';
import { type ClusterClient, clusterClient, readHandle } from '../test/cluster/client.ts';
import { startCluster } from '../test/cluster/cluster.ts';
import { startAgentSandbox, startSandboxWorld } from '../test/sandboxes/cluster-world.ts';
import type { SocketMcpClient } from '../test/sandboxes/mcp-over-socket.ts';
import { sandboxImageMissing } from '../test/sandboxes/sandbox-node.ts';

const WARM_SAMPLES = Number(process.env.SANDBOX_BENCH_WARM ?? 15);
const COLD_SAMPLES = Number(process.env.SANDBOX_BENCH_COLD ?? 8);
const CONCURRENT = Number(process.env.SANDBOX_BENCH_CONCURRENT ?? 100);
const POOL = 20;
const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function summary(label: string, ready: readonly number[], firstExec: readonly number[]): string {
  const f = (v: number) => `${Math.round(v)} ms`;
  return `${label.padEnd(34)} n=${String(ready.length).padStart(3)}  ready p50 ${f(percentile(ready, 50))} p95 ${f(percentile(ready, 95))}  first exec p50 ${f(percentile(firstExec, 50))} p95 ${f(percentile(firstExec, 95))}`;
}

function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
}

interface Sample {
  readonly ready: number;
  readonly firstExec: number;
  readonly launch: string;
}

async function session(client: SocketMcpClient, sessionKey: string, template: string): Promise<Sample> {
  const started = performance.now();
  const created = await client.callTool('sandbox_create', { sessionKey, template });
  if (created.isError) throw new Error(created.content[0]?.text);
  const ran = await client.callTool('sandbox_exec', { sessionKey, command: ['ls'] });
  if (ran.isError) throw new Error(ran.content[0]?.text);
  const firstExec = performance.now() - started;
  const outcome = created.structuredContent as { readyMs: number; sandbox: { launch: string | null } };
  return { ready: outcome.readyMs, firstExec, launch: outcome.sandbox.launch ?? 'unknown' };
}

async function poolFull(
  cluster: ClusterClient,
  namespace: string,
  pool: string,
  replicas: number,
): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const status = cluster.kubectlJson<{ status?: { readyReplicas?: number } }>([
      'get',
      'sandboxwarmpool',
      pool,
      '-n',
      namespace,
    ]).status;
    if ((status?.readyReplicas ?? 0) >= replicas) return;
    await sleep(250);
  }
  throw new Error(`warm pool ${pool} did not fill`);
}

const missing = sandboxImageMissing() ?? (process.getuid?.() !== 0 ? 'needs root' : undefined);
if (missing) {
  log(`bench:sandboxes: ${missing}`);
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'toolyard-bench-sbx-'));
chmodSync(dir, 0o755);
const handle = process.env.TOOLYARD_TEST_CLUSTER;
let ownCluster: Awaited<ReturnType<typeof startCluster>> | undefined;
let cluster: ClusterClient;
if (handle) cluster = clusterClient(readHandle(handle));
else {
  buildClusterBinaries(log);
  ownCluster = await startCluster({ kwokNodes: 3, log });
  cluster = ownCluster;
}
const namespace = 'sbx-bench';
const agent = 'bench';
const controller = await startAgentSandbox(cluster, dir);
const stopAll = async (world?: Awaited<ReturnType<typeof startSandboxWorld>>) => {
  await world?.stop();
  await controller.stop();
  cluster.kubectl(['delete', 'namespace', namespace, '--wait=false']);
  await ownCluster?.stop();
  rmSync(dir, { recursive: true, force: true });
};
const world = await startSandboxWorld(cluster, {
  agent,
  namespace,
  provider: 'agent-sandbox',
  templates: [
    { name: 'warm', warmPool: 3 },
    { name: 'cold', warmPool: 0 },
    { name: 'crowd', warmPool: POOL },
  ],
  quota: {
    maxSandboxes: CONCURRENT + WARM_SAMPLES + COLD_SAMPLES + 10,
    maxSessions: CONCURRENT + WARM_SAMPLES + COLD_SAMPLES + 10,
  },
  dir: join(dir, 'world'),
}).catch(async (error: unknown) => {
  await stopAll();
  throw error;
});
try {
  const client = await world.client();
  await poolFull(cluster, namespace, `${agent}-sandbox-warm`, 3);
  await poolFull(cluster, namespace, `${agent}-sandbox-crowd`, POOL);
  while (world.node.listeningCount() < 3 + POOL) await sleep(250);
  await sleep(2000);
  const idle = rss(world.managerPid);
  const emit = (...lines: string[]) => process.stdout.write(`${lines.join('\n')}\n`);

  const warm: Sample[] = [];
  for (let i = 0; i < WARM_SAMPLES; i++) {
    await poolFull(cluster, namespace, `${agent}-sandbox-warm`, 3);
    while (world.node.listeningCount() < 3 + POOL + warm.length) await sleep(100);
    warm.push(await session(client, `warm-${i}`, 'warm'));
  }
  emit(
    summary(
      `warm (${warm.filter((s) => s.launch === 'warm').length} from the pool)`,
      warm.map((s) => s.ready),
      warm.map((s) => s.firstExec),
    ),
  );

  const cold: Sample[] = [];
  for (let i = 0; i < COLD_SAMPLES; i++) cold.push(await session(client, `cold-${i}`, 'cold'));
  emit(
    summary(
      `cold (no pool)`,
      cold.map((s) => s.ready),
      cold.map((s) => s.firstExec),
    ),
  );

  const began = performance.now();
  const crowd = await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) => session(client, `crowd-${i}`, 'crowd')),
  );
  const wall = performance.now() - began;
  const fromPool = crowd.filter((s) => s.launch === 'warm');
  emit(
    summary(
      `${CONCURRENT} at once (${fromPool.length} from a pool of ${POOL})`,
      crowd.map((s) => s.ready),
      crowd.map((s) => s.firstExec),
    ),
    summary(
      '  of which from the pool',
      fromPool.map((s) => s.ready),
      fromPool.map((s) => s.firstExec),
    ),
    `  all ${CONCURRENT} running their first command after ${(wall / 1000).toFixed(1)} s`,
    `manager resident memory: ${(idle / 2 ** 20).toFixed(0)} MiB idle, ${(rss(world.managerPid) / 2 ** 20).toFixed(0)} MiB with ${warm.length + cold.length + CONCURRENT} sandboxes`,
  );
} finally {
  await stopAll(world);
}
