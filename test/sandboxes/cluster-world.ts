/**
 * Sandboxes on the real test cluster, shared by test/cluster/e2e/sandboxes.e2e.ts and bench/sandboxes.ts:
 *
 * - agent-sandbox's controller, built from its pinned module (test/cluster/binaries.ts), started as a process of
 *   the cluster with its CRDs applied as the release ships them, but for one change: conversion `None`. The
 *   controller is run with its webhook off (`--enable-webhook=false`; the conversion webhook would need a Service
 *   reaching a process on the host's loopback), which its own help says requires it; every object toolyard writes
 *   and reads is `v1beta1`, the storage version, so no conversion is ever asked for.
 * - an agent rendered by toolyard with `spec.sandboxes`, applied server-side in a namespace where Pod Security
 *   `restricted` is enforced, with the test's values for its Secrets;
 * - the sandbox pods run by `SandboxNode` on a `NodeNetwork`;
 * - the sandbox manager as its own process (uid 65532) in its pod's network namespace, with the rendered config
 *   and a bound token of its rendered ServiceAccount, so every request it makes passes its Role for real.
 *
 * Test-only changes to the manager's rendered config, all in the file it reads: where the API server is (the
 * forwarded 127.0.0.1) and the files of its tokens and CA, the lifecycle interval, and per template the idle
 * timeout and retention (the spec counts them in minutes and hours).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { type KubeObject as RenderedObject, renderAgent } from '../../constructs/src/render.ts';
import { KubeClient } from '../../toolchain-server/sandbox-manager/kube-client.ts';
import { SANDBOX_MANAGER_BUNDLE_PATH } from '../../toolchain-server/scripts/bundle.ts';
import { listeningPort } from '../../toolchain-server/scripts/listening-port.ts';
import { SERVER_NODE_FLAGS } from '../../toolchain-server/src/launch.ts';
import { buildAgentSandbox } from '../cluster/binaries.ts';
import type { ClusterClient } from '../cluster/client.ts';
import { applyObjects, restrictedNamespace, waitFor } from '../cluster/e2e/support.ts';
import { freePort } from '../support/free-port.ts';
import { type SocketMcpClient, socketMcpClient } from './mcp-over-socket.ts';
import { MANAGER_POD_IP, NodeNetwork } from './node-network.ts';
import { SandboxNode } from './sandbox-node.ts';

const MANAGER_ENTRY = fileURLToPath(
  new URL('../../toolchain-server/bin/toolyard-sandbox-manager.js', import.meta.url),
);
const POD_UID = 65532;

export const TOKENS = {
  backends: 'backends-token-of-the-sandbox-e2e-0123456789',
  bootstrap: 'bootstrap-token-of-the-sandbox-e2e-0123456789',
} as const;

// ----------------------------------------------------------------------------------------------------------
// agent-sandbox's controller

export interface Controller {
  readonly process: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

/** The release's CRDs with conversion `None` (see the module comment), as JSON objects. */
export function agentSandboxCrds(): Record<string, unknown>[] {
  return buildAgentSandbox().crds.map((file) => {
    const crd = parseAllDocuments(readFileSync(file, 'utf8'))[0]?.toJS() as Record<string, unknown>;
    const spec = crd.spec as Record<string, unknown>;
    spec.conversion = { strategy: 'None' };
    return crd;
  });
}

