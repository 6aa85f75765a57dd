/**
 * Egress by host, as data: which hosts each container of each agent reaches through its broker (listed hosts,
 * the hosts of its ecosystems, its routes' upstreams, or any public host) and who holds the model keys and
 * gateway tokens. Per agent from its plan (`agentReach`, computed where the agent is rendered), then across the
 * fleet by host (`hostRows`) for the by-host page. Plain data: it crosses worker threads.
 */
import { ECOSYSTEMS, isEcosystem } from '../../../../constructs/src/ecosystems.ts';
import type { AgentPlan, PlannedNamedEgress } from '../../../../constructs/src/plan.ts';
import { podToolchains } from '../../../../constructs/src/plan.ts';

/** How a container reaches one host through the broker. */
export interface Reach {
  /** A DNS name or `*.` pattern; for a route, its upstream's host; `*` for any public host (`open`). */
  readonly host: string;
  readonly ports: readonly number[];
  /** Listed in the container's `network.egress.hosts`. */
  readonly listed: boolean;
  /** The container's ecosystems that name this host. */
  readonly ecosystems: readonly string[];
  /**
   * A route of the broker to this host (the broker adds `credential`, a `<secret>/<key>`); `inCluster`: a
   * deployed gateway's Service of the same agent, not a host outside the cluster.
   */
  readonly route?: {
    readonly name: string;
    readonly kind: 'model' | 'gateway';
    readonly credential?: string;
    readonly inCluster?: boolean;
  };
}

/** The row of every agent's own deployed gateways (their Services are per agent: one row, not one each). */
export const IN_CLUSTER = '(own gateways)';

export interface ContainerReach {
  /** The pod's place in its agent: `agent` or `toolchain <name>`. */
  readonly pod: string;
  readonly container: string;
  readonly role: 'backend' | 'toolchain' | 'sandbox-manager';
  readonly reaches: readonly Reach[];
}

/** A model key or gateway token and the container that holds it. */
export interface CredentialHolding {
  /** `<secret>/<key>` in the agent's namespace. */
  readonly secret: string;
  readonly kind: 'model key' | 'gateway token';
  /** What it is for: `route model-claude → api.anthropic.com`, the variable it is in, `gateway <name>`. */
  readonly purpose: string;
  /** `<pod place> / <container>`: `broker / broker`, `agent / claude`. */
  readonly holder: string;
}

export interface AgentReach {
  readonly agent: string;
  readonly namespace: string;
  /** False: no egress by name; the agent's pods reach CIDRs (the egress page lists them). */
  readonly broker: boolean;
  readonly containers: readonly ContainerReach[];
  readonly credentials: readonly CredentialHolding[];
}

function ecosystemsNaming(host: string, egress: PlannedNamedEgress | undefined): string[] {
  if (egress?.kind !== 'named') return [];
  return egress.ecosystems.filter(
    (name) => isEcosystem(name) && (ECOSYSTEMS[name].hosts as readonly string[]).includes(host),
  );
}

function listedHosts(egress: PlannedNamedEgress | undefined): Set<string> {
  if (egress?.kind !== 'named') return new Set();
  return new Set(egress.declaredHosts.map((text) => text.replace(/:[0-9]{1,5}$/, '')));
}

/** One agent's egress by name and its holders of model keys and gateway tokens, from its plan. */
export function agentReach(plan: AgentPlan): AgentReach {
  const places = new Map<string, string>([[plan.names.workload, 'agent']]);
  for (const t of podToolchains(plan)) places.set(t.pod.objectName, `toolchain ${t.name}`);
  const declared = new Map<string, PlannedNamedEgress>([
    ...plan.backends.map((b) => [b.name, b.egress] as const),
    ...plan.toolchains.map((t) => [t.containerName, t.namedEgress] as const),
  ]);
  const routes = new Map(plan.broker.routes.map((r) => [r.name, r]));
  const secretOf = (s: { readonly name: string; readonly key: string }) => `${s.name}/${s.key}`;
  const containers: ContainerReach[] = plan.broker.callers.map((caller) => {
    const egress = declared.get(caller.name);
    const listed = listedHosts(egress);
    const reaches: Reach[] = [
      ...caller.routes.flatMap((name) => {
        const route = routes.get(name);
        if (!route) return [];
        const url = URL.canParse(route.upstream) ? new URL(route.upstream) : undefined;
        const port = url ? Number(url.port || (url.protocol === 'http:' ? 80 : 443)) : 443;
        return [
          {
            host: url ? url.hostname : route.upstream,
            ports: [port],
            listed: false,
            ecosystems: [],
            route: {
              name,
              kind: route.kind,
              ...(route.credential ? { credential: secretOf(route.credential.secret) } : {}),
              ...(route.inCluster ? { inCluster: true } : {}),
            },
          },
        ];
      }),
      ...caller.egress.map((entry) => ({
        host: entry.host,
        ports: [...entry.ports],
        listed: listed.has(entry.host),
        ecosystems: ecosystemsNaming(entry.host, egress),
      })),
      ...(caller.openPorts.length > 0
        ? [{ host: '*', ports: [...caller.openPorts], listed: false, ecosystems: [] }]
        : []),
    ];
    return {
      pod: places.get(caller.pod) ?? caller.pod,
      container: caller.name,
      role: caller.role,
      reaches,
    };
  });

  const credentials: CredentialHolding[] = [];
  for (const route of plan.broker.enabled ? plan.broker.routes : []) {
    if (!route.credential) continue;
    credentials.push({
      secret: secretOf(route.credential.secret),
      kind: route.kind === 'model' ? 'model key' : 'gateway token',
      purpose: `route ${route.name}`,
      holder: 'broker / broker',
    });
  }
  if (!plan.broker.enabled) {
    for (const b of plan.backends) {
      // A custom backend gets no key without a broker: only the CLIs' key variables hold one.
      if (!b.model?.keyEnv) continue;
      credentials.push({
        secret: secretOf(b.model.apiKeySecret),
        kind: 'model key',
        purpose: b.model.keyEnv,
        holder: `agent / ${b.name}`,
      });
    }
  }
  // A gateway token the broker does not hold sits in every backend's environment.
  for (const g of plan.gateways) {
    if (!g.auth || g.route) continue;
    for (const b of plan.backends)
      credentials.push({
        secret: secretOf(g.auth.secret),
        kind: 'gateway token',
        purpose: `gateway ${g.name}`,
        holder: `agent / ${b.name}`,
      });
  }
  return {
    agent: plan.name,
    namespace: plan.namespace,
    broker: plan.broker.enabled,
    containers,
    credentials,
  };
}

