/**
 * What a change does to a fleet, per agent: authority (RBAC grants per ServiceAccount and namespace), egress
 * (destinations per pod), credentials (per container), images, MCP servers per backend and objects. A change
 * widens when it adds authority, egress or a credential: those are what a reviewer must approve; images, MCP
 * servers and other objects are reported, not gated. Agents pair by name; a removed and an added agent pair as
 * a rename when they come from the same file, or when their specs are equal but for the name. A new agent
 * widens by all it has; a removed one narrows. Egress by name (per container, through the broker) widens when a
 * host, an ecosystem's host, a route or open egress is added. A credential that leaves a backend or toolchain for
 * the broker (the same Secret key) is a move, shown as such, not a widening. A new read-write user of a cache on an
 * existing claim (which other agents may mount), or one that was read-only, widens (docs/caches.md).
 */
import { cacheUseLines, isWideningCacheKey } from './fleet-caches.ts';
import type { AuthorityGrant, FleetAgent } from './fleet-model.ts';

export interface Change {
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

export interface AgentDiff {
  readonly agent: string;
  readonly namespace: string;
  readonly status: 'added' | 'removed' | 'changed' | 'renamed';
  /** The old name of a renamed agent. */
  readonly from?: string;
  readonly authority: Change;
  readonly egress: Change;
  /** Per container, through the broker: routes, hosts by name, open egress. */
  readonly egressByName: Change;
  readonly credentials: Change;
  /** Credentials (Secret keys) that a container held before and only the broker holds now. */
  readonly credentialsMoved: readonly string[];
  readonly images: Change;
  readonly mcpServers: Change;
  /** Cache uses of its toolchains; a new writer of an existing claim (or read-only → read-write) widens. */
  readonly caches: Change;
  readonly objects: {
    readonly added: readonly string[];
    readonly removed: readonly string[];
    readonly changed: readonly string[];
  };
  readonly widens: boolean;
}

export interface FleetDiff {
  readonly base: string;
  readonly head: string;
  readonly agents: readonly AgentDiff[];
  readonly unchanged: number;
  readonly widens: boolean;
}

/** Something keyed for comparison (rename-proof) and said for people. */
type Keyed = ReadonlyMap<string, string>;

const verbOrder = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/** Grants with the same account, namespace and verb, as one line: `… can get pods, services in agents`. */
function authorityLines(grants: readonly AuthorityGrant[]): Keyed {
  const out = new Map<string, string>();
  for (const g of grants) {
    const resource = g.apiGroup === '' ? g.resource : `${g.resource}.${g.apiGroup}`;
    out.set(
      `${g.account}|${g.namespace}|${g.verb}|${resource}`,
      `ServiceAccount ${g.serviceAccount}: ${g.verb} ${resource} in namespace ${g.namespace}`,
    );
  }
  return out;
}

/** Per ServiceAccount and namespace, resources that gained (or lost) the same verbs, on one line. */
function summarizeAuthority(keys: readonly string[], lines: Keyed): string[] {
  const rank = (verb: string) => (verbOrder.includes(verb) ? verbOrder.indexOf(verb) : verbOrder.length);
  const accounts = new Map<string, { head: string; verbs: Map<string, string[]> }>();
  for (const key of keys) {
    const [account, namespace, verb, resource] = key.split('|') as [string, string, string, string];
    const text = lines.get(key)!;
    const sa = text.slice('ServiceAccount '.length, text.indexOf(':'));
    const entry = accounts.get(`${account}|${namespace}`) ?? {
      head: `ServiceAccount ${sa} in namespace ${namespace}`,
      verbs: new Map<string, string[]>(),
    };
    entry.verbs.set(resource, [...(entry.verbs.get(resource) ?? []), verb]);
    accounts.set(`${account}|${namespace}`, entry);
  }
  const out: string[] = [];
  for (const { head, verbs } of accounts.values()) {
    const byVerbs = new Map<string, string[]>();
    for (const [resource, v] of verbs) {
      const key = v.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1)).join(', ');
      byVerbs.set(key, [...(byVerbs.get(key) ?? []), resource]);
    }
    for (const [v, resources] of byVerbs) out.push(`${head}: ${v} ${resources.sort().join(', ')}`);
  }
  return out.sort();
}

