/**
 * The broker's invariants (issue 17), read from the rendered objects and the spec alone: with the broker on, no
 * pod but the broker has `ipBlock` egress (Kubernetes API server rules and a deployed gateway's declared egress
 * excepted); no backend or toolchain container references a model or gateway credential; every base URL and
 * proxy URL resolves to the broker's Service; and each container's egress by name, as the broker's config holds
 * it, is exactly what the spec declares.
 */
import { parse as parseToml } from 'smol-toml';
import { ECOSYSTEMS, isEcosystem, PRESET_ECOSYSTEMS } from '../../constructs/src/ecosystems.ts';
import type { KubeObject } from '../../constructs/src/render.ts';
import type { NamedEgress, ToolyardAgent } from '../../schema/src/types.generated.ts';
import { podSpecsOf } from '../support/pod-security.ts';
import { observabilityOn } from './observability-invariants.ts';

type Json = Record<string, unknown>;
type Check = (objects: readonly KubeObject[], agent: ToolyardAgent) => string[];

const asObject = (v: unknown): Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
const asList = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function brokerOn(agent: ToolyardAgent): boolean {
  return agent.spec.broker?.enabled ?? true;
}

export function brokerName(agent: ToolyardAgent): string {
  return `${agent.metadata.name}-broker`;
}

export function tokensSecret(agent: ToolyardAgent): string {
  return agent.spec.broker?.tokensSecret ?? `${agent.metadata.name}-broker-tokens`;
}

/** Containers that call the broker: every backend, and toolchains whose egress is not `none`. */
export function brokerCallers(agent: ToolyardAgent): string[] {
  return [
    ...agent.spec.backends.map((b) => b.name),
    // With observability every toolchain exports through the broker's otlp route (docs/observability.md).
    ...(agent.spec.toolchains ?? [])
      .filter((t) => observabilityOn(agent) || (t.network?.egress ?? 'none') !== 'none')
      .map((t) => `toolchain-${t.name}`),
  ];
}

/** `name/key` of every model key and gateway token: with the broker on, only the broker pod may hold them. */
export function brokerHeldSecrets(agent: ToolyardAgent): Set<string> {
  const held = new Set<string>();
  for (const b of agent.spec.backends)
    if (b.model) held.add(`${b.model.apiKeySecret.name}/${b.model.apiKeySecret.key}`);
  for (const g of agent.spec.gateways ?? []) {
    if (!g.auth) continue;
    if ('url' in g && LOCAL.has(new URL(g.url).hostname)) continue; // in the pod: not routed
    held.add(`${g.auth.bearerTokenSecret.name}/${g.auth.bearerTokenSecret.key}`);
  }
  return held;
}

function componentOf(meta: unknown): string {
  return String(asObject(asObject(meta)['labels'])['app.kubernetes.io/component'] ?? '');
}

/** With the broker on, only the broker's NetworkPolicy has ipBlock egress (API server and gateway egress aside). */
export const onlyBrokerHasInternetEgress: Check = (objects, agent) => {
  if (!brokerOn(agent) || agent.spec.networkPolicy?.enabled === false) return [];
  const violations: string[] = [];
  const api = agent.spec.networkPolicy?.apiServerEgress?.cidrs ?? [];
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  if (!policies.some((p) => p.metadata.name === brokerName(agent)))
    violations.push(`no NetworkPolicy ${brokerName(agent)}`);
  for (const policy of policies) {
    const component = componentOf(policy.metadata);
    if (component === 'broker') continue;
    const gateway = component.startsWith('gateway-')
      ? (agent.spec.gateways ?? []).find((g) => `gateway-${g.name}` === component)
      : undefined;
    const allowed = new Set<string>([
      // The agent pod's API server rule exists only with rbac.preset; a gateway's with Kubernetes authority.
      ...(component === 'agent' && (agent.spec.rbac?.preset ?? 'none') !== 'none' ? api : []),
      ...(gateway && 'authority' in gateway && gateway.authority?.kubernetes ? api : []),
      ...(gateway && 'image' in gateway && gateway.egress ? gateway.egress.cidrs : []),
    ]);
    for (const rule of asList(asObject(policy['spec'])['egress'])) {
      if (asList(rule['to']).length === 0)
        violations.push(`NetworkPolicy ${policy.metadata.name}: an egress rule to anywhere`);
      for (const peer of asList(rule['to'])) {
        const block = asObject(peer['ipBlock']);
        if (Object.keys(block).length > 0 && !allowed.has(String(block['cidr'])))
          violations.push(`NetworkPolicy ${policy.metadata.name}: ipBlock ${String(block['cidr'])} egress`);
      }
    }
  }
  return violations;
};

