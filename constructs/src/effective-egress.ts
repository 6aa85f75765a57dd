/**
 * NetworkPolicy selects pods, not containers: a pod's egress is the union of what its containers need.
 * This module computes that union per pod, says who needs each grant, and warns where a container asked
 * for less than its pod will have. A toolchain with `placement: pod` is its pod's only container, so its
 * pod's egress is exactly what it declares, and the agent pod only needs to reach its MCP port.
 */

import { isParsedCidr, parseCidr } from '../../schema/src/cidr.ts';
import type { AcknowledgeableWarning } from './acknowledgeable-warnings.ts';
import { deployedGateways, podToolchains, sidecarToolchains } from './plan.ts';
import type {
  AgentPlan,
  EgressHost,
  EgressRule,
  PlannedDeployedGateway,
  PlannedRoute,
  PlannedSandboxes,
  PlannedSandboxTemplate,
  PodToolchain,
} from './plan-types.ts';

export type EgressDestination =
  | { readonly kind: 'dns'; readonly namespace: string; readonly podLabels: Readonly<Record<string, string>> }
  | { readonly kind: 'cidrs'; readonly cidrs: readonly string[] }
  | {
      readonly kind: 'gateway';
      readonly gateway: string;
      readonly podLabels: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: 'toolchain';
      /** The toolchain pod's object name. */
      readonly toolchain: string;
      readonly podLabels: Readonly<Record<string, string>>;
    }
  /** The sandbox manager (`name`: its object name) or a template's sandbox pods (`name`: the template's). */
  | { readonly kind: 'sandbox'; readonly name: string; readonly podLabels: Readonly<Record<string, string>> }
  /** The agent's broker, on its proxy port: routes and CONNECT, per caller token. */
  | { readonly kind: 'broker'; readonly broker: string; readonly podLabels: Readonly<Record<string, string>> }
  /** An in-cluster OpenTelemetry collector (`spec.observability`), in its own namespace. */
  | {
      readonly kind: 'collector';
      readonly namespace: string;
      readonly podLabels: Readonly<Record<string, string>>;
    }
  /** Every public address: `0.0.0.0/0` and `::/0` minus the denied ranges (the broker's own egress). */
  | {
      readonly kind: 'internet';
      readonly blocks: readonly { readonly cidr: string; readonly except: readonly string[] }[];
    }
  | { readonly kind: 'anywhere' };

export interface EgressPort {
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP';
}

/** One allowed egress destination of a pod, and the containers that need it. */
export interface EgressGrant {
  readonly purpose: string;
  readonly to: EgressDestination;
  /** Empty means every port. */
  readonly ports: readonly EgressPort[];
  readonly neededBy: readonly string[];
}

export interface PodEgress {
  readonly pod: string;
  readonly containers: readonly string[];
  /** False when NetworkPolicies are disabled: the pod's egress is then unrestricted. */
  readonly restricted: boolean;
  readonly grants: readonly EgressGrant[];
}

export type { AcknowledgeableWarning } from './acknowledgeable-warnings.ts';

/** Something that renders but deserves attention. */
export interface RenderWarning {
  readonly code: AcknowledgeableWarning | 'stale-acknowledgement' | 'deprecated-registries-egress';
  /** The toolchain or gateway the warning is about, for codes that name one. */
  readonly subject?: string;
  readonly path: string;
  readonly message: string;
}

const DNS_PORTS: readonly EgressPort[] = [
  { port: 53, protocol: 'UDP' },
  { port: 53, protocol: 'TCP' },
];

function tcp(ports: readonly number[]): EgressPort[] {
  return ports.map((port) => ({ port, protocol: 'TCP' }));
}

function cidrGrant(purpose: string, rule: EgressRule, neededBy: readonly string[]): EgressGrant {
  return { purpose, to: { kind: 'cidrs', cidrs: rule.cidrs }, ports: tcp(rule.ports), neededBy };
}

