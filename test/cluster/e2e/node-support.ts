/**
 * Support for the tests that run pods on the real test node (node/node.ts): pinning rendered workloads to it,
 * the Secrets their pods read (random values, created as an operator would), probes run inside pods
 * (`kubectl exec` into a container, or an ephemeral probe container sharing a pod's network), and listeners on the
 * fake public host.
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ClusterClient, NodeHandle } from '../client.ts';
import { NODE_LABEL, NODE_TAINT } from '../node/node-config.ts';
import type { KubeObjectRef } from './support.ts';

const LISTENER = fileURLToPath(new URL('../../support/netns-listener.ts', import.meta.url));

type Json = Record<string, unknown>;

/** The real node, or an error saying why there is none. `TOOLYARD_TEST_NODE=skip` turns the error into a skip. */
export function requireNode(cluster: ClusterClient): NodeHandle | undefined {
  if (cluster.node) return cluster.node;
  if (process.env.TOOLYARD_TEST_NODE === 'skip') return undefined;
  throw new Error(
    'this test needs the real test node (npm run test:cluster starts one; it needs root, containerd, runc, the CNI plugins, iptables and ipset, as .ci/run installs); TOOLYARD_TEST_NODE=skip skips it',
  );
}

function podSpecs(object: Json): Json[] {
  const spec = object['spec'] as Json | undefined;
  if (!spec) return [];
  if (object['kind'] === 'Pod') return [spec];
  const template = spec['template'] as Json | undefined;
  return template?.['spec'] ? [template['spec'] as Json] : [];
}

/** The objects with every pod pinned to the real node (its label, its taint tolerated). */
export function pinnedToNode(objects: readonly KubeObjectRef[]): KubeObjectRef[] {
  return objects.map((o) => {
    const copy = structuredClone(o) as unknown as Json;
    for (const pod of podSpecs(copy)) {
      pod['nodeSelector'] = { ...((pod['nodeSelector'] as Json) ?? {}), [NODE_LABEL.key]: NODE_LABEL.value };
      pod['tolerations'] = [...((pod['tolerations'] as Json[]) ?? []), { ...NODE_TAINT, operator: 'Equal' }];
    }
    return copy as unknown as KubeObjectRef;
  });
}

/** Every Secret the objects' pods read, with each key they read, filled with random values. */
export function secretsFor(objects: readonly KubeObjectRef[]): unknown[] {
  const wanted = new Map<string, Set<string>>();
  const want = (ns: string, name: string, key: string) => {
    const id = `${ns}/${name}`;
    const keys = wanted.get(id) ?? new Set<string>();
    keys.add(key);
    wanted.set(id, keys);
  };
  for (const object of objects as unknown as Json[]) {
    const ns = ((object['metadata'] as Json)['namespace'] as string) ?? 'default';
    for (const pod of podSpecs(object)) {
      for (const container of [
        ...((pod['containers'] as Json[]) ?? []),
        ...((pod['initContainers'] as Json[]) ?? []),
      ])
        for (const env of (container['env'] as Json[]) ?? []) {
          const ref = (env['valueFrom'] as Json | undefined)?.['secretKeyRef'] as Json | undefined;
          if (ref) want(ns, ref['name'] as string, ref['key'] as string);
        }
      for (const volume of (pod['volumes'] as Json[]) ?? []) {
        const sources = [
          volume['secret'] as Json | undefined,
          ...(((volume['projected'] as Json | undefined)?.['sources'] as Json[] | undefined) ?? []).map(
            (s) => s['secret'] as Json | undefined,
          ),
        ];
        for (const source of sources) {
          if (!source) continue;
          const name = (source['secretName'] ?? source['name']) as string;
          const items = (source['items'] as Json[] | undefined) ?? [{ key: 'token' }];
          for (const item of items) want(ns, name, item['key'] as string);
        }
      }
    }
  }
  return [...wanted].map(([id, keys]) => {
    const [namespace, name] = id.split('/');
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace },
      stringData: Object.fromEntries([...keys].map((key) => [key, randomBytes(24).toString('hex')])),
    };
  });
}

