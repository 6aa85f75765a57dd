/**
 * What the pod diagram draws, read from a render: every workload's pod (containers, what they listen on,
 * volumes and who mounts them), who may call which MCP server, and each pod's effective egress. Pods come
 * from the rendered workloads, so any number of pods is drawn; the plan says which container is what.
 */
import {
  allPodEgress,
  describeDestination,
  describePorts,
} from '../../../constructs/src/effective-egress.ts';
import { mcpServerEntries } from '../../../constructs/src/mcp-client-configs.ts';
import type { AgentPlan } from '../../../constructs/src/plan.ts';
import type { KubeObject } from '../../../constructs/src/render.ts';

export type ContainerRole = 'backend' | 'toolchain' | 'gateway' | 'init' | 'other';

export interface Listener {
  readonly port: number;
  /** `127.0.0.1` for MCP inside the pod, `pod IP` for what the pod network reaches. */
  readonly host: string;
  readonly what: string;
}

export interface PodContainer {
  readonly name: string;
  readonly role: ContainerRole;
  readonly image: string;
  readonly listens: readonly Listener[];
  /** `volume → path`, `(ro)` when read-only. */
  readonly mounts: readonly string[];
}

export interface PodVolume {
  readonly name: string;
  /** Where its data comes from, e.g. `emptyDir`, `configMap reviewer-mcp-clients`. */
  readonly source: string;
  /** `container → path` for each mount, `(ro)` when read-only. */
  readonly mounts: readonly string[];
}

export interface DiagramPod {
  readonly name: string;
  readonly kind: string;
  readonly serviceAccount: string;
  readonly containers: readonly PodContainer[];
  readonly volumes: readonly PodVolume[];
}

export type Endpoint = { readonly pod: string; readonly container: string } | { readonly external: string };

export interface McpCall {
  readonly from: { readonly pod: string; readonly container: string };
  readonly to: Endpoint;
  readonly server: string;
  readonly url: string;
}

export interface External {
  readonly id: string;
  readonly label: string;
}

export interface PodEgressEdge {
  readonly pod: string;
  readonly to: string;
  readonly ports: string;
  readonly purpose: string;
}

export interface PodDiagramModel {
  readonly pods: readonly DiagramPod[];
  readonly externals: readonly External[];
  readonly calls: readonly McpCall[];
  readonly egress: readonly PodEgressEdge[];
}

interface ContainerSpec {
  readonly name: string;
  readonly image?: string;
  readonly ports?: readonly { readonly containerPort: number; readonly name?: string }[];
  readonly volumeMounts?: readonly {
    readonly name: string;
    readonly mountPath: string;
    readonly readOnly?: boolean;
  }[];
}

interface PodTemplate {
  readonly serviceAccountName?: string;
  readonly containers?: readonly ContainerSpec[];
  readonly initContainers?: readonly ContainerSpec[];
  readonly volumes?: readonly Record<string, unknown>[];
}

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

function volumeSource(volume: Record<string, unknown>): string {
  if (volume['emptyDir']) {
    const dir = volume['emptyDir'] as { medium?: string };
    return dir.medium ? `emptyDir (${dir.medium})` : 'emptyDir';
  }
  if (volume['configMap']) return `configMap ${(volume['configMap'] as { name: string }).name}`;
  if (volume['secret']) return `secret ${(volume['secret'] as { secretName: string }).secretName}`;
  if (volume['persistentVolumeClaim'])
    return `claim ${(volume['persistentVolumeClaim'] as { claimName: string }).claimName}`;
  if (volume['projected']) {
    const sources = (volume['projected'] as { sources?: Record<string, unknown>[] }).sources ?? [];
    return sources.some((s) => s['serviceAccountToken']) ? 'projected ServiceAccount token' : 'projected';
  }
  return Object.keys(volume).find((k) => k !== 'name') ?? 'volume';
}