/** The egress grants of the agent pod: its backends' and its toolchain sidecars' needs. */
export function agentPodEgress(plan: AgentPlan): PodEgress {
  const backends = plan.backends.map((b) => b.name);
  const toolchains = sidecarToolchains(plan);
  const everyone = [...backends, ...toolchains.map((t) => t.containerName)];
  const grants: EgressGrant[] = [
    {
      purpose: 'cluster DNS',
      to: { kind: 'dns', ...plan.network.dns },
      ports: DNS_PORTS,
      neededBy: everyone,
    },
  ];
  for (const gateway of deployedGateways(plan)) {
    // A gateway the broker routes to is reached through the broker, which holds its token.
    if (gateway.route) continue;
    grants.push({
      purpose: `MCP gateway "${gateway.name}"`,
      to: { kind: 'gateway', gateway: gateway.objectName, podLabels: gateway.selector },
      ports: tcp([gateway.port]),
      neededBy: backends,
    });
  }
  for (const toolchain of podToolchains(plan)) {
    grants.push({
      purpose: `toolchain "${toolchain.name}" (its own pod)`,
      to: { kind: 'toolchain', toolchain: toolchain.pod.objectName, podLabels: toolchain.pod.selector },
      ports: tcp([toolchain.port]),
      neededBy: backends,
    });
  }
  if (plan.sandboxes) {
    grants.push({
      purpose: 'sandbox manager',
      to: { kind: 'sandbox', name: plan.sandboxes.objectName, podLabels: plan.sandboxes.selector },
      ports: tcp([plan.sandboxes.port]),
      neededBy: backends,
    });
  }
  if (plan.broker.enabled) {
    const callers = plan.broker.callers.filter((c) => c.pod === plan.names.workload).map((c) => c.name);
    if (callers.length > 0) grants.push(brokerGrant(plan, callers));
    if (plan.rbacPreset !== 'none' && plan.network.apiServerEgress) {
      grants.push(cidrGrant('Kubernetes API server', plan.network.apiServerEgress, backends));
    }
    return { pod: plan.names.workload, containers: everyone, restricted: plan.network.enabled, grants };
  }
  grants.push(cidrGrant('model providers', plan.network.modelEgress, backends));
  for (const gateway of plan.gateways) {
    if (gateway.kind === 'external' && gateway.egress) {
      grants.push(cidrGrant(`external MCP gateway "${gateway.name}"`, gateway.egress, backends));
    }
  }
  if (plan.rbacPreset !== 'none' && plan.network.apiServerEgress) {
    grants.push(cidrGrant('Kubernetes API server', plan.network.apiServerEgress, backends));
  }
  const registryUsers = toolchains.filter((t) => t.egress === 'registries').map((t) => t.containerName);
  if (registryUsers.length > 0) {
    grants.push(cidrGrant('package registries', plan.network.registryEgress, registryUsers));
  }
  const openUsers = toolchains.filter((t) => t.egress === 'open').map((t) => t.containerName);
  if (openUsers.length > 0) {
    grants.push({ purpose: 'open egress', to: { kind: 'anywhere' }, ports: [], neededBy: openUsers });
  }
  return { pod: plan.names.workload, containers: everyone, restricted: plan.network.enabled, grants };
}

/** The egress grants of a deployed gateway's pods. */
export function gatewayPodEgress(plan: AgentPlan, gateway: PlannedDeployedGateway): PodEgress {
  const container = gateway.name;
  const grants: EgressGrant[] = [
    {
      purpose: 'cluster DNS',
      to: { kind: 'dns', ...plan.network.dns },
      ports: DNS_PORTS,
      neededBy: [container],
    },
  ];
  if (gateway.kubernetes && plan.network.apiServerEgress) {
    grants.push(cidrGrant('Kubernetes API server', plan.network.apiServerEgress, [container]));
  }
  if (gateway.egress) grants.push(cidrGrant('declared gateway egress', gateway.egress, [container]));
  return { pod: gateway.objectName, containers: [container], restricted: plan.network.enabled, grants };
}

/**
 * The egress grants of a toolchain's own pod: exactly its declared posture. `none` allows nothing, not even
 * DNS: the toolchain server resolves no names (it only answers its Service's connections), and DNS is a
 * channel out of the cluster. `registries` adds cluster DNS to the registries, whose names tools resolve.
 */
export function toolchainPodEgress(plan: AgentPlan, toolchain: PodToolchain): PodEgress {
  const container = toolchain.containerName;
  const grants: EgressGrant[] = [];
  if (plan.broker.enabled) {
    // Egress by name, or telemetry through the otlp route (spec.observability): the broker, found by name.
    if (toolchain.namedEgress.kind !== 'none' || plan.observability.enabled)
      grants.push(
        {
          purpose: 'cluster DNS',
          to: { kind: 'dns', ...plan.network.dns },
          ports: DNS_PORTS,
          neededBy: [container],
        },
        brokerGrant(plan, [container]),
      );
    return {
      pod: toolchain.pod.objectName,
      containers: [container],
      restricted: plan.network.enabled,
      grants,
    };
  }
  if (toolchain.egress === 'registries') {
    grants.push(
      {
        purpose: 'cluster DNS',
        to: { kind: 'dns', ...plan.network.dns },
        ports: DNS_PORTS,
        neededBy: [container],
      },
      cidrGrant('package registries', plan.network.registryEgress, [container]),
    );
  }
  if (toolchain.egress === 'open') {
    grants.push({ purpose: 'open egress', to: { kind: 'anywhere' }, ports: [], neededBy: [container] });
  }
  return {
    pod: toolchain.pod.objectName,
    containers: [container],
    restricted: plan.network.enabled,
    grants,
  };
}

