/**
 * One agent of a fleet as data: what the site shows and what `toolyard diff` compares. Everything comes from
 * the renderer (its plan, its objects and the explain report `toolyard explain` prints), never from a second
 * reading of the spec. Authority and egress carry two names each: a key that does not depend on the agent's
 * name (so a renamed agent compares with its old self) and the concrete names shown to people.
 */
import {
  describeDestination,
  describeHost,
  describePorts,
  type EgressGrant,
} from '../../../constructs/src/effective-egress.ts';
import { type ExplainReport, explainAgent } from '../../../constructs/src/explain.ts';
import { mcpServerEntries } from '../../../constructs/src/mcp-client-configs.ts';
import { deployedGateways, podToolchains } from '../../../constructs/src/plan.ts';
import type { KubeObject, RenderResult } from '../../../constructs/src/render.ts';
import { type FleetCacheUse, fleetCacheUses } from './fleet-caches.ts';

/** One verb on one resource in one namespace, for one ServiceAccount. */
export interface AuthorityGrant {
  /** `agent`, `gateway <name>` or `toolchain <name>`: the account's place in its agent, not its name. */
  readonly account: string;
  readonly serviceAccount: string;
  readonly namespace: string;
  readonly preset: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly verb: string;
}

/** One (peer, port) a pod's egress allows. */
export interface EgressDestination {
  /**
   * The peer and port in the NetworkPolicy evaluator's words (`test/support/network-policy.ts`):
   * `ipBlock 0.0.0.0/0 443/TCP`, `pods ns(kubernetes.io/metadata.name=agents) app…=x 8000/TCP`, `* *`.
   */
  readonly atom: string;
  /** The peer alone (the atom without its port): a node of the egress graph. */
  readonly peer: string;
  /** The peer said for people, e.g. `MCP gateway "kubernetes" (agents/reviewer-kubernetes)`. */
  readonly label: string;
  readonly ports: string;
  readonly purpose: string;
  /** Rename-proof: pods of the agent itself by their place in it, everything else by its atom. */
  readonly key: string;
}

export interface FleetPod {
  /** `agent`, `gateway <name>` or `toolchain <name>`. */
  readonly key: string;
  readonly name: string;
  readonly kind: string;
  readonly serviceAccount: string;
  /** False when NetworkPolicies are disabled: the pod may reach anything. */
  readonly restricted: boolean;
  readonly destinations: readonly EgressDestination[];
}

export interface FleetGateway {
  readonly name: string;
  readonly kind: 'deployed' | 'external';
  readonly url: string;
  readonly image?: string;
  readonly serviceAccount?: string;
  readonly preset?: string;
  readonly namespaces: readonly string[];
  /** A deployed gateway's MCP port. */
  readonly port?: number;
  /** No NetworkPolicy selects a deployed gateway's pod for ingress (its agent disables them): anyone may call. */
  readonly ingressOpen?: boolean;
}

export interface FleetAgent {
  readonly name: string;
  readonly namespace: string;
  readonly file: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly backends: readonly { readonly name: string; readonly type: string; readonly image: string }[];
  readonly toolchains: readonly {
    readonly name: string;
    readonly placement: string;
    readonly image: string;
    readonly egress: string;
  }[];
  readonly gateways: readonly FleetGateway[];
  /** Every image a pod of the agent runs, init containers included. */
  readonly images: readonly string[];
  readonly warnings: readonly string[];
  /** Per backend, the MCP servers its client config lists: `name url`. */
  readonly mcpServers: Readonly<Record<string, readonly string[]>>;
  /** Per container (`<pod key> / <container>`), the credentials it can read. */
  readonly credentials: Readonly<Record<string, readonly string[]>>;
  /**
   * Per container (`<pod key> / <container>`), what it may reach through the broker by name: `route <name> →
   * <upstream>`, `host <host>:<ports>`, `any public host on <ports>`. Empty with the broker off.
   */
  readonly egressByName: Readonly<Record<string, readonly string[]>>;
  /** The Secret of the broker's per-container tokens (broker on): tokens that grant only `egressByName`. */
  readonly brokerTokensSecret?: string;
  readonly authority: readonly AuthorityGrant[];
  readonly pods: readonly FleetPod[];
  /** Its toolchains' cache uses (docs/caches.md); absent in agents built before caches existed. */
  readonly caches?: readonly FleetCacheUse[];
  /** Rendered objects by `Kind namespace/name`, with their JSON to compare (empty without `objectJson`). */
  readonly objects: readonly { readonly id: string; readonly json: string }[];
}