export function podDiagramModel(plan: AgentPlan, objects: readonly KubeObject[]): PodDiagramModel {
  const backends = new Set(plan.backends.map((b) => b.name));
  const toolchains = new Map(plan.toolchains.map((t) => [t.containerName, t]));
  const gatewayPods = new Map(
    plan.gateways.flatMap((g) => (g.kind === 'deployed' ? [[g.objectName, g] as const] : [])),
  );
  const pods: DiagramPod[] = [];
  for (const object of objects) {
    if (!WORKLOADS.has(object.kind)) continue;
    const spec = object['spec'] as {
      template?: { spec?: PodTemplate };
      volumeClaimTemplates?: readonly { metadata: { name: string } }[];
    };
    const template = spec.template?.spec ?? {};
    const role = (name: string): ContainerRole =>
      backends.has(name)
        ? 'backend'
        : toolchains.has(name)
          ? 'toolchain'
          : gatewayPods.has(object.metadata.name)
            ? 'gateway'
            : 'other';
    const describe = (c: ContainerSpec, init: boolean): PodContainer => {
      const listens: Listener[] = [];
      const toolchain = toolchains.get(c.name);
      if (toolchain && !init) listens.push({ port: toolchain.port, host: '127.0.0.1', what: 'MCP' });
      for (const p of c.ports ?? []) {
        const what = toolchain && p.containerPort === toolchain.healthPort ? 'probes' : (p.name ?? 'port');
        listens.push({ port: p.containerPort, host: 'pod IP', what });
      }
      const mounts = (c.volumeMounts ?? []).map(
        (m) => `${m.name} → ${m.mountPath}${m.readOnly ? ' (ro)' : ''}`,
      );
      return { name: c.name, role: init ? 'init' : role(c.name), image: c.image ?? '', listens, mounts };
    };
    const containers = [
      ...(template.initContainers ?? []).map((c) => describe(c, true)),
      ...(template.containers ?? []).map((c) => describe(c, false)),
    ];
    const mountsOf = (volume: string) =>
      [...(template.initContainers ?? []), ...(template.containers ?? [])].flatMap((c) =>
        (c.volumeMounts ?? [])
          .filter((m) => m.name === volume)
          .map((m) => `${c.name} → ${m.mountPath}${m.readOnly ? ' (ro)' : ''}`),
      );
    const volumes: PodVolume[] = [
      ...(template.volumes ?? []).map((v) => ({
        name: String(v['name']),
        source: volumeSource(v),
        mounts: mountsOf(String(v['name'])),
      })),
      ...(spec.volumeClaimTemplates ?? []).map((t) => ({
        name: t.metadata.name,
        source: 'claim template',
        mounts: mountsOf(t.metadata.name),
      })),
    ];
    pods.push({
      name: object.metadata.name,
      kind: object.kind,
      serviceAccount: template.serviceAccountName ?? 'default',
      containers,
      volumes,
    });
  }

  const podOf = (container: string) =>
    pods.find((p) => p.containers.some((c) => c.name === container && c.role !== 'init'))?.name;
  const externals = new Map<string, External>();
  const external = (id: string, label: string) => {
    if (!externals.has(id)) externals.set(id, { id, label });
    return id;
  };

  const calls: McpCall[] = [];
  const servers = mcpServerEntries(plan);
  for (const backend of plan.backends) {
    const pod = podOf(backend.name);
    if (!pod) continue;
    for (const server of servers) {
      const toolchain = plan.toolchains.find(
        (t) => t.serverName === server.name && server.kind === 'toolchain',
      );
      const gateway = plan.gateways.find((g) => g.name === server.name && server.kind === 'gateway');
      let to: Endpoint | undefined;
      if (toolchain) {
        const target = podOf(toolchain.containerName);
        if (target) to = { pod: target, container: toolchain.containerName };
      } else if (gateway?.kind === 'deployed') to = { pod: gateway.objectName, container: gateway.name };
      else if (gateway)
        to = { external: external(`mcp:${gateway.name}`, `MCP gateway ${gateway.name} (${gateway.url})`) };
      if (to)
        calls.push({ from: { pod, container: backend.name }, to, server: server.name, url: server.url });
    }
  }

  const egress: PodEgressEdge[] = [];
  for (const podEgress of allPodEgress(plan)) {
    if (!pods.some((p) => p.name === podEgress.pod)) continue;
    if (!podEgress.restricted) {
      egress.push({
        pod: podEgress.pod,
        to: external('net:unrestricted', 'anywhere (NetworkPolicies disabled)'),
        ports: 'all ports',
        purpose: 'unrestricted',
      });
      continue;
    }
    for (const grant of podEgress.grants) {
      // A gateway's pods are drawn: the MCP calls to them say more than the egress rule.
      if (grant.to.kind === 'gateway') continue;
      const destination = describeDestination(grant.to);
      egress.push({
        pod: podEgress.pod,
        to: external(`net:${destination}`, grant.to.kind === 'dns' ? 'cluster DNS' : destination),
        ports: describePorts(grant.ports),
        purpose: grant.purpose,
      });
    }
  }
  return { pods, externals: [...externals.values()], calls, egress };
}
