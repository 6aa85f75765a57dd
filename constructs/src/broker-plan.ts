/**
 * The broker's part of the plan: its settings with defaults, each backend's model route, the gateways' routes,
 * each container's egress by name (hosts from `hosts` and the ecosystems' table), and the callers, one per
 * container that talks to the broker. Semantic checks report what is wrong in the spec; planning never throws
 * and keeps what it cannot resolve out of the grants (an unknown ecosystem adds no host).
 */
import type {
  Backend,
  BrokerSettings,
  DeployedGateway,
  ExternalGateway,
  NamedEgress,
} from '../../schema/src/types.generated.ts';
import type { ToolPreset } from '../../toolchain-server/src/config.ts';
import { codeModeRoutes } from './code-mode-plan.ts';
import * as D from './defaults.ts';
import { ECOSYSTEMS, isEcosystem, PRESET_ECOSYSTEMS } from './ecosystems.ts';
import { type AgentNames, BROKER_COMPONENT, brokerRouteForGateway, brokerRouteForModel } from './names.ts';
import { planImage } from './plan-image.ts';
import type {
  EgressHost,
  PlannedBackend,
  PlannedBroker,
  PlannedCaller,
  PlannedGateway,
  PlannedModel,
  PlannedNamedEgress,
  PlannedRoute,
  PlannedToolchain,
} from './plan-types.ts';

export type PlannedBrokerSettings = Omit<PlannedBroker, 'routes' | 'callers'>;

export function planBrokerSettings(
  settings: BrokerSettings | undefined,
  names: AgentNames,
): PlannedBrokerSettings {
  const port = settings?.port ?? D.BROKER_PORTS_DEFAULT.proxy;
  return {
    enabled: settings?.enabled ?? true,
    objectName: names.broker,
    component: BROKER_COMPONENT,
    selector: names.brokerSelector(),
    host: names.brokerHost,
    url: `http://${names.brokerHost}:${port}`,
    image: planImage(settings?.image ?? D.DEFAULT_BROKER_IMAGE),
    port,
    healthPort: settings?.healthPort ?? D.BROKER_PORTS_DEFAULT.health,
    tokensSecret: settings?.tokensSecret ?? D.defaultBrokerTokensSecret(names.agent),
    egressPorts: settings?.egressPorts ?? [...D.DEFAULT_BROKER_EGRESS_PORTS],
    deniedCidrs: settings?.deniedCidrs ?? [...D.DEFAULT_DENIED_CIDRS],
    replicas: settings?.replicas ?? D.DEFAULT_BROKER_REPLICAS,
    resources: settings?.resources ?? D.DEFAULT_BROKER_RESOURCES,
  };
}

/** `host` or `host:port`, as written in `network.egress.hosts`. */
export function splitHostPort(text: string): { host: string; port?: number } {
  const match = /^(.*):([0-9]{1,5})$/.exec(text);
  if (!match || match[1]!.includes(':')) return { host: text };
  return { host: match[1]!, port: Number(match[2]) };
}

const NONE: PlannedNamedEgress = {
  kind: 'none',
  fromRegistriesAlias: false,
  ecosystems: [],
  declaredHosts: [],
  entries: [],
};

/** A container's egress by name; `presets` resolves the `registries` alias of toolchains. */
export function planNamedEgress(
  egress: 'none' | 'open' | 'registries' | NamedEgress | undefined,
  presets: readonly ToolPreset[] = [],
): PlannedNamedEgress {
  if (egress === undefined || egress === 'none') return NONE;
  if (egress === 'open') return { ...NONE, kind: 'open' };
  const alias = egress === 'registries';
  const ecosystems = alias
    ? [...new Set(presets.flatMap((preset) => PRESET_ECOSYSTEMS[preset]))]
    : (egress.ecosystems ?? []);
  const declaredHosts = alias ? [] : (egress.hosts ?? []);
  const ports = new Map<string, Set<number>>();
  const add = (host: string, port: number) => {
    const set = ports.get(host) ?? new Set<number>();
    set.add(port);
    ports.set(host, set);
  };
  for (const ecosystem of ecosystems) {
    if (!isEcosystem(ecosystem)) continue;
    for (const host of ECOSYSTEMS[ecosystem].hosts) add(host, D.DEFAULT_EGRESS_HOST_PORT);
  }
  for (const text of declaredHosts) {
    const { host, port } = splitHostPort(text);
    add(host, port ?? D.DEFAULT_EGRESS_HOST_PORT);
  }
  const entries = [...ports.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([host, set]) => ({ host, ports: [...set].sort((a, b) => a - b) }));
  return { kind: 'named', fromRegistriesAlias: alias, ecosystems, declaredHosts, entries };
}

/**
 * A backend's model access. With the broker on, a route to the provider whose credential only the broker
 * mounts; with it off, the key as the CLI's variable (the pre-broker shape). No `model`: nothing.
 */