/** With the broker on, no backend or toolchain container references a model key or a gateway token. */
export const credentialsOnlyInBroker: Check = (objects, agent) => {
  if (!brokerOn(agent)) return [];
  const held = brokerHeldSecrets(agent);
  const violations: string[] = [];
  for (const pod of objects.flatMap(podSpecsOf)) {
    const component = componentOf(pod.podMetadata);
    if (component !== 'agent' && !component.startsWith('toolchain-')) continue;
    const volumes = new Map(asList(pod.podSpec['volumes']).map((v) => [String(v['name']), v]));
    for (const container of [
      ...asList(pod.podSpec['containers']),
      ...asList(pod.podSpec['initContainers']),
    ]) {
      const where = `${pod.where}: container ${String(container['name'])}`;
      for (const env of asList(container['env'])) {
        const ref = asObject(asObject(env['valueFrom'])['secretKeyRef']);
        if (held.has(`${String(ref['name'])}/${String(ref['key'])}`))
          violations.push(
            `${where}: env ${String(env['name'])} reads ${String(ref['name'])}/${String(ref['key'])}`,
          );
        // Its own broker token only.
        if (ref['name'] === tokensSecret(agent) && ref['key'] !== container['name'])
          violations.push(`${where}: env ${String(env['name'])} reads another caller's broker token`);
      }
      for (const mount of asList(container['volumeMounts'])) {
        const secret = asObject(volumes.get(String(mount['name']))?.['secret']);
        for (const item of asList(secret['items'])) {
          if (held.has(`${String(secret['secretName'])}/${String(item['key'])}`))
            violations.push(`${where}: mounts ${String(secret['secretName'])}/${String(item['key'])}`);
          if (secret['secretName'] === tokensSecret(agent) && item['key'] !== container['name'])
            violations.push(`${where}: mounts another caller's broker token`);
        }
      }
    }
  }
  return violations;
};

/** `undefined` when the URL's origin is the broker Service's proxy port, serving the broker pods. */
function brokerUrlProblem(
  raw: string,
  objects: readonly KubeObject[],
  agent: ToolyardAgent,
): string | undefined {
  if (!URL.canParse(raw)) return `${raw} is not a URL`;
  const url = new URL(raw);
  const namespace = agent.metadata.namespace ?? 'default';
  if (url.hostname !== `${brokerName(agent)}.${namespace}.svc`) return `${raw} is not the broker Service`;
  const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === brokerName(agent));
  const port = asList(asObject(service?.['spec'])['ports']).find((p) => String(p['port']) === url.port);
  if (!port) return `${raw}: the broker Service has no port ${url.port}`;
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === brokerName(agent));
  const container = asList(asObject(podSpecsOf(deployment)[0]?.podSpec)['containers'])[0];
  if (!asList(container?.['ports']).some((p) => p['name'] === port['targetPort']))
    return `${raw}: the broker container does not serve ${String(port['targetPort'])}`;
  return undefined;
}

/** Every base URL, route URL and proxy URL a backend or toolchain holds resolves to the broker Service. */
export const brokerUrlsResolve: Check = (objects, agent) => {
  if (!brokerOn(agent)) return [];
  const violations: string[] = [];
  const configMaps = objects.filter((o) => o.kind === 'ConfigMap');
  const data = (name: string) => asObject(configMaps.find((c) => c.metadata.name === name)?.['data']);
  const clients = data(`${agent.metadata.name}-mcp-clients`);
  const check = (where: string, url: unknown) => {
    const problem = brokerUrlProblem(String(url), objects, agent);
    if (problem) violations.push(`${where}: ${problem}`);
  };
  const agentPod = objects.flatMap(podSpecsOf).find((p) => componentOf(p.podMetadata) === 'agent');
  const containers = new Map(asList(agentPod?.podSpec['containers']).map((c) => [String(c['name']), c]));
  for (const backend of agent.spec.backends) {
    const env = new Map(
      asList(containers.get(backend.name)?.['env']).map((e) => [String(e['name']), e['value']]),
    );
    if (backend.model) {
      check(`backend ${backend.name}: TOOLYARD_BROKER_URL`, env.get('TOOLYARD_BROKER_URL'));
      if (backend.type === 'claude') {
        const settings = JSON.parse(String(clients[`${backend.name}.managed-settings.json`] ?? '{}'));
        check(`backend ${backend.name}: ANTHROPIC_BASE_URL`, asObject(settings['env'])['ANTHROPIC_BASE_URL']);
      }
      if (backend.type === 'openai') {
        const config = asObject(parseToml(String(clients[`${backend.name}.config.toml`] ?? '')));
        const provider = String(config['model_provider']);
        check(
          `backend ${backend.name}: model_providers.${provider}.base_url`,
          asObject(asObject(config['model_providers'])[provider])['base_url'],
        );
      }
      if (backend.type === 'gemini')
        check(`backend ${backend.name}: GOOGLE_GEMINI_BASE_URL`, env.get('GOOGLE_GEMINI_BASE_URL'));
    }
    if ((backend.network?.egress ?? 'none') !== 'none')
      for (const name of ['HTTPS_PROXY', 'HTTP_PROXY'])
        check(`backend ${backend.name}: ${name}`, String(env.get(name)).replace(/\/\/[^@]*@/, '//'));
  }
  for (const t of agent.spec.toolchains ?? []) {
    if ((t.network?.egress ?? 'none') === 'none') continue;
    const config = JSON.parse(
      String(data(`${agent.metadata.name}-toolchain-${t.name}`)['config.json'] ?? '{}'),
    );
    const proxy = asObject(config['egressProxy']);
    check(`toolchain ${t.name}: egressProxy.url`, proxy['url']);
    if (proxy['user'] !== `toolchain-${t.name}`)
      violations.push(`toolchain ${t.name}: egressProxy.user is ${String(proxy['user'])}`);
  }
  return violations;
};

