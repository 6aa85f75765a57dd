/**
 * Support for the real-cluster tests (test/cluster/e2e/*.e2e.ts): the cluster (`npm run test:cluster` starts one
 * and names its handle in TOOLYARD_TEST_CLUSTER; a file run on its own starts its own), namespaces where Pod
 * Security `restricted` is enforced, applies that fail on any API-server warning, and waits.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { buildClusterBinaries } from '../binaries.ts';
import { type ClusterClient, clusterClient, type KubectlResult, readHandle } from '../client.ts';
import { startCluster } from '../cluster.ts';

let shared: Promise<ClusterClient> | undefined;

/** The cluster of this run: the runner's, or one started for this file (and stopped after it). */
export function useCluster(): Promise<ClusterClient> {
  shared ??= (async () => {
    const handle = process.env.TOOLYARD_TEST_CLUSTER;
    if (handle) return clusterClient(readHandle(handle));
    buildClusterBinaries((line) => process.stderr.write(`${line}\n`));
    const cluster = await startCluster({ kwokNodes: 3 });
    after(() => cluster.stop());
    return cluster;
  })();
  return shared;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value other than undefined/false, or fails with `what` and the last state. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false,
  timeoutMs = 60_000,
  describe: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      assert.fail(`timed out after ${timeoutMs / 1000} s waiting for ${what}\n${describe()}`);
    await sleep(300);
  }
}

/** The lines of kubectl's stderr that are API-server warnings (`Warning: …`). */
export function warnings(result: KubectlResult): string[] {
  return result.stderr.split('\n').filter((line) => line.startsWith('Warning:'));
}

/**
 * Creates a namespace (idempotent) labelled to enforce, audit and warn Pod Security `restricted` at the latest
 * version — the cluster's default already, stated on the namespace too so a test never depends on it.
 */
export function restrictedNamespace(cluster: ClusterClient, name: string): void {
  cluster.kubectlOk(['apply', '--server-side', '--field-manager=toolyard-tests', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        labels: {
          'pod-security.kubernetes.io/enforce': 'restricted',
          'pod-security.kubernetes.io/enforce-version': 'latest',
          'pod-security.kubernetes.io/warn': 'restricted',
          'pod-security.kubernetes.io/audit': 'restricted',
        },
      },
    }),
  });
}

/** Applies objects server-side as the tests' own field manager (idempotent: a re-run finds them in place). */
export function applyObjects(cluster: ClusterClient, items: readonly unknown[]): void {
  cluster.kubectlOk(['apply', '--server-side', '--field-manager=toolyard-tests', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
  });
}

export interface KubeObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

/** The objects of a multi-document YAML text (empty documents dropped). */
export function objectsOf(yamlText: string): KubeObjectRef[] {
  return parseAllDocuments(yamlText)
    .map((doc) => doc.toJS() as KubeObjectRef | null)
    .filter((o): o is KubeObjectRef => o !== null && typeof o === 'object');
}

/** The namespaces objects are in (besides cluster-scoped ones). */
export function namespacesOf(objects: readonly KubeObjectRef[]): string[] {
  return [...new Set(objects.flatMap((o) => (o.metadata.namespace ? [o.metadata.namespace] : [])))].sort();
}

interface DeploymentStatus {
  metadata: { name: string; namespace: string };
  spec: { replicas?: number };
  status?: {
    conditions?: { type: string; status: string }[];
    availableReplicas?: number;
    updatedReplicas?: number;
  };
}

interface StatefulSetStatus {
  metadata: { name: string; namespace: string };
  spec: { replicas?: number };
  status?: {
    readyReplicas?: number;
    updatedReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
  };
}

/** Waits until every Deployment and StatefulSet of `objects` has all its replicas available and updated. */
export async function waitForWorkloads(
  cluster: ClusterClient,
  objects: readonly KubeObjectRef[],
  timeoutMs = 120_000,
): Promise<number> {
  const workloads = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
  const pending = (): string[] =>
    workloads.flatMap((o) => {
      const ns = o.metadata.namespace ?? 'default';
      const r = cluster.kubectl(['get', o.kind.toLowerCase(), o.metadata.name, '-n', ns, '-o', 'json']);
      if (r.status !== 0) return [`${o.kind}/${ns}/${o.metadata.name}: ${r.stderr.trim()}`];
      if (o.kind === 'Deployment') {
        const d = JSON.parse(r.stdout) as DeploymentStatus;
        const want = d.spec.replicas ?? 1;
        const available = d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True');
        const done =
          available && (d.status?.availableReplicas ?? 0) >= want && (d.status?.updatedReplicas ?? 0) >= want;
        return done ? [] : [`Deployment/${ns}/${o.metadata.name}: ${JSON.stringify(d.status ?? {})}`];
      }
      const s = JSON.parse(r.stdout) as StatefulSetStatus;
      const want = s.spec.replicas ?? 1;
      const done =
        (s.status?.readyReplicas ?? 0) >= want && s.status?.currentRevision === s.status?.updateRevision;
      return done ? [] : [`StatefulSet/${ns}/${o.metadata.name}: ${JSON.stringify(s.status ?? {})}`];
    });
  let last: string[] = [];
  await waitFor(
    `${workloads.length} workloads available`,
    () => {
      last = pending();
      return last.length === 0;
    },
    timeoutMs,
    () =>
      `${last.join('\n')}\n${cluster.kubectl(['get', 'events', '-A', '--field-selector=type=Warning']).stdout}`,
  );
  return workloads.length;
}
