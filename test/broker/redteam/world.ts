/**
 * The world the red team attacks: fake endpoints on different loopback addresses (127.0.0.x is loopback on
 * Linux, so each stands for a different host), a resolver the broker is given that maps test names to them,
 * the secrets (caller tokens, route keys) in files, and three brokers built from the same callers and routes
 * with different denied ranges (types.ts, BrokerName).
 *
 * The resolver answers from a table; it hands an IP literal in any inet_aton form (`2130706433`, `0x7f.1`) to
 * the OS, as getaddrinfo would, so a broker that let one through would really connect. It never asks DNS.
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_DENIED_CIDRS } from '../../../toolchain-server/broker/config.ts';
import { makeTestCa, type TestCa } from '../tls-fixture.ts';
import { type Endpoint, startEndpoint } from './endpoint.ts';
import type { BrokerName, CallerName, DnsOverride, EndpointName } from './types.ts';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/**
 * Where each endpoint listens and the names that resolve to it. CONNECT targets share one port (P) on
 * different addresses, so that only the host differs between them. Route upstreams are reached the way the
 * broker reaches them in production — through the OS resolver, not the broker's injected one — so they listen
 * on `localhost`, each on a port of its own.
 */
export const ENDPOINTS: Readonly<
  Record<
    EndpointName,
    {
      readonly address: string;
      readonly names: readonly string[];
      readonly ownPort?: true;
      /** A certificate the broker must refuse: from another CA, or from the test CA for another name. */
      readonly badCert?: 'other-ca' | 'other-name';
    }
  >
> = {
  model: { address: '127.0.0.1', names: [], ownPort: true },
  gemini: { address: '127.0.0.1', names: [], ownPort: true },
  openai: { address: '127.0.0.1', names: [], ownPort: true },
  gateway: { address: '127.0.0.1', names: [], ownPort: true },
  impostorCa: { address: '127.0.0.1', names: [], ownPort: true, badCert: 'other-ca' },
  impostorName: { address: '127.0.0.1', names: [], ownPort: true, badCert: 'other-name' },
  allowed: { address: '127.0.0.10', names: ['allowed.pkg.test'] },
  allowedAlt: { address: '127.0.0.10', names: [], ownPort: true },
  mirror: { address: '127.0.0.11', names: ['cdn.mirror.test'] },
  evil: {
    address: '127.0.0.30',
    names: ['evil.test', 'allowed.pkg.test.evil.test', 'evilmirror.test', 'mirror.test'],
  },
  private: { address: '127.0.0.70', names: ['internal.mirror.test'] },
  loop1: { address: '127.0.0.1', names: ['localhost', 'loop.mirror.test'] },
  loop6: { address: '::1', names: ['loop6.mirror.test'] },
};

/** Names that resolve to addresses nothing listens on (never connected to: a control re-points them). */
export const UNBOUND_NAMES: Readonly<Record<string, readonly string[]>> = {
  'meta.mirror.test': ['169.254.169.254'],
  'pod.mirror.test': ['10.42.0.7'],
  'svc.mirror.test': ['172.20.0.10'],
  'home.mirror.test': ['192.168.1.1'],
  'cgnat.mirror.test': ['100.64.0.1'],
  'zero.mirror.test': ['0.0.0.0'],
  'mcast.mirror.test': ['224.0.0.251'],
  'ula.mirror.test': ['fd00::1'],
  'll6.mirror.test': ['fe80::1'],
  'mapped.mirror.test': ['::ffff:10.0.0.1'],
  'nat64.mirror.test': ['64:ff9b::a9fe:a9fe'],
  'sixtofour.mirror.test': ['2002:a9fe:a9fe::1'],
};

export const ROUTE_ENDPOINT: Readonly<Record<string, EndpointName>> = {
  'impostor-ca': 'impostorCa',
  'impostor-name': 'impostorName',
  claude: 'model',
  gemini: 'gemini',
  openai: 'openai',
  'gateway-x': 'gateway',
};

/** A name whose resolution never finishes. */
export const HANGING_NAME = 'hang.mirror.test';

/** The lab broker's private range: loopback addresses with live listeners, denied like 10.0.0.0/8 would be. */
export const LAB_PRIVATE_RANGE = '127.0.0.64/26';

export class FakeResolver {
  readonly queries: string[] = [];
  private override: DnsOverride = {};
  private counts = new Map<string, number>();

  /** Answers for the next step only; resets the per-name query counts. */
  setOverride(override: DnsOverride | undefined): void {
    this.override = override ?? {};
    this.counts.clear();
  }

  readonly resolve = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    this.queries.push(name);
    const answers = this.override[name];
    if (answers && answers.length > 0) {
      const n = this.counts.get(name) ?? 0;
      this.counts.set(name, n + 1);
      return toAddresses(answers[Math.min(n, answers.length - 1)]!);
    }
    for (const endpoint of Object.values(ENDPOINTS))
      if (endpoint.names.includes(name)) return toAddresses([endpoint.address]);
    // A resolver that never answers (a black-holed DNS server).
    if (name === HANGING_NAME) return new Promise<never>(() => {});
    const unbound = UNBOUND_NAMES[name];
    if (unbound) return toAddresses(unbound);
    // What getaddrinfo does with a numeric host (inet_aton forms included); a name never reaches DNS.
    if (/^[0-9a-fx.:]+$/i.test(name)) return lookup(name, { all: true });
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };
}

