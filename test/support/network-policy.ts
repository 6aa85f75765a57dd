/**
 * A NetworkPolicy evaluator with Kubernetes' semantics, for asserting who may reach whom in rendered objects:
 * a connection is allowed when the source's egress and the destination's ingress both allow it. A side that no
 * policy of its namespace selects (for that direction) allows everything; otherwise some rule of a selecting
 * policy must match the peer and the port. Policies add up. Namespaces carry `kubernetes.io/metadata.name`.
 * ipBlock peers are taken to match any pod when they are 0.0.0.0/0 or ::/0 (pod IPs lie inside them), and no
 * pod otherwise — conservative for "denied" assertions on the policies toolyard renders.
 *
 * Beyond the cluster: `allowedOut` asks whether a pod may open a connection to an address outside it (only the
 * pod's egress decides; ipBlock `cidr` contains it and no `except` does), and `egressDestinations` lists, as
 * normalized text, every (peer, port) the pod's egress rules allow — the set a per-pod proof compares.
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

/** An address outside the cluster's pods (a registry, a model provider, the API server, a DNS resolver). */
export interface ExternalEndpoint {
  readonly ip: string;
}

function ipv4(ip: string): bigint | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => (n << 8n) | BigInt(Number(p)), 0n);
}

function ipv6(ip: string): bigint | undefined {
  if (!ip.includes(':')) return undefined;
  const [head = '', tail] = ip.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 0) return undefined;
  const all = [...left, ...Array.from({ length: tail === undefined ? 0 : missing }, () => '0'), ...right];
  if (all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return all.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

/** Whether `cidr` (IPv4 or IPv6) contains `ip`; addresses of the other family are never contained. */
export function cidrContains(cidr: string, ip: string): boolean {
  const [base = '', bits = ''] = cidr.split('/');
  const v4 = ipv4(base) !== undefined;
  const width = v4 ? 32 : 128;
  const network = v4 ? ipv4(base) : ipv6(base);
  const address = v4 ? ipv4(ip) : ipv6(ip);
  const prefix = Number(bits);
  if (network === undefined || address === undefined || !(prefix >= 0 && prefix <= width)) return false;
  const shift = BigInt(width - prefix);
  return network >> shift === address >> shift;
}

function ipBlockContains(ipBlock: Json, ip: string): boolean {
  const except = (ipBlock['except'] as string[] | undefined) ?? [];
  return cidrContains(String(ipBlock['cidr']), ip) && !except.some((e) => cidrContains(e, ip));
}

/** Egress policies of `pod`'s namespace that select it. */
function egressPolicies(objects: readonly Json[], pod: PodEndpoint): Json[] {
  return objects.filter((p) => {
    if (p['kind'] !== 'NetworkPolicy') return false;
    const metadata = p['metadata'] as Json;
    const spec = p['spec'] as Json;
    const types = (spec['policyTypes'] as string[] | undefined) ?? ['Ingress'];
    return (
      metadata['namespace'] === pod.namespace &&
      types.includes('Egress') &&
      selects(spec['podSelector'] as LabelSelector, pod.labels)
    );
  });
}

/** May `from` open a connection to an address outside the cluster's pods? Only its egress decides. */
export function allowedOut(
  objects: readonly Json[],
  from: PodEndpoint,
  to: ExternalEndpoint,
  port: number,
  protocol = 'TCP',
): boolean {
  const selecting = egressPolicies(objects, from);
  if (selecting.length === 0) return true;
  return selecting.some((p) =>
    (((p['spec'] as Json)['egress'] ?? []) as Json[]).some((rule) => {
      const peers = rule['to'] as Json[] | undefined;
      const peerOk =
        !peers ||
        peers.length === 0 ||
        peers.some((x) => x['ipBlock'] !== undefined && ipBlockContains(x['ipBlock'] as Json, to.ip));
      return peerOk && portMatches(rule['ports'] as Json[] | undefined, port, protocol);
    }),
  );
}

/** What a pod's egress allows, as sorted text: `<peer> <port>` per allowed pair; `* *` is anything. */
export interface EgressSet {
  /** False when no policy selects the pod for Egress: then it may reach anything. */
  readonly restricted: boolean;
  readonly destinations: readonly string[];
}

function labelText(selector: LabelSelector | undefined): string {
  const labels = Object.entries(selector?.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  const expressions = (selector?.matchExpressions ?? []).map(
    (e) => `${e.key} ${e.operator} ${(e.values ?? []).join('|')}`,
  );
  return [...labels, ...expressions].join(',');
}

/** A peer as text: `ipBlock <cidr>[ except …]`, or `pods ns(<namespace selector>) <pod selector>`. */
export function peerText(peer: Json, policyNamespace: string): string {
  const ipBlock = peer['ipBlock'] as Json | undefined;
  if (ipBlock) {
    const except = (ipBlock['except'] as string[] | undefined) ?? [];
    return `ipBlock ${String(ipBlock['cidr'])}${except.length > 0 ? ` except ${except.join('|')}` : ''}`;
  }
  const namespaceSelector = peer['namespaceSelector'] as LabelSelector | undefined;
  const namespaces = namespaceSelector
    ? labelText(namespaceSelector) || '*'
    : `kubernetes.io/metadata.name=${policyNamespace}`;
  return `pods ns(${namespaces}) ${labelText(peer['podSelector'] as LabelSelector | undefined) || '*'}`;
}

/** Every (peer, port) the egress rules of the policies selecting `pod` allow; policies add up. */
export function egressDestinations(objects: readonly Json[], pod: PodEndpoint): EgressSet {
  const selecting = egressPolicies(objects, pod);
  if (selecting.length === 0) return { restricted: false, destinations: ['* *'] };
  const out = new Set<string>();
  for (const policy of selecting) {
    const namespace = String((policy['metadata'] as Json)['namespace']);
    for (const rule of ((policy['spec'] as Json)['egress'] ?? []) as Json[]) {
      const peers = (rule['to'] as Json[] | undefined) ?? [];
      const ports = (rule['ports'] as Json[] | undefined) ?? [];
      const peerTexts = peers.length === 0 ? ['*'] : peers.map((p) => peerText(p, namespace));
      const portTexts =
        ports.length === 0
          ? ['*']
          : ports.map((p) => {
              const range =
                p['endPort'] === undefined
                  ? `${String(p['port'] ?? '*')}`
                  : `${String(p['port'])}-${String(p['endPort'])}`;
              return `${range}/${String(p['protocol'] ?? 'TCP')}`;
            });
      for (const peer of peerTexts) for (const port of portTexts) out.add(`${peer} ${port}`);
    }
  }
  return { restricted: true, destinations: [...out].sort() };
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
