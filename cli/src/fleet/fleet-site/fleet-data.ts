/**
 * The fleet-wide views, as data: the authority matrix (which agent can call which gateway, and what each
 * gateway's ServiceAccount can do where) and the egress graph (which pod may reach which peer on which ports).
 * The pages draw them and `fleet.json` publishes them; the tests recompute both from the rendered objects.
 */
import type { AuthorityGrant, FleetAgent, FleetGateway } from '../fleet-model.ts';

export interface MatrixCell {
  readonly agent: string;
  readonly namespace: string;
  readonly gateway: string;
  /** The agent that deploys the gateway: the agent itself, or another whose gateway admits anyone. */
  readonly owner: string;
  readonly kind: 'deployed' | 'external';
  readonly url: string;
  readonly serviceAccount?: string;
  readonly preset?: string;
  readonly namespaces: readonly string[];
}

export interface GraphEdge {
  readonly agent: string;
  readonly namespace: string;
  /** The pod's workload name. */
  readonly pod: string;
  /** The peer in the NetworkPolicy evaluator's words (`ipBlock 0.0.0.0/0`, `pods ns(…) …`, `*`). */
  readonly peer: string;
  readonly ports: readonly string[];
}

export interface FleetData {
  readonly agents: readonly {
    readonly name: string;
    readonly namespace: string;
    readonly file: string;
    readonly page: string;
  }[];
  /** Gateway names across the fleet: the matrix's columns. */
  readonly gateways: readonly string[];
  readonly matrix: readonly MatrixCell[];
  /** Per agent, ServiceAccount and namespace: what it can do, as `verb resource` (`verb resource.group`). */
  readonly authority: readonly AccountGrants[];
  readonly peers: Readonly<Record<string, string>>;
  readonly egress: readonly GraphEdge[];
}

export interface AccountGrants {
  readonly agent: string;
  readonly serviceAccount: string;
  readonly namespace: string;
  readonly preset: string;
  readonly can: readonly string[];
}

export const canText = (g: Pick<AuthorityGrant, 'verb' | 'resource' | 'apiGroup'>) =>
  `${g.verb} ${g.resource}${g.apiGroup === '' ? '' : `.${g.apiGroup}`}`;

function accountGrants(agents: readonly FleetAgent[]): AccountGrants[] {
  const out: AccountGrants[] = [];
  for (const a of agents) {
    const groups = new Map<
      string,
      { serviceAccount: string; namespace: string; preset: string; can: string[] }
    >();
    for (const g of a.authority) {
      const key = `${g.serviceAccount}|${g.namespace}`;
      const group = groups.get(key) ?? {
        serviceAccount: g.serviceAccount,
        namespace: g.namespace,
        preset: g.preset,
        can: [],
      };
      group.can.push(canText(g));
      groups.set(key, group);
    }
    for (const group of groups.values()) out.push({ agent: a.name, ...group });
  }
  return out;
}

export const agentPage = (name: string) => `agents/${name}/`;

const cellOf = (agent: FleetAgent, owner: FleetAgent, g: FleetGateway): MatrixCell => ({
  agent: agent.name,
  namespace: agent.namespace,
  gateway: g.name,
  owner: owner.name,
  kind: g.kind,
  url: g.url,
  ...(g.serviceAccount ? { serviceAccount: g.serviceAccount } : {}),
  ...(g.preset ? { preset: g.preset } : {}),
  namespaces: g.namespaces,
});

/**
 * Which agent can call which gateway. Its own, always (the gateway's NetworkPolicy admits its agent). Another
 * agent's only when that gateway admits anyone (its agent disables NetworkPolicies) and the caller's agent pod
 * may open the connection: it has open egress, or an ipBlock of all addresses on the gateway's port (an
 * ipBlock of 0.0.0.0/0 or ::/0 may match pod IPs, depending on the network plugin: counted, to be safe).
 */
function matrix(agents: readonly FleetAgent[]): MatrixCell[] {
  const open = agents.flatMap((owner) =>
    owner.gateways.filter((g) => g.kind === 'deployed' && g.ingressOpen).map((g) => ({ owner, g })),
  );
  const cells: MatrixCell[] = [];
  for (const agent of agents) {
    for (const g of agent.gateways) cells.push(cellOf(agent, agent, g));
    if (open.length === 0) continue;
    const atoms = new Set(agent.pods.find((p) => p.key === 'agent')?.destinations.map((d) => d.atom) ?? []);
    const reaches = (port: number) =>
      atoms.has('* *') ||
      ['ipBlock 0.0.0.0/0', 'ipBlock ::/0'].some(
        (peer) => atoms.has(`${peer} ${port}/TCP`) || atoms.has(`${peer} *`),
      );
    for (const { owner, g } of open)
      if (owner !== agent && reaches(g.port ?? 0)) cells.push(cellOf(agent, owner, g));
  }
  return cells;
}

export function fleetData(agents: readonly FleetAgent[]): FleetData {
  const peers: Record<string, string> = {};
  const egress: GraphEdge[] = [];
  for (const agent of agents) {
    for (const pod of agent.pods) {
      const byPeer = new Map<string, string[]>();
      for (const d of pod.destinations) {
        peers[d.peer] ??= d.label;
        byPeer.set(d.peer, [...(byPeer.get(d.peer) ?? []), d.atom.slice(d.peer.length + 1)]);
      }
      for (const [peer, ports] of byPeer)
        egress.push({ agent: agent.name, namespace: agent.namespace, pod: pod.name, peer, ports });
    }
  }
  return {
    agents: agents.map((a) => ({
      name: a.name,
      namespace: a.namespace,
      file: a.file,
      page: agentPage(a.name),
    })),
    gateways: [...new Set(agents.flatMap((a) => a.gateways.map((g) => g.name)))].sort(),
    matrix: matrix(agents),
    authority: accountGrants(agents),
    peers,
    egress,
  };
}
