/**
 * A NetworkPolicy evaluator with Kubernetes' semantics, for asserting who may reach whom in rendered objects:
 * a connection is allowed when the source's egress and the destination's ingress both allow it. A side that no
 * policy of its namespace selects (for that direction) allows everything; otherwise some rule of a selecting
 * policy must match the peer and the port. Policies add up. Namespaces carry `kubernetes.io/metadata.name`.
 * ipBlock peers are taken to match any pod when they are 0.0.0.0/0 or ::/0 (pod IPs lie inside them), and no
 * pod otherwise — conservative for "denied" assertions on the policies toolyard renders.
 */
type Json = Readonly<Record<string, unknown>>;

export interface PodEndpoint {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
}

interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] }[];
}

export function selects(
  selector: LabelSelector | undefined,
  labels: Readonly<Record<string, string>>,
): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = e.key in labels;
    const value = labels[e.key];
    const ok =
      e.operator === 'In'
        ? has && (e.values ?? []).includes(value!)
        : e.operator === 'NotIn'
          ? !has || !(e.values ?? []).includes(value!)
          : e.operator === 'Exists'
            ? has
            : e.operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

function peerMatches(peer: Json, policyNamespace: string, pod: PodEndpoint): boolean {
  const ipBlock = peer['ipBlock'] as Json | undefined;
  if (ipBlock) return ipBlock['cidr'] === '0.0.0.0/0' || ipBlock['cidr'] === '::/0';
  const namespaceSelector = peer['namespaceSelector'] as LabelSelector | undefined;
  const podSelector = peer['podSelector'] as LabelSelector | undefined;
  const namespaceOk = namespaceSelector
    ? selects(namespaceSelector, { 'kubernetes.io/metadata.name': pod.namespace })
    : pod.namespace === policyNamespace;
  return namespaceOk && selects(podSelector, pod.labels);
}

function portMatches(ports: readonly Json[] | undefined, port: number, protocol: string): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((p) => {
    if ((p['protocol'] ?? 'TCP') !== protocol) return false;
    if (p['port'] === undefined) return true;
    const from = Number(p['port']);
    const to = p['endPort'] === undefined ? from : Number(p['endPort']);
    return port >= from && port <= to;
  });
}

function sideAllows(
  policies: readonly Json[],
  self: PodEndpoint,
  peer: PodEndpoint,
  port: number,
  protocol: string,
  direction: 'Ingress' | 'Egress',
): boolean {
  const selecting = policies.filter((p) => {
    const metadata = p['metadata'] as Json;
    const spec = p['spec'] as Json;
    const types = (spec['policyTypes'] as string[] | undefined) ?? ['Ingress'];
    return (
      metadata['namespace'] === self.namespace &&
      types.includes(direction) &&
      selects(spec['podSelector'] as LabelSelector, self.labels)
    );
  });
  if (selecting.length === 0) return true;
  const rulesKey = direction === 'Ingress' ? 'ingress' : 'egress';
  const peersKey = direction === 'Ingress' ? 'from' : 'to';
  return selecting.some((p) =>
    (((p['spec'] as Json)[rulesKey] ?? []) as Json[]).some((rule) => {
      const peers = rule[peersKey] as Json[] | undefined;
      const peerOk =
        !peers ||
        peers.length === 0 ||
        peers.some((x) => peerMatches(x, String((p['metadata'] as Json)['namespace']), peer));
      return peerOk && portMatches(rule['ports'] as Json[] | undefined, port, protocol);
    }),
  );
}

/** May `from` open a connection to `to` on `port`, under these objects' NetworkPolicies? */
export function allowed(
  objects: readonly Json[],
  from: PodEndpoint,
  to: PodEndpoint,
  port: number,
  protocol = 'TCP',
): boolean {
  const policies = objects.filter((o) => o['kind'] === 'NetworkPolicy');
  return (
    sideAllows(policies, from, to, port, protocol, 'Egress') &&
    sideAllows(policies, to, from, port, protocol, 'Ingress')
  );
}