function brokerGrant(plan: AgentPlan, neededBy: readonly string[]): EgressGrant {
  return {
    purpose: 'broker (model and gateway routes, egress by name)',
    to: { kind: 'broker', broker: plan.broker.objectName, podLabels: plan.broker.selector },
    ports: tcp([plan.broker.port]),
    neededBy,
  };
}

/**
 * `0.0.0.0/0` and `::/0`, each minus the denied ranges of its family. IPv4-mapped ranges (`::ffff:0:0/96`) stay
 * with the broker, which unmaps the addresses it resolves: no packet carries such an address (a connection to one
 * is an IPv4 connection, which the IPv4 ranges cover), and the API server refuses them in an `ipBlock`.
 */
export function internetBlocks(deniedCidrs: readonly string[]): { cidr: string; except: string[] }[] {
  const v6 = (cidr: string) => cidr.includes(':');
  const inPolicy = (cidr: string) => {
    const parsed = parseCidr(cidr);
    return !isParsedCidr(parsed) || !parsed.ipv4Mapped;
  };
  return [
    { cidr: '0.0.0.0/0', except: deniedCidrs.filter((c) => !v6(c) && c !== '0.0.0.0/0') },
    { cidr: '::/0', except: deniedCidrs.filter((c) => v6(c) && c !== '::/0' && inPolicy(c)) },
  ];
}

/**
 * The broker pod's egress: cluster DNS (it resolves every name itself), the public internet on its
 * `egressPorts` minus the denied ranges, and the deployed gateways it routes to.
 */
export function brokerPodEgress(plan: AgentPlan): PodEgress {
  const container = 'broker';
  const grants: EgressGrant[] = [
    {
      purpose: 'cluster DNS',
      to: { kind: 'dns', ...plan.network.dns },
      ports: DNS_PORTS,
      neededBy: [container],
    },
    {
      purpose: 'public internet (model providers, external gateways, egress by name)',
      to: { kind: 'internet', blocks: internetBlocks(plan.broker.deniedCidrs) },
      ports: tcp(plan.broker.egressPorts),
      neededBy: [container],
    },
  ];
  for (const route of plan.broker.routes) {
    if (!route.inCluster) continue;
    if (route.kind === 'telemetry') {
      grants.push({
        purpose: `OpenTelemetry collector (route ${route.name})`,
        to: {
          kind: 'collector',
          namespace: route.inCluster.namespace ?? plan.namespace,
          podLabels: route.inCluster.podLabels,
        },
        ports: tcp([route.inCluster.port]),
        neededBy: [container],
      });
      continue;
    }
    grants.push({
      purpose: `MCP gateway "${route.owner}" (route ${route.name})`,
      to: { kind: 'gateway', gateway: plan.names.gateway(route.owner), podLabels: route.inCluster.podLabels },
      ports: tcp([route.inCluster.port]),
      neededBy: [container],
    });
  }
  return { pod: plan.broker.objectName, containers: [container], restricted: plan.network.enabled, grants };
}

/**
 * The sandbox manager's egress: the Kubernetes API server (it is the only holder of authority over the
 * sandboxes) and each template's sandbox pods on their server port. No DNS: it resolves no names.
 */
export function sandboxManagerPodEgress(plan: AgentPlan, sandboxes: PlannedSandboxes): PodEgress {
  const container = 'sandbox-manager';
  return {
    pod: sandboxes.objectName,
    containers: [container],
    restricted: plan.network.enabled,
    grants: [
      // Unset, validation refuses the spec (api-server-egress.ts): the manager holds Kubernetes authority.
      ...(plan.network.apiServerEgress
        ? [cidrGrant('Kubernetes API server', plan.network.apiServerEgress, [container])]
        : []),
      ...sandboxes.templates.map((t) => ({
        purpose: `sandboxes of template "${t.name}"`,
        to: { kind: 'sandbox' as const, name: t.objectName, podLabels: t.selector },
        ports: tcp([t.toolchain.port]),
        neededBy: [container],
      })),
      // spec.observability: its spans go out through the broker's otlp route (DNS to find the broker).
      ...(plan.broker.callers.some((c) => c.role === 'sandbox-manager')
        ? [
            {
              purpose: 'cluster DNS',
              to: { kind: 'dns' as const, ...plan.network.dns },
              ports: DNS_PORTS,
              neededBy: [container],
            },
            brokerGrant(plan, [container]),
          ]
        : []),
    ],
  };
}