export async function startAgentSandbox(cluster: ClusterClient, dir: string): Promise<Controller> {
  const crds = agentSandboxCrds();
  applyObjects(cluster, crds);
  for (const crd of crds)
    cluster.kubectlOk([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      `crd/${(crd.metadata as { name: string }).name}`,
    ]);
  const [probe, metrics] = await Promise.all([freePort(), freePort()]);
  const binaries = buildAgentSandbox();
  let log = '';
  const child = spawn(
    binaries.controller,
    [
      '--extensions',
      '--enable-webhook=false',
      '--leader-elect=false',
      `--health-probe-bind-address=127.0.0.1:${probe}`,
      `--metrics-bind-address=127.0.0.1:${metrics}`,
      '--zap-log-level=info',
    ],
    { env: { KUBECONFIG: cluster.kubeconfig, HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (c: Buffer) => {
    log = (log + c.toString()).slice(-200_000);
  });
  child.stderr?.on('data', (c: Buffer) => {
    log = (log + c.toString()).slice(-200_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(
    'the agent-sandbox controller to be healthy',
    () => {
      if (child.exitCode !== null) throw new Error(`the controller exited ${child.exitCode}:\n${log}`);
      return readyz(probe);
    },
    60_000,
    () => log.slice(-3000),
  );
  return {
    process: child,
    log: () => log,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

let healthy = false;
function readyz(port: number): boolean {
  void fetch(`http://127.0.0.1:${port}/readyz`)
    .then((r) => {
      healthy = r.ok;
    })
    .catch(() => {
      healthy = false;
    });
  return healthy;
}

// ----------------------------------------------------------------------------------------------------------
// The agent

export interface TemplateOptions {
  readonly name: string;
  readonly warmPool?: number;
  /** Overrides of the manager's config (the spec's units are minutes and hours). */
  readonly idleTimeoutSeconds?: number;
  readonly retentionSeconds?: number;
  /** Code mode: Python programs (`sandbox_run_code`) that call this template's own tools. */
  readonly codeMode?: boolean;
}

export interface WorldOptions {
  readonly agent: string;
  readonly namespace: string;
  readonly provider: 'agent-sandbox' | 'kubernetes';
  readonly templates: readonly TemplateOptions[];
  readonly quota?: { readonly maxSandboxes?: number; readonly maxSessions?: number };
  readonly dir: string;
}

export function sandboxAgentSpec(options: WorldOptions): string {
  return stringify({
    apiVersion: 'toolyard.dev/v1alpha1',
    kind: 'Agent',
    metadata: { name: options.agent, namespace: options.namespace },
    spec: {
      backends: [
        {
          name: 'claude',
          type: 'claude',
          image: { repository: 'ghcr.io/example/claude', tag: '1' },
          port: 8080,
          model: { apiKeySecret: { name: `${options.agent}-claude`, key: 'api-key' } },
        },
      ],
      // The manager holds Kubernetes authority: the test cluster's API server, its Service's ClusterIP.
      networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1/32'], ports: [443] } },
      sandboxes: {
        provider: options.provider,
        auth: { bearerTokenSecret: { name: `${options.agent}-sandboxes-token`, key: 'token' } },
        bootstrapTokenSecret: { name: `${options.agent}-sandbox-bootstrap`, key: 'token' },
        quota: {
          maxSandboxes: options.quota?.maxSandboxes ?? 10,
          maxSessions: options.quota?.maxSessions ?? 100,
        },
        templates: options.templates.map((t) => ({
          name: t.name,
          image: { repository: 'ghcr.io/toolyard/toolchain-go-python', tag: '0.1.0' },
          injectServer: false,
          tools: {
            mode: 'exec',
            allowedCommands: ['sh', 'cat', 'ls', 'sort', 'wc', 'python3'],
            ...(t.codeMode ? { codeMode: { languages: ['python'], servers: [t.name] } } : {}),
          },
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
          workspace: { storage: '1Gi', storageClassName: 'standard' },
          ...(options.provider === 'agent-sandbox' ? { warmPool: { replicas: t.warmPool ?? 1 } } : {}),
        })),
      },
    },
  });
}

export function renderSandboxAgent(options: WorldOptions): RenderedObject[] {
  const checked = checkSpecText(sandboxAgentSpec(options), `${options.agent}.yaml`);
  if (!checked.ok) throw new Error(checked.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return [...renderAgent(checked.specs[0]!.agent).objects];
}

function secretObject(
  namespace: string,
  name: string,
  data: Record<string, string>,
): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, stringData: data };
}

/** The Secrets the agent's pods mount, with the test's values. */
export function testSecrets(options: WorldOptions): Map<string, Record<string, string>> {
  return new Map<string, Record<string, string>>([
    [`${options.agent}-sandboxes-token`, { token: TOKENS.backends }],
    [`${options.agent}-sandbox-bootstrap`, { token: TOKENS.bootstrap }],
    [`${options.agent}-claude`, { 'api-key': 'not-a-real-key' }],
    [`${options.agent}-broker-tokens`, { claude: 'broker-token-claude' }],
  ]);
}

// ----------------------------------------------------------------------------------------------------------
// The world

export interface SandboxWorld {
  readonly options: WorldOptions;
  readonly objects: readonly RenderedObject[];
  readonly network: NodeNetwork;
  readonly node: SandboxNode;
  /** The manager's own ServiceAccount credentials, as a kubeconfig (for `kubectl auth can-i`). */
  readonly managerKubeconfig: string;
  /** The manager process (for its resident memory). */
  readonly managerPid: number;
  /** Every line the manager printed. */
  managerLines(): Record<string, unknown>[];
  managerOutput(): string;
  /** A backend's MCP client of the manager (through the agent pod's namespace). */
  client(): Promise<SocketMcpClient>;
  stop(): Promise<void>;
}

/** A kube client with a ServiceAccount's bound token (for the node emulation's pod watch). */
function serviceAccountClient(
  cluster: ClusterClient,
  namespace: string,
  name: string,
  dir: string,
): KubeClient {
  const token = cluster.kubectlOk(['create', 'token', name, '-n', namespace, '--duration=7200s']).trim();
  const tokenFile = join(dir, `${name}.token`);
  writeFileSync(tokenFile, token, { mode: 0o600 });
  return new KubeClient({ server: cluster.server, tokenFile, caFile: cluster.pki.ca.cert });
}

function ownedDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chownSync(path, POD_UID, POD_UID);
  return path;
}

function ownedFile(path: string, content: string): string {
  writeFileSync(path, content, { mode: 0o400 });
  chownSync(path, POD_UID, POD_UID);
  return path;
}

export async function startSandboxWorld(
  cluster: ClusterClient,
  options: WorldOptions,
): Promise<SandboxWorld> {
  const { namespace, agent } = options;
  restrictedNamespace(cluster, namespace);
  const objects = renderSandboxAgent(options);
  const secrets = testSecrets(options);
  applyObjects(
    cluster,
    [...secrets].map(([name, data]) => secretObject(namespace, name, data)),
  );
  applyObjects(cluster, objects);

  // The node emulation reads pods and claims with a ServiceAccount of its own (as a kubelet reads its pods).
  applyObjects(cluster, [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'node-emulation', namespace } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'node-emulation', namespace },
      rules: [
        { apiGroups: [''], resources: ['pods', 'persistentvolumeclaims'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'node-emulation', namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'node-emulation' },
      subjects: [{ kind: 'ServiceAccount', name: 'node-emulation', namespace }],
    },
  ]);
  mkdirSync(options.dir, { recursive: true });
  // Its pods' uid must reach the files in here (each in a directory of its own, 0700), and so every parent.
  for (let d = options.dir; d !== dirname(d) && d.startsWith(tmpdir()) && d !== tmpdir(); d = dirname(d))
    chmodSync(d, 0o755);
  const network = new NodeNetwork();
  const cleanup: Array<() => Promise<void> | void> = [() => network.remove()];
  try {
    const node = new SandboxNode({
      kube: serviceAccountClient(cluster, namespace, 'node-emulation', options.dir),
      network,
      namespace,
      selector: `toolyard.dev/agent=${agent}`,
      objects,
      secrets,
      dir: join(options.dir, 'node'),
    });
    cleanup.unshift(() => node.stop());
    await node.start();

    // The manager: its rendered config, its ServiceAccount's bound token, in its pod's namespace as uid 65532.
    const apiPort = Number(new URL(cluster.server).port);
    await network.forwardToHost(apiPort);
    const own = ownedDir(join(options.dir, 'manager'));
    const managerName = `${agent}-sandboxes`;
    const rendered = objects.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name === managerName,
    ) as unknown as {
      data: Record<string, string>;
    };
    const config = JSON.parse(rendered.data['config.json'] as string) as Record<string, unknown>;
    const saToken = cluster
      .kubectlOk(['create', 'token', managerName, '-n', namespace, '--duration=7200s'])
      .trim();
    copyFileSync(cluster.pki.ca.cert, join(own, 'ca.crt'));
    chownSync(join(own, 'ca.crt'), POD_UID, POD_UID);
    const templates = (config.templates as Record<string, unknown>[]).map((t) => {
      const wanted = options.templates.find((o) => o.name === t.name);
      return {
        ...t,
        ...(wanted?.idleTimeoutSeconds !== undefined
          ? { idleTimeoutSeconds: wanted.idleTimeoutSeconds }
          : {}),
        ...(wanted?.retentionSeconds !== undefined ? { retentionSeconds: wanted.retentionSeconds } : {}),
      };
    });
    const configFile = ownedFile(
      join(own, 'config.json'),
      JSON.stringify({
        ...config,
        kubernetes: {
          server: cluster.server,
          tokenFile: ownedFile(join(own, 'sa-token'), saToken),
          caFile: join(own, 'ca.crt'),
        },
        auth: { bearerTokenFile: ownedFile(join(own, 'auth-token'), TOKENS.backends) },
        bootstrapTokenFile: ownedFile(join(own, 'bootstrap-token'), TOKENS.bootstrap),
        lifecycleIntervalSeconds: 1,
        templates,
      }),
    );
    // The bundle as the image runs it (its node flags), else the sources.
    const entry = existsSync(SANDBOX_MANAGER_BUNDLE_PATH)
      ? [...SERVER_NODE_FLAGS, SANDBOX_MANAGER_BUNDLE_PATH]
      : [MANAGER_ENTRY];
    const argv = network.exec('mgr', [
      'setpriv',
      `--reuid=${POD_UID}`,
      `--regid=${POD_UID}`,
      '--clear-groups',
      '--',
      process.execPath,
      ...entry,
      '--config',
      configFile,
    ]);
    const manager = spawn(argv[0] as string, argv.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin' },
      cwd: '/',
    });
    let stderr = '';
    manager.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const lines: Record<string, unknown>[] = [];
    const managerPort = await listeningPort(manager, {
      onEvent: (event) => lines.push(event),
      describe: () => stderr,
    });
    const exited = new Promise<void>((resolve) => manager.once('exit', () => resolve()));
    cleanup.unshift(async () => {
      manager.kill('SIGTERM');
      await exited;
    });
    const socket = join(options.dir, 'manager.sock');
    const stopForward = await network.forwardFromAgent(socket, MANAGER_POD_IP, managerPort);
    const managerKubeconfig = cluster.serviceAccountKubeconfig(namespace, managerName);
    const host = `${managerName}.${namespace}.svc`;
    return {
      options,
      objects,
      network,
      node,
      managerKubeconfig,
      managerPid: manager.pid as number,
      managerLines: () => lines,
      managerOutput: () => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n${stderr}`,
      client: () => socketMcpClient(socket, host, TOKENS.backends),
      stop: async () => {
        stopForward();
        manager.kill('SIGTERM');
        await exited;
        await node.stop();
        network.remove();
      },
    };
  } catch (error) {
    for (const step of cleanup) await step();
    throw error;
  }
}