/** Runs the probe in a container of a pod (`kubectl exec`); returns what it printed. */
export function probeIn(
  cluster: ClusterClient,
  namespace: string,
  pod: string,
  container: string,
  args: readonly string[],
): string {
  const result = cluster.kubectl(['exec', '-n', namespace, pod, '-c', container, '--', '/probe', ...args], {
    timeoutMs: 30_000,
  });
  if (result.status !== 0)
    throw new Error(`probe ${args.join(' ')} in ${namespace}/${pod}/${container} failed: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * `probeIn` without blocking this process: for a probe whose other end is a fake server running in this very
 * process (a synchronous kubectl would stall its event loop, and the server with it).
 */
export function probeInAsync(
  cluster: ClusterClient,
  namespace: string,
  pod: string,
  container: string,
  args: readonly string[],
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      cluster.kubectlPath,
      [
        `--kubeconfig=${cluster.kubeconfig}`,
        'exec',
        '-n',
        namespace,
        pod,
        '-c',
        container,
        '--',
        '/probe',
        ...args,
      ],
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cluster.dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('exit', (code) =>
      code === 0
        ? resolve(stdout.trim())
        : reject(new Error(`probe ${args.join(' ')} in ${namespace}/${pod}/${container} failed: ${stderr}`)),
    );
  });
}

/**
 * Adds an ephemeral probe container (`probe idle`) to a running pod — it shares the pod's network, so it sees
 * exactly the pod's NetworkPolicy — and returns its name, for `probeIn`. Restricted, as Pod Security requires.
 */
export async function attachProbe(
  cluster: ClusterClient,
  node: NodeHandle,
  namespace: string,
  pod: string,
): Promise<string> {
  const name = `probe-${randomBytes(3).toString('hex')}`;
  const current = cluster.kubectlJson<{ spec: { ephemeralContainers?: unknown[] } }>([
    'get',
    'pod',
    pod,
    '-n',
    namespace,
  ]);
  const patch = {
    spec: {
      ephemeralContainers: [
        ...(current.spec.ephemeralContainers ?? []),
        {
          name,
          image: node.probeImage,
          imagePullPolicy: 'Never',
          args: ['idle'],
          securityContext: {
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
            runAsNonRoot: true,
            runAsUser: 65532,
            seccompProfile: { type: 'RuntimeDefault' },
          },
        },
      ],
    },
  };
  cluster.kubectlOk([
    'patch',
    'pod',
    pod,
    '-n',
    namespace,
    '--subresource=ephemeralcontainers',
    '--type=strategic',
    '-p',
    JSON.stringify(patch),
  ]);
  type ProbedPod = {
    metadata: { deletionTimestamp?: string };
    status: {
      phase?: string;
      ephemeralContainerStatuses?: { name: string; state?: { running?: unknown } }[];
    };
  };
  const deadline = Date.now() + 60_000;
  let last: ProbedPod | undefined;
  while (Date.now() < deadline) {
    last = cluster.kubectlJson<ProbedPod>(['get', 'pod', pod, '-n', namespace]);
    const status = last.status.ephemeralContainerStatuses?.find((s) => s.name === name);
    if (status?.state?.running) return name;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const events = cluster.kubectl([
    'get',
    'events',
    '-n',
    namespace,
    `--field-selector=involvedObject.name=${pod}`,
  ]).stdout;
  throw new Error(
    `the ephemeral probe ${name} in ${namespace}/${pod} did not start within 60 s: pod phase ${last?.status.phase}` +
      `${last?.metadata.deletionTimestamp ? `, terminating since ${last.metadata.deletionTimestamp}` : ''}, ` +
      `probe status ${JSON.stringify(last?.status.ephemeralContainerStatuses?.find((s) => s.name === name) ?? null)}\n${events}`,
  );
}

/** A listening socket on the fake public host (`address:port` in the node's "internet" namespace). */
export function listenOnInternet(node: NodeHandle, address: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'ip',
      ['netns', 'exec', node.internetNamespace, process.execPath, LISTENER, address, String(port)],
      {
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('message', (message, handle) => {
      if (message === 'listening' && handle) resolve(handle as Server);
      else reject(new Error(`listener on ${address}:${port}: ${String(message)}`));
    });
    child.once('exit', (code) =>
      reject(new Error(`listener on ${address}:${port} exited ${code}: ${stderr}`)),
    );
  });
}