export function planModel(backend: Backend, broker: PlannedBrokerSettings): PlannedModel | undefined {
  const model = backend.model;
  if (!model) return undefined;
  const type = backend.type;
  const keyEnv = type === 'custom' ? undefined : D.MODEL_KEY_ENV[type];
  const apiKeySecret = { name: model.apiKeySecret.name, key: model.apiKeySecret.key };
  if (!broker.enabled) return { ...(keyEnv ? { keyEnv } : {}), apiKeySecret };
  const upstream = model.upstream ?? (type === 'custom' ? '' : D.DEFAULT_MODEL_UPSTREAMS[type]);
  const header =
    model.credentialHeader ??
    (type === 'custom' ? { name: '', prefix: '' } : D.DEFAULT_MODEL_CREDENTIAL_HEADERS[type]);
  const name = brokerRouteForModel(backend.name);
  const route: PlannedRoute = {
    name,
    kind: 'model',
    owner: backend.name,
    upstream,
    url: `${broker.url}/${name}`,
    credential: { secret: apiKeySecret, header: header.name, prefix: header.prefix ?? '' },
    insecureHttp: false,
  };
  return { ...(keyEnv ? { keyEnv } : {}), apiKeySecret, route };
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * The broker route of a gateway, with the broker on: every external gateway (except one inside the agent pod,
 * on 127.0.0.1), so the agent pod needs no internet egress; and every deployed gateway with `auth`, so the
 * backends never hold its token (the broker adds it, over the cluster network).
 */
export function planGatewayRoute(
  gateway: DeployedGateway | ExternalGateway,
  upstreamUrl: string,
  broker: PlannedBrokerSettings,
  inCluster?: { readonly podLabels: Readonly<Record<string, string>>; readonly port: number },
): PlannedRoute | undefined {
  if (!broker.enabled) return undefined;
  if (inCluster && !gateway.auth) return undefined;
  if (!inCluster && URL.canParse(upstreamUrl) && LOCAL_HOSTS.has(new URL(upstreamUrl).hostname))
    return undefined;
  const name = brokerRouteForGateway(gateway.name);
  return {
    name,
    kind: 'gateway',
    owner: gateway.name,
    upstream: upstreamUrl,
    url: `${broker.url}/${name}`,
    ...(gateway.auth
      ? {
          credential: {
            secret: { name: gateway.auth.bearerTokenSecret.name, key: gateway.auth.bearerTokenSecret.key },
            header: 'authorization',
            prefix: 'Bearer ',
          },
        }
      : {}),
    insecureHttp: upstreamUrl.startsWith('http://'),
    ...(inCluster ? { inCluster } : {}),
  };
}

/** The broker's callers: every backend (its model route and the gateways'), then toolchains with egress or code-mode routes. */
export function planCallers(
  broker: PlannedBrokerSettings,
  backends: readonly PlannedBackend[],
  toolchains: readonly PlannedToolchain[],
  gateways: readonly PlannedGateway[],
  agentPod: string,
  telemetryRoute?: string,
): PlannedCaller[] {
  if (!broker.enabled) return [];
  const gatewayRoutes = gateways.flatMap((g) => (g.route ? [g.route.name] : []));
  // With observability on, every backend and toolchain exports its telemetry through the broker's otlp route.
  const telemetry = telemetryRoute ? [telemetryRoute] : [];
  const caller = (
    name: string,
    role: PlannedCaller['role'],
    pod: string,
    routes: readonly string[],
    egress: PlannedNamedEgress,
  ): PlannedCaller => ({
    name,
    role,
    pod,
    routes,
    egress: egress.kind === 'named' ? egress.entries : [],
    openPorts: egress.kind === 'open' ? broker.egressPorts : [],
  });
  return [
    ...backends.map((b) =>
      caller(
        b.name,
        'backend',
        agentPod,
        [...(b.model?.route ? [b.model.route.name] : []), ...gatewayRoutes, ...telemetry],
        b.egress,
      ),
    ),
    // A toolchain calls the broker for its egress by name, for the gateway routes its code mode reaches, and
    // for its telemetry.
    ...toolchains
      .filter((t) => t.namedEgress.kind !== 'none' || codeModeRoutes(t).length > 0 || telemetry.length > 0)
      .map((t) =>
        caller(
          t.containerName,
          'toolchain',
          t.pod?.objectName ?? agentPod,
          [...codeModeRoutes(t), ...telemetry],
          t.namedEgress,
        ),
      ),
  ];
}

/** Every route, model routes first. */
export function brokerRoutes(
  backends: readonly PlannedBackend[],
  gateways: readonly PlannedGateway[],
): PlannedRoute[] {
  return [
    ...backends.flatMap((b) => (b.model?.route ? [b.model.route] : [])),
    ...gateways.flatMap((g) => (g.route ? [g.route] : [])),
  ];
}

export type { EgressHost };