const labelText = (labels: Readonly<Record<string, string>>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(',');

const inNamespace = (namespace: string, labels: Readonly<Record<string, string>>) =>
  `pods ns(kubernetes.io/metadata.name=${namespace}) ${labelText(labels) || '*'}`;

/** The grant's (peer, port) pairs in the evaluator's words, the peer for people, and its rename-proof key. */
function atoms(grant: EgressGrant, namespace: string, ownPods: ReadonlyMap<string, string>) {
  const to = grant.to;
  const ports = grant.ports.length === 0 ? ['*'] : grant.ports.map((p) => `${p.port}/${p.protocol}`);
  const each = (peer: string, label: string, key = peer) =>
    ports.map((port) => ({ peer, label, port, key: `${key} ${port}` }));
  switch (to.kind) {
    case 'anywhere':
      return each('*', 'anywhere');
    case 'cidrs':
      return to.cidrs.flatMap((cidr) => each(`ipBlock ${cidr}`, cidr));
    case 'internet':
      return to.blocks.flatMap((b) =>
        each(
          `ipBlock ${b.cidr}${b.except.length > 0 ? ` except ${b.except.join('|')}` : ''}`,
          `${b.cidr} (public)`,
        ),
      );
    case 'broker': {
      const peer = inNamespace(namespace, to.podLabels);
      const own = ownPods.get(to.broker);
      return each(peer, `broker pods ${namespace}/${to.broker}`, own ? `own ${own}` : peer);
    }
    case 'dns':
    case 'collector':
      return each(inNamespace(to.namespace, to.podLabels), describeDestination(to));
    case 'gateway':
    case 'toolchain':
    case 'sandbox': {
      const object = to.kind === 'gateway' ? to.gateway : to.kind === 'toolchain' ? to.toolchain : to.name;
      const peer = inNamespace(namespace, to.podLabels);
      const own = ownPods.get(object);
      return each(peer, `${to.kind} pods ${namespace}/${object}`, own ? `own ${own}` : peer);
    }
  }
}

export function objectId(object: KubeObject): string {
  return `${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

function imagesOf(objects: readonly KubeObject[]): string[] {
  const images = new Set<string>();
  for (const object of objects) {
    const template = (object['spec'] as { template?: { spec?: Record<string, unknown> } } | undefined)
      ?.template;
    for (const list of ['containers', 'initContainers']) {
      for (const c of (template?.spec?.[list] ?? []) as { image?: string }[])
        if (c.image) images.add(c.image);
    }
  }
  return [...images].sort();
}

/** The fleet's view of one rendered agent. */
export function fleetAgent(
  file: string,
  rendered: RenderResult,
  options: { readonly report?: ExplainReport; readonly objectJson?: boolean } = {},
): FleetAgent {
  const { plan, objects } = rendered;
  const explain = options.report ?? explainAgent(plan);
  const ownPods = new Map<string, string>([[plan.names.workload, 'agent']]);
  for (const t of podToolchains(plan)) ownPods.set(t.pod.objectName, `toolchain ${t.name}`);
  for (const g of deployedGateways(plan)) ownPods.set(g.objectName, `gateway ${g.name}`);
  if (plan.broker.enabled) ownPods.set(plan.broker.objectName, 'broker');
  if (plan.sandboxes) {
    ownPods.set(plan.sandboxes.objectName, 'sandbox manager');
    for (const t of plan.sandboxes.templates) ownPods.set(t.objectName, `sandboxes ${t.name}`);
  }
  const accounts = new Map<string, string>([[plan.names.serviceAccount, 'agent']]);
  for (const t of podToolchains(plan)) accounts.set(t.pod.objectName, `toolchain ${t.name}`);
  for (const g of deployedGateways(plan)) accounts.set(g.objectName, `gateway ${g.name}`);
  if (plan.sandboxes) accounts.set(plan.sandboxes.objectName, 'sandbox manager');

  const authority: AuthorityGrant[] = explain.serviceAccounts.flatMap((sa) =>
    sa.grants.flatMap((grant) =>
      grant.rules.flatMap((rule) =>
        rule.apiGroups.flatMap((apiGroup) =>
          rule.resources.flatMap((resource) =>
            rule.verbs.map((verb) => ({
              account: accounts.get(sa.serviceAccount) ?? sa.serviceAccount,
              serviceAccount: sa.serviceAccount,
              namespace: grant.namespace,
              preset: grant.preset,
              apiGroup,
              resource,
              verb,
            })),
          ),
        ),
      ),
    ),
  );

  const pods: FleetPod[] = explain.pods.map((pod) => {
    const destinations = new Map<string, EgressDestination>();
    if (pod.egress.restricted) {
      for (const grant of pod.egress.grants) {
        for (const a of atoms(grant, plan.namespace, ownPods)) {
          const atom = `${a.peer} ${a.port}`;
          const existing = destinations.get(atom);
          if (existing) continue;
          destinations.set(atom, {
            atom,
            peer: a.peer,
            label: a.label,
            ports: describePorts(grant.ports),
            purpose: grant.purpose,
            key: a.key,
          });
        }
      }
    } else {
      destinations.set('* *', {
        atom: '* *',
        peer: '*',
        label: 'anywhere (NetworkPolicies disabled)',
        ports: 'all ports',
        purpose: 'unrestricted',
        key: '* *',
      });
    }
    return {
      key: ownPods.get(pod.pod) ?? pod.pod,
      name: pod.pod,
      kind: pod.kind,
      serviceAccount: pod.serviceAccount,
      restricted: pod.egress.restricted,
      destinations: [...destinations.values()].sort((a, b) =>
        a.atom < b.atom ? -1 : a.atom > b.atom ? 1 : 0,
      ),
    };
  });

  const credentials: Record<string, string[]> = {};
  for (const pod of explain.pods) {
    for (const c of pod.containers) {
      if (c.credentials.length > 0)
        credentials[`${ownPods.get(pod.pod) ?? pod.pod} / ${c.name}`] = [...c.credentials];
    }
  }

  const egressByName: Record<string, string[]> = {};
  for (const c of explain.broker?.egress ?? [])
    egressByName[`${ownPods.get(c.pod) ?? c.pod} / ${c.container}`] = [
      ...c.routes.map((r) => `route ${r.name} → ${r.upstream}`),
      ...c.hosts.map((h) => `host ${describeHost(h)}`),
      ...(c.openPorts.length > 0 ? [`any public host on ${c.openPorts.join(', ')}`] : []),
    ];

  const servers = mcpServerEntries(plan).map((s) => `${s.name} ${s.url}`);
  const mcpServers: Record<string, string[]> = {};
  for (const b of plan.backends) mcpServers[b.name] = servers;

  return {
    name: plan.name,
    namespace: plan.namespace,
    file,
    labels: plan.labels,
    backends: plan.backends.map((b) => ({ name: b.name, type: b.type, image: b.image.reference })),
    toolchains: plan.toolchains.map((t) => ({
      name: t.name,
      placement: t.placement,
      image: t.image.reference,
      egress: t.namedEgress.kind === 'named' && !t.namedEgress.fromRegistriesAlias ? 'by name' : t.egress,
    })),
    gateways: plan.gateways.map((g) =>
      g.kind === 'deployed'
        ? {
            name: g.name,
            kind: g.kind,
            url: g.url,
            image: g.image.reference,
            serviceAccount: g.objectName,
            ...(g.kubernetes ? { preset: g.kubernetes.preset } : {}),
            namespaces: g.kubernetes?.namespaces ?? [],
            port: g.port,
            ingressOpen: !plan.network.enabled,
          }
        : { name: g.name, kind: g.kind, url: g.url, namespaces: [] },
    ),
    images: imagesOf(objects),
    warnings: rendered.warnings.map((w) => `${w.path}: ${w.message}`),
    mcpServers,
    credentials,
    egressByName,
    ...(explain.broker ? { brokerTokensSecret: explain.broker.tokensSecret } : {}),
    authority,
    pods,
    caches: fleetCacheUses(plan),
    // Each object's JSON is what a diff compares (equal JSON, equal YAML); a site needs only the ids.
    objects: objects.map((o) => ({
      id: objectId(o),
      json: options.objectJson === false ? '' : JSON.stringify(o),
    })),
  };
}