/**
 * A template's sandbox pods' egress: nothing at all (not even DNS), or, with egress by name, cluster DNS and the
 * broker, which allows the template's own list.
 */
export function sandboxPodEgress(plan: AgentPlan, template: PlannedSandboxTemplate): PodEgress {
  const container = 'sandbox';
  const byName = plan.broker.enabled && template.toolchain.namedEgress.kind !== 'none';
  return {
    pod: template.objectName,
    containers: [container],
    restricted: plan.network.enabled,
    grants: byName
      ? [
          {
            purpose: 'cluster DNS',
            to: { kind: 'dns', ...plan.network.dns },
            ports: DNS_PORTS,
            neededBy: [container],
          },
          brokerGrant(plan, [container]),
        ]
      : [],
  };
}

/**
 * Every generated pod's egress: the agent pod, toolchain pods in spec order, deployed gateways, the broker, the
 * sandbox manager and each sandbox template's pods.
 */
export function allPodEgress(plan: AgentPlan): PodEgress[] {
  return [
    agentPodEgress(plan),
    ...podToolchains(plan).map((t) => toolchainPodEgress(plan, t)),
    ...deployedGateways(plan).map((g) => gatewayPodEgress(plan, g)),
    ...(plan.broker.enabled ? [brokerPodEgress(plan)] : []),
    ...(plan.sandboxes
      ? [
          sandboxManagerPodEgress(plan, plan.sandboxes),
          ...plan.sandboxes.templates.map((t) => sandboxPodEgress(plan, t)),
        ]
      : []),
  ];
}

/** What one container may reach through the broker: its routes, and hosts by name (or any, `open`). */
export interface ContainerEgress {
  readonly container: string;
  readonly role: 'backend' | 'toolchain' | 'sandbox-manager';
  readonly pod: string;
  readonly routes: readonly PlannedRoute[];
  readonly hosts: readonly EgressHost[];
  /** Any public host on these ports (`network.egress: open`). */
  readonly openPorts: readonly number[];
}

/** Egress by name of every container that calls the broker (broker on; empty otherwise), in caller order. */
export function containerEgress(plan: AgentPlan): ContainerEgress[] {
  return plan.broker.callers.map((caller) => ({
    container: caller.name,
    role: caller.role,
    pod: caller.pod,
    routes: plan.broker.routes.filter((r) => caller.routes.includes(r.name)),
    hosts: caller.egress,
    openPorts: caller.openPorts,
  }));
}

export function describeHost(entry: EgressHost): string {
  return `${entry.host}:${entry.ports.join(',')}`;
}

export function describeDestination(to: EgressDestination): string {
  switch (to.kind) {
    case 'dns':
      return `DNS pods ${formatLabels(to.podLabels)} in namespace ${to.namespace}`;
    case 'collector':
      return `collector pods ${formatLabels(to.podLabels)} in namespace ${to.namespace}`;
    case 'cidrs':
      return to.cidrs.join(', ');
    case 'gateway':
      return `pods of ${to.gateway}`;
    case 'toolchain':
      return `pods of ${to.toolchain}`;
    case 'broker':
      return `pods of ${to.broker}`;
    case 'sandbox':
      return `pods of ${to.name}`;
    case 'internet':
      return to.blocks
        .map((b) => (b.except.length > 0 ? `${b.cidr} except ${b.except.join(', ')}` : b.cidr))
        .join('; ');
    case 'anywhere':
      return 'anywhere';
  }
}

export function describePorts(ports: readonly EgressPort[]): string {
  if (ports.length === 0) return 'all ports';
  return ports.map((p) => `${p.port}/${p.protocol}`).join(', ');
}