function toAddresses(addresses: readonly string[]): ResolvedAddress[] {
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

function secret(label: string): string {
  return `${label}-${randomBytes(12).toString('hex')}`;
}

export interface World {
  readonly dir: string;
  readonly ca: TestCa;
  readonly port: number;
  readonly altPort: number;
  readonly endpoints: Readonly<Record<EndpointName, Endpoint>>;
  readonly resolver: FakeResolver;
  readonly tokens: Readonly<Record<CallerName, string>>;
  /** Route name → its real key. */
  readonly keys: Readonly<Record<string, string>>;
  /** Every string that must never leave the broker: tokens, keys and the Basic credentials made of tokens. */
  readonly secrets: readonly string[];
  config(broker: BrokerName): Record<string, unknown>;
  resetEndpoints(): void;
  close(): Promise<void>;
}

async function bindAll(ca: TestCa): Promise<{ port: number; endpoints: Record<EndpointName, Endpoint> }> {
  const leaf = ca.issue([
    'localhost',
    ...Object.values(ENDPOINTS).flatMap((e) => e.names),
    ...new Set(Object.values(ENDPOINTS).map((e) => e.address)),
  ]);
  const otherCa = makeTestCa(['localhost', '127.0.0.1']);
  const certs = { 'other-ca': otherCa, 'other-name': ca.issue(['evil.test']) } as const;
  const certOf = (spec: (typeof ENDPOINTS)[EndpointName]) => (spec.badCert ? certs[spec.badCert] : leaf);
  const entries = Object.entries(ENDPOINTS) as [EndpointName, (typeof ENDPOINTS)[EndpointName]][];
  for (let attempt = 0; ; attempt++) {
    const started: Endpoint[] = [];
    try {
      const endpoints: Partial<Record<EndpointName, Endpoint>> = {};
      for (const [name, spec] of entries.filter(([, spec]) => spec.ownPort)) {
        endpoints[name] = await startEndpoint({ name, address: spec.address, port: 0, ...certOf(spec) });
        started.push(endpoints[name]);
      }
      let port = 0;
      for (const [name, spec] of entries.filter(([, spec]) => !spec.ownPort)) {
        endpoints[name] = await startEndpoint({ name, address: spec.address, port, ...leaf });
        started.push(endpoints[name]);
        port = endpoints[name].port;
      }
      otherCa.cleanup();
      return { port, endpoints: endpoints as Record<EndpointName, Endpoint> };
    } catch (error) {
      await Promise.all(started.map((e) => e.close()));
      // Another process holds the shared port on one of the addresses: pick another.
      if (attempt >= 5 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
}

export async function makeWorld(): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-broker-redteam-'));
  const ca = makeTestCa(['api.model.test']);
  const { port, endpoints } = await bindAll(ca);
  const altPort = endpoints.allowedAlt.port;
  const upstream = (at: EndpointName, base = '') => `https://localhost:${endpoints[at].port}${base}`;
  const resolver = new FakeResolver();
  const tokens: Record<CallerName, string> = {
    claude: secret('tyb-claude'),
    codex: secret('tyb-codex'),
    gemini: secret('tyb-gemini'),
    rust: secret('tyb-rust'),
    go: secret('tyb-go'),
    wide: secret('tyb-wide'),
  };
  const keys: Record<string, string> = {
    claude: secret('sk-ant-real'),
    gemini: secret('AIza-real'),
    openai: secret('sk-proj-real'),
    'gateway-x': secret('gw-real'),
    'impostor-ca': secret('sk-impostor-ca-real'),
    'impostor-name': secret('sk-impostor-name-real'),
  };
  mkdirSync(join(dir, 'callers'));
  mkdirSync(join(dir, 'keys'));
  for (const [caller, token] of Object.entries(tokens))
    writeFileSync(join(dir, 'callers', caller), `${token}\n`);
  for (const [route, key] of Object.entries(keys)) {
    mkdirSync(join(dir, 'keys', route));
    writeFileSync(join(dir, 'keys', route, 'key'), `${key}\n`);
  }
  const basics = Object.entries(tokens).map(([caller, token]) =>
    Buffer.from(`${caller}:${token}`).toString('base64'),
  );
  const keyFile = (route: string) => join(dir, 'keys', route, 'key');
  const routes = [
    {
      name: 'claude',
      kind: 'model',
      upstream: upstream('model'),
      credential: { file: keyFile('claude'), header: 'x-api-key' },
    },
    {
      name: 'gemini',
      kind: 'model',
      upstream: upstream('gemini'),
      credential: { file: keyFile('gemini'), header: 'x-goog-api-key' },
    },
    {
      name: 'openai',
      kind: 'model',
      upstream: upstream('openai', '/v1'),
      credential: { file: keyFile('openai'), header: 'authorization', prefix: 'Bearer ' },
    },
    {
      name: 'gateway-x',
      kind: 'gateway',
      upstream: upstream('gateway', '/mcp'),
      credential: { file: keyFile('gateway-x'), header: 'authorization', prefix: 'Bearer ' },
    },
  ];
  for (const [route, at] of [
    ['impostor-ca', 'impostorCa'],
    ['impostor-name', 'impostorName'],
  ] as const)
    routes.push({
      name: route,
      kind: 'model',
      upstream: upstream(at),
      credential: { file: keyFile(route), header: 'x-api-key' },
    });
  const tokenFile = (caller: string) => join(dir, 'callers', caller);
  const callers = [
    {
      name: 'claude',
      tokenFile: tokenFile('claude'),
      routes: ['claude', 'gateway-x', 'impostor-ca', 'impostor-name'],
    },
    { name: 'codex', tokenFile: tokenFile('codex'), routes: ['openai'] },
    { name: 'gemini', tokenFile: tokenFile('gemini'), routes: ['gemini'] },
    {
      name: 'rust',
      tokenFile: tokenFile('rust'),
      egress: [
        { host: 'allowed.pkg.test', ports: [port] },
        { host: '*.mirror.test', ports: [port] },
      ],
    },
    { name: 'go', tokenFile: tokenFile('go'), egress: [{ host: 'evil.test', ports: [port] }] },
    { name: 'wide', tokenFile: tokenFile('wide'), openPorts: [port] },
  ];
  const testLimits = {
    maxHeaderBytes: 8192,
    headersTimeoutMs: 1500,
    idleTimeoutMs: 10_000,
    maxConnections: 256,
    maxConnectionsPerCaller: 6,
    connectTimeoutMs: 2000,
  };
  const denied: Record<BrokerName, string[]> = {
    lab: [...DEFAULT_DENIED_CIDRS.filter((c) => c !== '127.0.0.0/8'), LAB_PRIVATE_RANGE],
    strict: [...DEFAULT_DENIED_CIDRS],
    open: [],
  };
  return {
    dir,
    ca,
    port,
    altPort,
    endpoints,
    resolver,
    tokens,
    keys,
    secrets: [...Object.values(tokens), ...Object.values(keys), ...basics],
    config: (broker) => ({
      agent: 'redteam',
      listen: { host: '127.0.0.1', port: 8480, allowedHosts: ['redteam-broker.agents.svc'] },
      health: { host: '127.0.0.1', port: 9480 },
      routes,
      callers,
      deniedCidrs: denied[broker],
      // The endpoints serve HTTP and TLS on one port: the lab makes it an HTTP port (what cannot be read there is
      // refused); the open broker, a control only, relays whatever a tunnel carries, as the broker did before.
      httpPorts: broker === 'lab' ? [port] : broker === 'open' ? [] : undefined,
      extraCaFile: ca.caFile,
      limits: broker === 'open' ? { connectTimeoutMs: 2000 } : testLimits,
    }),
    resetEndpoints() {
      for (const endpoint of Object.values(endpoints)) endpoint.reset();
    },
    async close() {
      await Promise.all(Object.values(endpoints).map((e) => e.close()));
      ca.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills a case's template (types.ts) for one broker. */
export function fill(world: World, text: string, brokerHost: string): string {
  return text.replace(/\{\{([A-Z]+)(?::([^}]+))?\}\}/g, (whole, kind: string, arg: string | undefined) => {
    switch (kind) {
      case 'P':
        return String(world.port);
      case 'Q':
        return String(world.altPort);
      case 'PORT':
        return String(world.endpoints[arg as EndpointName]?.port ?? missing(whole));
      case 'HOST':
        return brokerHost;
      case 'T':
        return world.tokens[arg as CallerName] ?? missing(whole);
      case 'BASIC': {
        const token = world.tokens[arg as CallerName] ?? missing(whole);
        return Buffer.from(`${arg}:${token}`).toString('base64');
      }
      case 'TX': {
        // The caller's token with its last character changed: right length, wrong value.
        const token = world.tokens[arg as CallerName] ?? missing(whole);
        return `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
      }
      case 'B64':
        return Buffer.from(arg ?? '').toString('base64');
      case 'TOKENASUSER': {
        // `caller` or `caller/password`: Basic credentials whose user name is `caller`'s token (a proxy URL
        // written http://<token>@broker, or http://<token>:<password>@broker).
        const [caller, password = ''] = (arg ?? '').split('/');
        const token = world.tokens[caller as CallerName] ?? missing(whole);
        return Buffer.from(`${token}:${password}`).toString('base64');
      }
      case 'BASICAS': {
        // `name/caller`: Basic credentials claiming to be `name`, with `caller`'s token.
        const [name, caller] = (arg ?? '').split('/');
        const token = world.tokens[caller as CallerName] ?? missing(whole);
        return Buffer.from(`${name}:${token}`).toString('base64');
      }
      case 'K':
        return world.keys[arg ?? ''] ?? missing(whole);
      case 'A':
        return 'a'.repeat(Number(arg));
      default:
        return missing(whole);
    }
  });
}

function missing(placeholder: string): never {
  throw new Error(`red-team template: unknown placeholder ${placeholder}`);
}