/** One container of one agent that reaches a host. */
export interface HostHolder {
  readonly agent: string;
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly ports: readonly number[];
  readonly listed: boolean;
  readonly ecosystems: readonly string[];
  readonly route?: Reach['route'];
}

/** A host of the fleet and every container that reaches it. */
export interface HostRow {
  readonly host: string;
  /** How it is reached, across its holders: `listed`, `ecosystem`, `model route`, `gateway route`, `open`. */
  readonly ways: readonly string[];
  readonly ports: readonly number[];
  readonly ecosystems: readonly string[];
  readonly agents: number;
  readonly holders: readonly HostHolder[];
}

export function waysOf(host: string, reach: Pick<Reach, 'listed' | 'ecosystems' | 'route'>): string[] {
  return [
    ...(host === '*' ? ['open'] : []),
    ...(reach.listed ? ['listed'] : []),
    ...(reach.ecosystems.length > 0 ? ['ecosystem'] : []),
    ...(reach.route ? [`${reach.route.kind} route`] : []),
  ];
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Every host the fleet reaches through brokers, most-reached first, each with its containers; routes to an
 * agent's own deployed gateways share the one row `IN_CLUSTER`.
 */
export function hostRows(agents: readonly AgentReach[]): HostRow[] {
  const rows = new Map<string, HostHolder[]>();
  for (const a of agents)
    for (const c of a.containers)
      for (const r of c.reaches) {
        const host = r.route?.inCluster ? IN_CLUSTER : r.host;
        const holders = rows.get(host) ?? [];
        holders.push({
          agent: a.agent,
          namespace: a.namespace,
          pod: c.pod,
          container: c.container,
          ports: r.ports,
          listed: r.listed,
          ecosystems: r.ecosystems,
          ...(r.route ? { route: r.route } : {}),
        });
        rows.set(host, holders);
      }
  return [...rows]
    .map(([host, holders]) => ({
      host,
      ways: [...new Set(holders.flatMap((h) => waysOf(host, h)))].sort(byText),
      ports: [...new Set(holders.flatMap((h) => h.ports))].sort((x, y) => x - y),
      ecosystems: [...new Set(holders.flatMap((h) => h.ecosystems))].sort(byText),
      agents: new Set(holders.map((h) => `${h.namespace}/${h.agent}`)).size,
      holders,
    }))
    .sort((x, y) => y.agents - x.agents || byText(x.host, y.host));
}

/** Hosts reached by exactly the same containers in the same ways (an ecosystem's hosts, mostly), as one row. */
export interface HostGroup extends Omit<HostRow, 'host'> {
  readonly hosts: readonly string[];
}

/** `hostRows` with the rows whose containers, ports and ways are the same merged, in the same order. */
export function hostGroups(rows: readonly HostRow[]): HostGroup[] {
  const groups = new Map<string, { hosts: string[]; row: HostRow }>();
  for (const row of rows) {
    const key = JSON.stringify([row.host === '*', row.holders.map((h) => ({ ...h }))]);
    const group = groups.get(key);
    if (group) group.hosts.push(row.host);
    else groups.set(key, { hosts: [row.host], row });
  }
  return [...groups.values()].map(({ hosts, row }) => {
    const { host: _, ...rest } = row;
    return { ...rest, hosts };
  });
}