/** The hosts (`host:port`) and open ports the spec gives one container, computed from the spec alone. */
function declaredEgress(
  egress: 'none' | 'open' | 'registries' | NamedEgress | undefined,
  presets: readonly string[],
  egressPorts: readonly number[],
): { hosts: string[]; open: number[] } {
  if (egress === undefined || egress === 'none') return { hosts: [], open: [] };
  if (egress === 'open') return { hosts: [], open: [...egressPorts] };
  const ecosystems =
    egress === 'registries'
      ? presets.flatMap((p) => PRESET_ECOSYSTEMS[p as keyof typeof PRESET_ECOSYSTEMS] ?? [])
      : (egress.ecosystems ?? []);
  const hosts = new Set<string>();
  for (const e of ecosystems) if (isEcosystem(e)) for (const h of ECOSYSTEMS[e].hosts) hosts.add(`${h}:443`);
  if (egress !== 'registries')
    for (const h of egress.hosts ?? []) hosts.add(/:[0-9]+$/.test(h) ? h : `${h}:443`);
  return { hosts: [...hosts].sort(), open: [] };
}

/** Each caller's egress in the broker's config is exactly the spec's; nobody else is a caller. */
export const egressByNameMatchesSpec: Check = (objects, agent) => {
  if (!brokerOn(agent)) return [];
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === brokerName(agent));
  const config = JSON.parse(String(asObject(configMap?.['data'])['config.json'] ?? '{}'));
  const callers = new Map(asList(config['callers']).map((c) => [String(c['name']), c]));
  const egressPorts = agent.spec.broker?.egressPorts ?? [443];
  const violations: string[] = [];
  const expected = new Map<string, { hosts: string[]; open: number[] }>();
  for (const b of agent.spec.backends)
    expected.set(b.name, declaredEgress(b.network?.egress, [], egressPorts));
  for (const t of agent.spec.toolchains ?? [])
    if ((t.network?.egress ?? 'none') !== 'none')
      expected.set(
        `toolchain-${t.name}`,
        declaredEgress(t.network?.egress, t.tools?.presets ?? [], egressPorts),
      );
    // A caller for its telemetry alone: the otlp route, no egress.
    else if (observabilityOn(agent)) expected.set(`toolchain-${t.name}`, { hosts: [], open: [] });
  for (const name of callers.keys())
    if (!expected.has(name)) violations.push(`caller ${name} is not a backend or a toolchain with egress`);
  for (const [name, want] of expected) {
    const caller = callers.get(name);
    if (!caller) {
      violations.push(`${name} is not a caller of the broker`);
      continue;
    }
    const hosts = asList(caller['egress'])
      .flatMap((e) => asList(e['ports']).map((p) => `${String(e['host'])}:${String(p)}`))
      .sort();
    if (JSON.stringify(hosts) !== JSON.stringify(want.hosts))
      violations.push(`${name}: egress ${hosts.join(' ')} but the spec declares ${want.hosts.join(' ')}`);
    const open = asList(caller['openPorts']).map(Number);
    if (JSON.stringify(open) !== JSON.stringify(want.open))
      violations.push(`${name}: openPorts [${open.join(', ')}] but the spec says [${want.open.join(', ')}]`);
    if (caller['tokenFile'] !== `/etc/toolyard/broker/callers/${name}`)
      violations.push(`${name}: token file ${String(caller['tokenFile'])}`);
  }
  return violations;
};

export const BROKER_INVARIANTS: Readonly<Record<string, Check>> = {
  onlyBrokerHasInternetEgress,
  credentialsOnlyInBroker,
  brokerUrlsResolve,
  egressByNameMatchesSpec,
};