function formatLabels(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/**
 * Warnings where a toolchain gets more egress than it asked for, because its pod's other containers need it;
 * and where NetworkPolicies are off altogether.
 */
export function egressWarnings(plan: AgentPlan): RenderWarning[] {
  if (!plan.network.enabled) {
    return [
      {
        code: 'network-policies-disabled',
        path: '/spec/networkPolicy/enabled',
        message: 'NetworkPolicies are disabled: every generated pod has unrestricted ingress and egress',
      },
    ];
  }
  const pod = agentPodEgress(plan);
  const warnings: RenderWarning[] = [];
  if (!plan.broker.enabled)
    warnings.push({
      code: 'broker-disabled',
      path: '/spec/broker/enabled',
      message:
        'the broker is disabled: backends hold their provider keys and gateway tokens, and pods reach the internet by CIDR (networkPolicy.modelEgress, registryEgress), not by name; set broker.enabled: true (the default), or acknowledge broker-disabled',
    });
  plan.toolchains.forEach((toolchain, index) => {
    if (plan.broker.enabled && toolchain.namedEgress.fromRegistriesAlias)
      warnings.push({
        code: 'deprecated-registries-egress',
        subject: toolchain.name,
        path: `/spec/toolchains/${index}/network/egress`,
        message: `toolchain "${toolchain.name}": egress "registries" is deprecated; it stands for the ecosystems of its presets: write { ecosystems: [${toolchain.namedEgress.ecosystems.join(', ')}] }`,
      });
  });
  plan.toolchains.forEach((toolchain, index) => {
    // A toolchain in its own pod has exactly what it asked for.
    if (toolchain.placement !== 'sidecar') return;
    const own = pod.grants.filter((grant) => grant.neededBy.includes(toolchain.containerName));
    // The broker applies each caller's own list: reaching its port grants a container nothing of another's.
    const extra = pod.grants.filter(
      (grant) =>
        grant.to.kind !== 'dns' && grant.to.kind !== 'broker' && !own.some((mine) => covers(mine, grant)),
    );
    if (extra.length === 0) return;
    const inherited = extra
      .map(
        (grant) =>
          `${describeDestination(grant.to)} on ${describePorts(grant.ports)} (${grant.purpose}, for ${grant.neededBy.join(', ')})`,
      )
      .join('; ');
    warnings.push({
      code: 'shared-egress',
      subject: toolchain.name,
      path: `/spec/toolchains/${index}/network/egress`,
      message:
        `toolchain "${toolchain.name}" asks for egress "${egressLabel(toolchain.namedEgress, toolchain.egress)}" but shares pod "${pod.pod}", ` +
        `whose NetworkPolicy also allows: ${inherited}. NetworkPolicy selects pods, not containers: ` +
        `placement: pod gives it a pod and NetworkPolicy of its own (on a ReadWriteMany workspace)`,
    });
  });
  plan.gateways.forEach((gateway, index) => {
    if (plan.broker.enabled) {
      if (!gateway.route || gateway.route.inCluster) return;
      const { port, host } = urlTarget(gateway.upstreamUrl);
      if (!plan.broker.egressPorts.includes(port))
        warnings.push({
          code: 'unreachable-gateway',
          subject: gateway.name,
          path: '/spec/broker/egressPorts',
          message: `external gateway "${gateway.name}" (${host}:${port}) is reached through the broker, whose egressPorts [${plan.broker.egressPorts.join(', ')}] do not include ${port}: add it to spec.broker.egressPorts`,
        });
      return;
    }
    if (gateway.kind !== 'external' || gateway.egress) return;
    const { port, host } = urlTarget(gateway.url);
    const covered =
      plan.network.modelEgress.ports.includes(port) && plan.network.modelEgress.cidrs.includes('0.0.0.0/0');
    if (!covered) {
      warnings.push({
        code: 'unreachable-gateway',
        subject: gateway.name,
        path: `/spec/gateways/${index}/egress`,
        message: `external gateway "${gateway.name}" (${host}:${port}) is reachable by no egress rule of pod "${pod.pod}": declare its CIDRs and port in gateways[${index}].egress`,
      });
    }
  });
  return warnings;
}

function egressLabel(egress: { kind: string; fromRegistriesAlias: boolean }, need: string): string {
  return egress.kind === 'named' && !egress.fromRegistriesAlias ? 'by name' : need;
}

/** Whether `wider` already allows everything `narrower` allows. */
function covers(wider: EgressGrant, narrower: EgressGrant): boolean {
  if (wider.to.kind === 'anywhere') return true;
  if (wider === narrower) return true;
  if (wider.to.kind !== 'cidrs' || narrower.to.kind !== 'cidrs') return false;
  const wideCidrs = wider.to.cidrs;
  const cidrsCovered =
    wideCidrs.includes('0.0.0.0/0') || narrower.to.cidrs.every((c) => wideCidrs.includes(c));
  const portsCovered =
    wider.ports.length === 0 ||
    (narrower.ports.length > 0 &&
      narrower.ports.every((p) => wider.ports.some((w) => w.port === p.port && w.protocol === p.protocol)));
  return cidrsCovered && portsCovered;
}

export function urlTarget(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  return { host: parsed.hostname, port };
}