function egressLines(agent: FleetAgent): Keyed {
  const out = new Map<string, string>();
  for (const pod of agent.pods) {
    for (const d of pod.destinations) {
      out.set(
        `${pod.key}|${d.key}`,
        `pod ${pod.name} → ${d.label} ${d.atom.slice(d.peer.length + 1)} (${d.purpose})`,
      );
    }
  }
  return out;
}

function credentialLines(agent: FleetAgent): Keyed {
  const out = new Map<string, string>();
  // The broker tokens Secret is named after the agent by default: keyed by its role, a rename changes nothing.
  const tokens = agent.brokerTokensSecret;
  const keyOf = (c: string) => (tokens ? c.split(`secret ${tokens}`).join('secret <broker tokens>') : c);
  for (const [container, credentials] of Object.entries(agent.credentials)) {
    const shown = container.split(' / ')[1] ?? container;
    for (const c of credentials) out.set(`${container}|${keyOf(c)}`, `${shown}: ${c}`);
  }
  return out;
}

function egressByNameLines(agent: FleetAgent): Keyed {
  const out = new Map<string, string>();
  for (const [container, entries] of Object.entries(agent.egressByName)) {
    const shown = container.split(' / ')[1] ?? container;
    for (const e of entries) out.set(`${container}|${e}`, `${shown} → ${e}`);
  }
  return out;
}

/** `secret <name>/<key>` of a credential line, when it names one. */
const secretOf = (line: string) => /secret ([^ ]+\/[^ ]+)/.exec(line)?.[1];

/**
 * Credentials the broker gained that other containers held before and hold no more: moved into the broker
 * (issue 17), reported, not counted as a widening.
 */
function movedToBroker(
  before: FleetAgent,
  after: FleetAgent,
  added: Keyed,
): { moved: string[]; keys: Set<string> } {
  const heldBefore = new Set(
    Object.entries(before.credentials)
      .filter(([container]) => !container.startsWith('broker / '))
      .flatMap(([, lines]) => lines.map(secretOf)),
  );
  const heldAfter = new Set(
    Object.entries(after.credentials)
      .filter(([container]) => !container.startsWith('broker / '))
      .flatMap(([, lines]) => lines.map(secretOf)),
  );
  const moved: string[] = [];
  const keys = new Set<string>();
  for (const [key, line] of added) {
    if (!key.startsWith('broker / ')) continue;
    const secret = secretOf(line);
    if (secret && heldBefore.has(secret) && !heldAfter.has(secret)) {
      moved.push(`secret ${secret}: now held by the broker alone`);
      keys.add(key);
    }
  }
  return { moved: moved.sort(), keys };
}

function mcpLines(agent: FleetAgent): Keyed {
  const out = new Map<string, string>();
  for (const [backend, servers] of Object.entries(agent.mcpServers)) {
    for (const s of servers) out.set(`${backend}|${s}`, `backend ${backend} → ${s}`);
  }
  return out;
}

const setOf = (items: readonly string[]): Keyed => new Map(items.map((i) => [i, i]));

function compare(before: Keyed, after: Keyed): Change {
  const added = [...after.keys()].filter((k) => !before.has(k)).map((k) => after.get(k)!);
  const removed = [...before.keys()].filter((k) => !after.has(k)).map((k) => before.get(k)!);
  return { added: added.sort(), removed: removed.sort() };
}

function compareAuthority(before: readonly AuthorityGrant[], after: readonly AuthorityGrant[]): Change {
  const b = authorityLines(before);
  const a = authorityLines(after);
  return {
    added: summarizeAuthority(
      [...a.keys()].filter((k) => !b.has(k)),
      a,
    ),
    removed: summarizeAuthority(
      [...b.keys()].filter((k) => !a.has(k)),
      b,
    ),
  };
}

const EMPTY: FleetAgent = {
  name: '',
  namespace: '',
  file: '',
  labels: {},
  backends: [],
  toolchains: [],
  gateways: [],
  images: [],
  warnings: [],
  mcpServers: {},
  credentials: {},
  egressByName: {},
  authority: [],
  pods: [],
  objects: [],
};

function diffAgent(base: FleetAgent | undefined, head: FleetAgent | undefined): AgentDiff | undefined {
  const before = base ?? EMPTY;
  const after = head ?? EMPTY;
  const old = new Map(before.objects.map((o) => [o.id, o.json]));
  const objects = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
  for (const o of after.objects) {
    const previous = old.get(o.id);
    old.delete(o.id);
    if (previous === undefined) objects.added.push(o.id);
    else if (previous !== o.json) objects.changed.push(o.id);
  }
  objects.removed.push(...old.keys());
  const authority = compareAuthority(before.authority, after.authority);
  const egress = compare(egressLines(before), egressLines(after));
  const beforeCredentials = credentialLines(before);
  const afterCredentials = credentialLines(after);
  const credentials = compare(beforeCredentials, afterCredentials);
  const addedCredentials = new Map([...afterCredentials].filter(([k]) => !beforeCredentials.has(k)));
  const moved = movedToBroker(before, after, addedCredentials);
  // A broker token grants exactly the container's egress by name, which is compared on its own.
  const brokerTokens = after.brokerTokensSecret;
  const isBrokerToken = (line: string) =>
    brokerTokens !== undefined &&
    (secretOf(line)?.startsWith(`${brokerTokens}/`) || line.includes(`secret ${brokerTokens} `));
  const widening = [...addedCredentials].filter(([k, line]) => !moved.keys.has(k) && !isBrokerToken(line));
  const egressByName = compare(egressByNameLines(before), egressByNameLines(after));
  const images = compare(setOf(before.images), setOf(after.images));
  const mcpServers = compare(mcpLines(before), mcpLines(after));
  const beforeCaches = cacheUseLines(before.caches ?? []);
  const afterCaches = cacheUseLines(after.caches ?? []);
  const caches = compare(beforeCaches, afterCaches);
  const newCacheWriters = [...afterCaches.keys()].filter(
    (k) => isWideningCacheKey(k) && !beforeCaches.has(k),
  );
  const renamed = base !== undefined && head !== undefined && base.name !== head.name;
  if (!renamed && objects.added.length + objects.removed.length + objects.changed.length === 0)
    return undefined;
  return {
    agent: (head ?? base)!.name,
    namespace: (head ?? base)!.namespace,
    status: !base ? 'added' : !head ? 'removed' : renamed ? 'renamed' : 'changed',
    ...(renamed ? { from: base.name } : {}),
    authority,
    egress,
    egressByName,
    credentials,
    credentialsMoved: moved.moved,
    images,
    mcpServers,
    caches,
    objects,
    widens:
      authority.added.length +
        egress.added.length +
        egressByName.added.length +
        widening.length +
        newCacheWriters.length >
      0,
  };
}

/** A spec's identity but for its name: a renamed agent whose file moved is recognised by its content. */
export type SpecFingerprint = (agent: FleetAgent) => string;

export function diffFleets(
  base: readonly FleetAgent[],
  head: readonly FleetAgent[],
  labels: { base: string; head: string },
  fingerprint: SpecFingerprint = () => '',
): FleetDiff {
  const headByName = new Map(head.map((a) => [a.name, a]));
  const baseByName = new Map(base.map((a) => [a.name, a]));
  const removed = base.filter((a) => !headByName.has(a.name));
  const added = head.filter((a) => !baseByName.has(a.name));
  const pairs: [FleetAgent | undefined, FleetAgent | undefined][] = [];
  for (const a of base) if (headByName.has(a.name)) pairs.push([a, headByName.get(a.name)]);
  const unpairedAdded = new Set(added);
  for (const r of removed) {
    const match =
      [...unpairedAdded].find((a) => a.file === r.file) ??
      [...unpairedAdded].find((a) => fingerprint(a) !== '' && fingerprint(a) === fingerprint(r));
    if (match) unpairedAdded.delete(match);
    pairs.push([r, match]);
  }
  for (const a of unpairedAdded) pairs.push([undefined, a]);
  const agents: AgentDiff[] = [];
  let unchanged = 0;
  for (const [b, h] of pairs) {
    const d = diffAgent(b, h);
    if (d) agents.push(d);
    else unchanged++;
  }
  agents.sort((x, y) => (x.agent < y.agent ? -1 : x.agent > y.agent ? 1 : 0));
  return { base: labels.base, head: labels.head, agents, unchanged, widens: agents.some((a) => a.widens) };
}
