/**
 * The properties every rendering must have, as functions that return violations (so tests can also prove
 * that each one fails on a tampered rendering). See DESIGN.md "Where authority lives" and "Network".
 */
import { parse as parseToml } from 'smol-toml';
import { HEALTH_PORT_OFFSET } from '../../constructs/src/defaults.ts';
import { FORBIDDEN_RESOURCES, FORBIDDEN_VERBS } from '../../constructs/src/rbac-presets.ts';
import type { KubeObject } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { apiServerProblems } from '../support/api-server-rules.ts';
import { validateKubeObject } from '../support/kubernetes-schema.ts';
import { checkRestricted, type PodTemplate, podSpecsOf } from '../support/pod-security.ts';
import {
  BROKER_INVARIANTS,
  brokerCallers,
  brokerHeldSecrets,
  brokerOn,
  tokensSecret,
} from './broker-invariants.ts';
import { CACHE_INVARIANTS } from './cache-invariants.ts';
import { canonicalJson, scrapePeers } from './observability-invariants.ts';

type Json = Record<string, unknown>;
type Check = (objects: readonly KubeObject[], agent: ToolyardAgent) => string[];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const IANA_SVC_NAME = /^(?=.*[a-z])(?!.*--)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const RECOMMENDED_LABELS = [
  'app.kubernetes.io/name',
  'app.kubernetes.io/instance',
  'app.kubernetes.io/component',
  'app.kubernetes.io/part-of',
  'app.kubernetes.io/managed-by',
];
const SERVICE_ACCOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

const nameOf = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;
const asObject = (v: unknown): Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
const asList = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const labelsOf = (meta: unknown) => asObject(asObject(meta)['labels']) as Record<string, string>;
const namespaceOf = (agent: ToolyardAgent) => agent.metadata.namespace ?? 'default';

function containersOf(podSpec: Json): { list: string; container: Json }[] {
  return ['containers', 'initContainers', 'ephemeralContainers'].flatMap((list) =>
    asList(podSpec[list]).map((container) => ({ list, container })),
  );
}

/** Pods whose template is labelled as the agent pod (as opposed to gateways). */
function isAgentPod(pod: PodTemplate): boolean {
  return labelsOf(pod.podMetadata)['app.kubernetes.io/component'] === 'agent';
}

/** Pods of toolchains with `placement: pod` (component `toolchain-<name>`). */
function isToolchainPod(pod: PodTemplate): boolean {
  return (labelsOf(pod.podMetadata)['app.kubernetes.io/component'] ?? '').startsWith('toolchain-');
}

/** The `name/key` of the token Secret of the toolchain whose container this is, if it has auth. */
function ownTokenSecret(agent: ToolyardAgent, containerName: string): string | undefined {
  const toolchain = (agent.spec.toolchains ?? []).find((t) => `toolchain-${t.name}` === containerName);
  return toolchain?.auth
    ? `${toolchain.auth.bearerTokenSecret.name}/${toolchain.auth.bearerTokenSecret.key}`
    : undefined;
}

function isToolchainContainer(container: Json): boolean {
  const name = String(container['name']);
  return name.startsWith('toolchain-') || name === 'toolyard-install';
}

export const kubernetesSchema: Check = (objects) => objects.flatMap((o) => validateKubeObject(o));

export const podSecurityRestricted: Check = (objects) =>
  objects
    .flatMap(podSpecsOf)
    .flatMap((pod) => checkRestricted(pod.podSpec, pod.podMetadata).map((v) => `${pod.where}: ${v}`));

/** No Secret objects, no Secret-backed volumes or envFrom: credentials only as `secretKeyRef`s the spec declared. */
export const noSecretData: Check = (objects, agent) => {
  const violations: string[] = [];
  const declared = new Set<string>();
  const tokens = bearerTokenSecrets(agent);
  if (brokerOn(agent))
    for (const caller of brokerCallers(agent))
      if (caller.startsWith('toolchain-')) tokens.add(`${tokensSecret(agent)}/${caller}`);
  for (const b of agent.spec.backends)
    for (const s of b.secretEnv ?? []) declared.add(`${s.secretName}/${s.key}`);
  for (const token of tokens) declared.add(token);
  // The broker's callers' tokens (one key each), and with the broker off the backends' model keys.
  if (brokerOn(agent))
    for (const caller of brokerCallers(agent)) declared.add(`${tokensSecret(agent)}/${caller}`);
  else
    for (const b of agent.spec.backends)
      if (b.model) declared.add(`${b.model.apiKeySecret.name}/${b.model.apiKeySecret.key}`);
  for (const g of agent.spec.gateways ?? [])
    if ('secretEnv' in g) for (const s of g.secretEnv ?? []) declared.add(`${s.secretName}/${s.key}`);
  for (const o of objects) {
    if (o.kind === 'Secret') violations.push(`${nameOf(o)}: Secret objects are never emitted`);
    if ('stringData' in o) violations.push(`${nameOf(o)}: has stringData`);
    if (o.kind !== 'ConfigMap' && 'data' in o) violations.push(`${nameOf(o)}: has data`);
  }
  const brokerFiles = brokerOn(agent) ? brokerSecretFiles(agent) : new Set<string>();
  for (const pod of objects.flatMap(podSpecsOf)) {
    const isBroker = labelsOf(pod.podMetadata)['app.kubernetes.io/component'] === 'broker';
    for (const volume of asList(pod.podSpec['volumes'])) {
      // Secret volumes allowed: a declared bearer token as the single file `token` (mode 0440), and in the
      // broker pod alone its callers' tokens and its routes' credentials, each a file of mode 0440.
      if ('secret' in volume && isBroker && isBrokerSecretVolume(volume, brokerFiles)) continue;
      if ('secret' in volume && !isTokenFileVolume(volume, tokens))
        violations.push(
          `${pod.where}: volume ${String(volume['name'])} mounts a Secret that is not a declared token file`,
        );
      for (const source of asList(asObject(volume['projected'])['sources']))
        if ('secret' in source)
          violations.push(`${pod.where}: projected volume ${String(volume['name'])} holds a Secret`);
    }
    const secretVolumes = new Set(
      asList(pod.podSpec['volumes'])
        .filter((v) => 'secret' in v)
        .map((v) => String(v['name'])),
    );
    for (const { container } of containersOf(pod.podSpec)) {
      const where = `${pod.where}: container ${String(container['name'])}`;
      for (const mount of asList(container['volumeMounts']))
        if (secretVolumes.has(String(mount['name'])) && mount['readOnly'] !== true)
          violations.push(`${where}: mounts Secret volume ${String(mount['name'])} writable`);
      for (const from of asList(container['envFrom']))
        if ('secretRef' in from) violations.push(`${where}: envFrom a Secret`);
      for (const env of asList(container['env'])) {
        const ref = asObject(asObject(env['valueFrom'])['secretKeyRef']);
        if (Object.keys(ref).length === 0) continue;
        if (!declared.has(`${String(ref['name'])}/${String(ref['key'])}`))
          violations.push(
            `${where}: env ${String(env['name'])} reads Secret ${String(ref['name'])}/${String(ref['key'])}, which the spec never declared`,
          );
      }
    }
  }
  return violations;
};

/** `name/key` of every bearer-token Secret the spec declares (toolchains' and gateways' `auth`). */
function bearerTokenSecrets(agent: ToolyardAgent): Set<string> {
  const tokens = new Set<string>();
  for (const t of agent.spec.toolchains ?? [])
    if (t.auth) tokens.add(`${t.auth.bearerTokenSecret.name}/${t.auth.bearerTokenSecret.key}`);
  for (const g of agent.spec.gateways ?? [])
    if (g.auth) tokens.add(`${g.auth.bearerTokenSecret.name}/${g.auth.bearerTokenSecret.key}`);
  return tokens;
}

/** `name/key path` of every file the broker pod may mount: callers' tokens and routes' credentials. */
function brokerSecretFiles(agent: ToolyardAgent): Set<string> {
  const files = new Set<string>();
  for (const caller of brokerCallers(agent)) files.add(`${tokensSecret(agent)}/${caller} ${caller}`);
  for (const held of brokerHeldSecrets(agent)) files.add(`${held} key`);
  return files;
}

function isBrokerSecretVolume(volume: Json, files: ReadonlySet<string>): boolean {
  const secret = asObject(volume['secret']);
  const items = asList(secret['items']);
  return (
    items.length > 0 &&
    secret['defaultMode'] === 0o440 &&
    items.every(
      (item) =>
        item['mode'] === 0o440 &&
        files.has(`${String(secret['secretName'])}/${String(item['key'])} ${String(item['path'])}`),
    )
  );
}

function isTokenFileVolume(volume: Json, tokens: ReadonlySet<string>): boolean {
  const secret = asObject(volume['secret']);
  const items = asList(secret['items']);
  return (
    items.length === 1 &&
    tokens.has(`${String(secret['secretName'])}/${String(items[0]!['key'])}`) &&
    items[0]!['path'] === 'token' &&
    items[0]!['mode'] === 0o440 &&
    secret['defaultMode'] === 0o440
  );
}

/**
 * Toolchains hold no credential and no API token beyond their own server's bearer token, which they get only
 * as a read-only file; agent pods automount no service-account token. A toolchain's own pod runs nothing but
 * the toolchain, under a ServiceAccount of its own that mounts no token and has no token volume.
 */
export const toolchainsHoldNoCredentials: Check = (objects, agent) => {
  const violations: string[] = [];
  const pods = objects.flatMap(podSpecsOf);
  const agentPods = pods.filter(isAgentPod);
  const toolchainPods = pods.filter(isToolchainPod);
  if (agentPods.length !== 1)
    violations.push(`expected exactly one agent pod template, found ${agentPods.length}`);
  const expectedToolchainPods = (agent.spec.toolchains ?? []).filter((t) => t.placement === 'pod').length;
  if (toolchainPods.length !== expectedToolchainPods)
    violations.push(
      `expected ${expectedToolchainPods} toolchain pod template(s) (placement: pod), found ${toolchainPods.length}`,
    );
  for (const pod of toolchainPods) {
    for (const { container } of containersOf(pod.podSpec))
      if (!isToolchainContainer(container))
        violations.push(`${pod.where}: runs ${String(container['name'])}, which is not its toolchain`);
    const serviceAccount = String(pod.podSpec['serviceAccountName']);
    const account = objects.find((o) => o.kind === 'ServiceAccount' && o.metadata.name === serviceAccount);
    if (serviceAccount === agent.metadata.name || !account)
      violations.push(`${pod.where}: runs as ServiceAccount ${serviceAccount}, not one of its own`);
    else if (account['automountServiceAccountToken'] !== false)
      violations.push(`${pod.where}: its ServiceAccount ${serviceAccount} does not disable token automount`);
  }
  for (const pod of [...agentPods, ...toolchainPods]) {
    if (pod.podSpec['automountServiceAccountToken'] !== false)
      violations.push(
        `${pod.where}: automountServiceAccountToken must be false on the ${isAgentPod(pod) ? 'agent' : 'toolchain'} pod`,
      );
    const volumes = new Map(asList(pod.podSpec['volumes']).map((v) => [String(v['name']), v]));
    const tokenVolumes = new Set(
      [...volumes.values()]
        .filter((v) => asList(asObject(v['projected'])['sources']).some((s) => 'serviceAccountToken' in s))
        .map((v) => String(v['name'])),
    );
    if ((agent.spec.rbac?.preset ?? 'none') === 'none' && tokenVolumes.size > 0)
      violations.push(`${pod.where}: a token volume exists although rbac.preset is none`);
    if (isToolchainPod(pod) && tokenVolumes.size > 0)
      violations.push(`${pod.where}: a toolchain pod has a service-account token volume`);
    for (const { container } of containersOf(pod.podSpec)) {
      const where = `${pod.where}: container ${String(container['name'])}`;
      if (!isToolchainContainer(container)) continue;
      for (const env of asList(container['env']))
        if ('valueFrom' in env && 'secretKeyRef' in asObject(env['valueFrom']))
          violations.push(`${where}: env ${String(env['name'])} comes from a Secret`);
      if (asList(container['envFrom']).length > 0) violations.push(`${where}: has envFrom`);
      for (const mount of asList(container['volumeMounts'])) {
        const volume = String(mount['name']);
        if (tokenVolumes.has(volume))
          violations.push(`${where}: mounts the service-account token volume ${volume}`);
        if (String(mount['mountPath']).startsWith('/var/run/secrets'))
          violations.push(`${where}: mounts ${String(mount['mountPath'])}`);
        const source = volumes.get(volume);
        if (source && 'secret' in source) {
          const own = ownTokenSecret(agent, String(container['name']));
          // Its broker token (with egress through the broker) is its own key of the tokens Secret.
          const ownBroker = `${tokensSecret(agent)}/${String(container['name'])}`;
          const secret = asObject(source['secret']);
          const key = String(asObject(asList(secret['items'])[0])['key']);
          const mounted = `${String(secret['secretName'])}/${key}`;
          if ((own !== mounted && ownBroker !== mounted) || mount['readOnly'] !== true)
            violations.push(`${where}: mounts Secret volume ${volume}, which is not its own server token`);
          continue;
        }
        if (source && !('emptyDir' in source || 'configMap' in source || 'persistentVolumeClaim' in source))
          violations.push(`${where}: mounts volume ${volume} of an unexpected type`);
      }
    }
    // Backends get the token only when rbac.preset asks for it.
    if (isAgentPod(pod) && (agent.spec.rbac?.preset ?? 'none') !== 'none') {
      const backends = new Set(agent.spec.backends.map((b) => b.name));
      for (const { container } of containersOf(pod.podSpec)) {
        const mountsToken = asList(container['volumeMounts']).some(
          (m) => tokenVolumes.has(String(m['name'])) && m['mountPath'] === SERVICE_ACCOUNT_PATH,
        );
        if (backends.has(String(container['name'])) && !mountsToken)
          violations.push(
            `${pod.where}: backend ${String(container['name'])} lacks the token rbac.preset asks for`,
          );
      }
    }
  }
  return violations;
};

function selects(selector: Json, labels: Record<string, string>): boolean {
  if (asList(selector['matchExpressions']).length > 0) return false; // not used by toolyard; be strict
  return Object.entries(asObject(selector['matchLabels'])).every(([k, v]) => labels[k] === v);
}

/** With networkPolicy enabled, every pod is selected by a NetworkPolicy of its namespace covering Ingress and Egress. */
export const everyPodHasNetworkPolicy: Check = (objects, agent) => {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const enabled = agent.spec.networkPolicy?.enabled ?? true;
  if (!enabled)
    return policies.length > 0
      ? [`networkPolicy is disabled but ${policies.length} NetworkPolicies were rendered`]
      : [];
  const violations: string[] = [];
  for (const o of objects) {
    for (const pod of podSpecsOf(o)) {
      const labels = labelsOf(pod.podMetadata);
      const covering = policies.filter((p) => {
        const spec = asObject(p['spec']);
        const types = asList(spec['policyTypes']) as unknown[];
        return (
          p.metadata.namespace === o.metadata.namespace &&
          types.includes('Ingress') &&
          types.includes('Egress') &&
          selects(asObject(spec['podSelector']), labels)
        );
      });
      if (covering.length === 0)
        violations.push(`${pod.where}: no NetworkPolicy with Ingress and Egress selects this pod`);
      for (const p of policies) {
        const selector = asObject(asObject(p['spec'])['podSelector']);
        if (Object.keys(asObject(selector['matchLabels'])).length === 0)
          violations.push(`${nameOf(p)}: selects every pod of the namespace`);
      }
    }
  }
  return violations;
};

/** Roles: no wildcard anywhere, nothing forbidden; bindings only to generated Roles and ServiceAccounts. */
export const rolesAreLeastPrivilege: Check = (objects, agent) => {
  const violations: string[] = [];
  const forbiddenResources = new Set<string>(FORBIDDEN_RESOURCES);
  const forbiddenVerbs = new Set<string>(FORBIDDEN_VERBS);
  const rolesByNamespace = new Set(
    objects.filter((o) => o.kind === 'Role').map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
  );
  const serviceAccounts = new Set(
    objects
      .filter((o) => o.kind === 'ServiceAccount')
      .map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
  );
  for (const o of objects) {
    if (o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding')
      violations.push(`${nameOf(o)}: cluster-wide RBAC is never emitted`);
    if (o.kind === 'Role') {
      const rules = asList(o['rules']);
      if (rules.length === 0) violations.push(`${nameOf(o)}: has no rules`);
      for (const [i, rule] of rules.entries()) {
        for (const field of ['apiGroups', 'resources', 'verbs', 'resourceNames', 'nonResourceURLs'])
          for (const value of asList(rule[field]) as unknown[])
            if (String(value).includes('*'))
              violations.push(`${nameOf(o)}: rules[${i}].${field} has wildcard "${String(value)}"`);
        for (const resource of asList(rule['resources']) as unknown[])
          if (forbiddenResources.has(String(resource)))
            violations.push(`${nameOf(o)}: rules[${i}] grants forbidden resource ${String(resource)}`);
        for (const verb of asList(rule['verbs']) as unknown[])
          if (forbiddenVerbs.has(String(verb)))
            violations.push(`${nameOf(o)}: rules[${i}] grants forbidden verb ${String(verb)}`);
      }
    }
    if (o.kind === 'RoleBinding') {
      const ref = asObject(o['roleRef']);
      if (ref['kind'] !== 'Role' || !rolesByNamespace.has(`${o.metadata.namespace}/${String(ref['name'])}`))
        violations.push(
          `${nameOf(o)}: roleRef ${String(ref['kind'])}/${String(ref['name'])} is not a generated Role in ${String(o.metadata.namespace)}`,
        );
      for (const subject of asList(o['subjects']))
        if (
          subject['kind'] !== 'ServiceAccount' ||
          !serviceAccounts.has(`${String(subject['namespace'])}/${String(subject['name'])}`)
        )
          violations.push(
            `${nameOf(o)}: subject ${String(subject['kind'])}/${String(subject['name'])} is not a generated ServiceAccount`,
          );
    }
  }
  // Only the agent (rbac.preset) and gateways with authority get Roles, in the namespaces they were granted.
  const allowedNamespaces = new Set([namespaceOf(agent)]);
  for (const g of agent.spec.gateways ?? [])
    if ('authority' in g)
      for (const ns of g.authority?.kubernetes?.namespaces ?? []) allowedNamespaces.add(ns);
  for (const o of objects)
    if (
      (o.kind === 'Role' || o.kind === 'RoleBinding') &&
      !allowedNamespaces.has(String(o.metadata.namespace))
    )
      violations.push(`${nameOf(o)}: in namespace ${String(o.metadata.namespace)}, which no authority names`);
  return violations;
};

/** Every URL in every backend's MCP client config resolves to a container port in the pod or a gateway. */
export const clientConfigUrlsResolve: Check = (objects, agent) => {
  const violations: string[] = [];
  const configMaps = objects.filter((o) => o.kind === 'ConfigMap');
  const agentPod = objects.flatMap(podSpecsOf).find(isAgentPod);
  if (!agentPod) return ['no agent pod'];
  const podVolumes = new Map(asList(agentPod.podSpec['volumes']).map((v) => [String(v['name']), v]));

  // Toolchain MCP ports: from each toolchain container's mounted server config (listen 127.0.0.1:<port>).
  const toolchainPorts = new Set<number>();
  const podPorts = new Set<number>();
  for (const { container } of containersOf(agentPod.podSpec)) {
    for (const port of asList(container['ports'])) podPorts.add(Number(port['containerPort']));
    if (!isToolchainContainer(container) || container['name'] === 'toolyard-install') continue;
    for (const mount of asList(container['volumeMounts'])) {
      const configMapName = asObject(podVolumes.get(String(mount['name']))?.['configMap'])['name'];
      const configMap = configMaps.find((c) => c.metadata.name === configMapName);
      const json = asObject(configMap?.['data'])['config.json'];
      if (typeof json !== 'string') continue;
      const listen = asObject(asObject(JSON.parse(json))['listen']);
      if (listen['host'] !== '127.0.0.1')
        violations.push(
          `${String(container['name'])}: MCP listens on ${String(listen['host'])}, not 127.0.0.1`,
        );
      toolchainPorts.add(Number(listen['port']));
      podPorts.add(Number(listen['port']));
    }
  }
  const declared = new Set((agent.spec.gateways ?? []).flatMap((g) => ('url' in g ? [g.url] : [])));

  const backends = new Map(
    containersOf(agentPod.podSpec).map(({ container }) => [String(container['name']), container]),
  );
  for (const backend of agent.spec.backends) {
    const container = backends.get(backend.name);
    if (!container) {
      violations.push(`backend ${backend.name}: no container`);
      continue;
    }
    const files = mountedConfigFiles(container, podVolumes, configMaps).filter((f) => listsServers(f.key));
    if (files.length === 0) violations.push(`backend ${backend.name}: no mounted MCP client config`);
    const envNames = new Set(asList(container['env']).map((e) => String(e['name'])));
    for (const file of files) {
      const servers = parseClientConfig(file.key, file.content);
      const expected = (agent.spec.toolchains?.length ?? 0) + (agent.spec.gateways?.length ?? 0);
      if (servers.length !== expected)
        violations.push(
          `backend ${backend.name}: ${file.key} lists ${servers.length} servers, expected ${expected}`,
        );
      for (const server of servers) {
        const where = `backend ${backend.name}: ${file.key}: ${server.name}`;
        for (const env of server.tokenEnvs)
          if (!envNames.has(env)) violations.push(`${where}: token env ${env} is not set in the container`);
        if (declared.has(server.url)) {
          const local = new URL(server.url);
          if (['127.0.0.1', 'localhost'].includes(local.hostname) && !podPorts.has(Number(local.port || 80)))
            violations.push(
              `${where}: ${server.url} points into the pod, where nothing listens on that port`,
            );
          continue;
        }
        const problem = resolveUrl(server.url, toolchainPorts, objects);
        if (problem) violations.push(`${where}: ${server.url}: ${problem}`);
      }
    }
  }
  return violations;
};

function mountedConfigFiles(container: Json, volumes: Map<string, Json>, configMaps: readonly KubeObject[]) {
  const files: { key: string; content: string }[] = [];
  for (const mount of asList(container['volumeMounts'])) {
    const source = asObject(volumes.get(String(mount['name']))?.['configMap']);
    const configMap = configMaps.find((c) => c.metadata.name === source['name']);
    if (!configMap || !String(configMap.metadata.name).endsWith('-mcp-clients')) continue;
    for (const item of asList(source['items'])) {
      const content = asObject(configMap['data'])[String(item['key'])];
      if (typeof content !== 'string') files.push({ key: String(item['key']), content: '' });
      else files.push({ key: String(item['key']), content });
    }
  }
  return files;
}

interface ClientServer {
  readonly name: string;
  readonly url: string;
  readonly tokenEnvs: readonly string[];
  /** Client-side tool timeout in seconds, where the format states one. */
  readonly timeoutSeconds?: number;
  /** Whether the format pre-approves the server's tools, where it states it. */
  readonly preApproved?: boolean;
}

/** Files that list MCP servers (Claude Code's managed-settings.json holds permissions, not servers). */
export function listsServers(key: string): boolean {
  return !key.endsWith('.managed-settings.json');
}

/** Reads the server lists of Claude/Gemini JSON and Codex TOML (config.toml tables, requirements.toml identities). */
export function parseClientConfig(key: string, content: string): ClientServer[] {
  const envRefs = (value: unknown) =>
    [...JSON.stringify(value ?? '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
  if (key.endsWith('.toml')) {
    const tables = asObject(asObject(parseToml(content))['mcp_servers']);
    return Object.entries(tables).map(([name, value]) => {
      const table = asObject(value);
      const identity = asObject(table['identity']);
      const token = table['bearer_token_env_var'];
      const approval = table['default_tools_approval_mode'];
      return {
        name,
        url: String(table['url'] ?? identity['url']),
        tokenEnvs: typeof token === 'string' ? [token] : [],
        ...(typeof table['tool_timeout_sec'] === 'number'
          ? { timeoutSeconds: table['tool_timeout_sec'] }
          : {}),
        ...(typeof approval === 'string' ? { preApproved: approval === 'approve' } : {}),
      };
    });
  }
  const servers = asObject(asObject(JSON.parse(content))['mcpServers']);
  return Object.entries(servers).map(([name, value]) => {
    const server = asObject(value);
    return {
      name,
      url: String(server['url'] ?? server['httpUrl']),
      tokenEnvs: envRefs(server['headers']),
      ...(typeof server['timeout'] === 'number' ? { timeoutSeconds: server['timeout'] / 1000 } : {}),
      ...(typeof server['trust'] === 'boolean' ? { preApproved: server['trust'] } : {}),
    };
  });
}

/**
 * The client configs keep the contract: each toolchain's client timeout is at least its maxTimeoutSeconds plus a
 * margin (a long call ends by the toolchain's timeout, never the client's), each gateway's is its
 * toolTimeoutSeconds, and a server is pre-approved exactly when the spec says so (Claude Code: a permission rule).
 */
export const clientConfigsKeepContract: Check = (objects, agent) => {
  const violations: string[] = [];
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-mcp-clients'));
  const data = asObject(configMap?.['data']) as Record<string, string>;
  const expected = new Map<string, { minTimeout: number; preApproved: boolean }>();
  for (const t of agent.spec.toolchains ?? [])
    expected.set(`toolchain-${t.name}`, {
      minTimeout: (t.limits?.maxTimeoutSeconds ?? 1800) + 1,
      preApproved: true,
    });
  for (const g of agent.spec.gateways ?? [])
    expected.set(g.name, { minTimeout: g.toolTimeoutSeconds ?? 600, preApproved: g.preApproved ?? true });
  for (const [key, content] of Object.entries(data)) {
    if (key.endsWith('.managed-settings.json')) {
      const allow = new Set(
        asList(asObject(asObject(JSON.parse(content))['permissions'])['allow']).map(String),
      );
      for (const [name, want] of expected)
        if (allow.has(`mcp__${name}`) !== want.preApproved)
          violations.push(
            `${key}: mcp__${name} ${want.preApproved ? 'missing from' : 'in'} permissions.allow`,
          );
      continue;
    }
    for (const server of parseClientConfig(key, content)) {
      const want = expected.get(server.name);
      if (!want) {
        violations.push(`${key}: lists ${server.name}, which the spec does not declare`);
        continue;
      }
      if (server.timeoutSeconds !== undefined && server.timeoutSeconds < want.minTimeout)
        violations.push(
          `${key}: ${server.name} times out after ${server.timeoutSeconds} s, under ${want.minTimeout} s`,
        );
      if (server.preApproved !== undefined && server.preApproved !== want.preApproved)
        violations.push(
          `${key}: ${server.name} pre-approved ${server.preApproved}, the spec says ${want.preApproved}`,
        );
    }
  }
  return violations;
};

/** `undefined` when the URL reaches a toolchain port in the pod or a generated gateway Service; else why not. */
function resolveUrl(
  raw: string,
  toolchainPorts: ReadonlySet<number>,
  objects: readonly KubeObject[],
): string | undefined {
  const url = new URL(raw);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (url.hostname === '127.0.0.1')
    return toolchainPorts.has(port) && url.pathname === '/mcp'
      ? undefined
      : 'no toolchain MCP endpoint on that port';
  const [service, namespace, svc, ...rest] = url.hostname.split('.');
  if (svc !== 'svc' || !(rest.length === 0 || rest.join('.') === 'cluster.local'))
    return 'neither in the pod, nor a cluster Service, nor declared in the spec';
  const target = objects.find(
    (o) => o.kind === 'Service' && o.metadata.name === service && o.metadata.namespace === namespace,
  );
  if (!target) return `no generated Service ${namespace}/${service}`;
  const servicePort = asList(asObject(target['spec'])['ports']).find((p) => Number(p['port']) === port);
  if (!servicePort) return `Service ${service} has no port ${port}`;
  // The Service must select a generated pod with a container port matching its targetPort.
  const selector = asObject(asObject(target['spec'])['selector']) as Record<string, string>;
  const pods = objects
    .flatMap(podSpecsOf)
    .filter((p) => selects({ matchLabels: selector }, labelsOf(p.podMetadata)));
  if (pods.length === 0) return `Service ${service} selects no generated pod`;
  const targetPort = servicePort['targetPort'] ?? port;
  const served = pods.some((pod) =>
    containersOf(pod.podSpec).some(({ container }) =>
      asList(container['ports']).some((p) => p['name'] === targetPort || p['containerPort'] === targetPort),
    ),
  );
  return served
    ? undefined
    : `Service ${service} targets port ${String(targetPort)}, which no selected container exposes`;
}

/** DNS-1123 names where Kubernetes requires them, label syntax, IANA port names. */
export const namesAreValid: Check = (objects) => {
  const violations: string[] = [];
  for (const o of objects) {
    const name = String(o.metadata.name);
    const label = o.kind === 'Service' || o.kind === 'Namespace';
    if (
      label ? !(DNS_LABEL.test(name) && name.length <= 63) : !(DNS_SUBDOMAIN.test(name) && name.length <= 253)
    )
      violations.push(`${nameOf(o)}: invalid name`);
    // Workload names become pod-name prefixes and the pod's label; keep them within a label, too.
    if ((o.kind === 'Deployment' || o.kind === 'StatefulSet') && name.length > 63)
      violations.push(`${nameOf(o)}: name longer than 63`);
    for (const [key, value] of Object.entries(labelsOf(o.metadata)))
      if (!LABEL_VALUE.test(value) || value.length > 63)
        violations.push(`${nameOf(o)}: label ${key}=${value} is not a valid label value`);
    if (o.kind === 'Service')
      for (const port of asList(asObject(o['spec'])['ports'])) {
        const n = String(port['name']);
        if (!DNS_LABEL.test(n) || n.length > 63) violations.push(`${nameOf(o)}: invalid port name ${n}`);
      }
    for (const pod of podSpecsOf(o)) {
      const containerNames = new Set<string>();
      for (const { container } of containersOf(pod.podSpec)) {
        const cname = String(container['name']);
        if (!DNS_LABEL.test(cname) || cname.length > 63)
          violations.push(`${pod.where}: invalid container name ${cname}`);
        if (containerNames.has(cname)) violations.push(`${pod.where}: duplicate container name ${cname}`);
        containerNames.add(cname);
        for (const port of asList(container['ports'])) {
          if (port['name'] === undefined) continue;
          const pname = String(port['name']);
          if (!IANA_SVC_NAME.test(pname) || pname.length > 15)
            violations.push(`${pod.where}: ${cname}: invalid port name ${pname}`);
        }
      }
      for (const volume of asList(pod.podSpec['volumes'])) {
        const vname = String(volume['name']);
        if (!DNS_LABEL.test(vname) || vname.length > 63)
          violations.push(`${pod.where}: invalid volume name ${vname}`);
      }
      for (const [key, value] of Object.entries(labelsOf(pod.podMetadata)))
        if (!LABEL_VALUE.test(value) || value.length > 63)
          violations.push(`${pod.where}: pod label ${key}=${value} invalid`);
    }
  }
  return violations;
};

/**
 * Port names unique per Service (the API server rejects duplicates) and per pod (it warns: Services and
 * probes that select a port by name would pick one arbitrarily).
 */
export const portNamesAreUnique: Check = (objects) => {
  const violations: string[] = [];
  for (const o of objects) {
    if (o.kind === 'Service') {
      const names = asList(asObject(o['spec'])['ports']).map((p) => String(p['name']));
      if (new Set(names).size !== names.length)
        violations.push(`${nameOf(o)}: duplicate port names ${names.join(',')}`);
    }
    for (const pod of podSpecsOf(o)) {
      const owners = new Map<string, string>();
      for (const { container } of containersOf(pod.podSpec))
        for (const port of asList(container['ports'])) {
          if (port['name'] === undefined) continue;
          const name = String(port['name']);
          const other = owners.get(name);
          if (other !== undefined)
            violations.push(
              `${pod.where}: port name ${name} of ${String(container['name'])} duplicates ${other}'s`,
            );
          owners.set(name, String(container['name']));
        }
    }
  }
  return violations;
};

/** Recommended labels on every object and pod template; the spec's namespace on every object. */
export const labelsAndNamespace: Check = (objects, agent) => {
  const violations: string[] = [];
  const namespace = namespaceOf(agent);
  for (const o of objects) {
    const labels = labelsOf(o.metadata);
    for (const key of RECOMMENDED_LABELS)
      if (!labels[key]) violations.push(`${nameOf(o)}: missing label ${key}`);
    if (labels['app.kubernetes.io/instance'] !== agent.metadata.name)
      violations.push(`${nameOf(o)}: instance label is not the agent name`);
    if (labels['app.kubernetes.io/managed-by'] !== 'toolyard')
      violations.push(`${nameOf(o)}: managed-by is not toolyard`);
    for (const [key, value] of Object.entries(agent.metadata.labels ?? {}))
      if (!key.startsWith('app.kubernetes.io/') && labels[key] !== value)
        violations.push(`${nameOf(o)}: lacks user label ${key}`);
    // Roles and RoleBindings of gateway authority live in the namespaces they grant (checked by rolesAreLeastPrivilege).
    if (o.metadata.namespace !== namespace && o.kind !== 'Role' && o.kind !== 'RoleBinding')
      violations.push(`${nameOf(o)}: namespace ${String(o.metadata.namespace)}, expected ${namespace}`);
    for (const pod of podSpecsOf(o)) {
      const podLabels = labelsOf(pod.podMetadata);
      for (const key of RECOMMENDED_LABELS)
        if (!podLabels[key]) violations.push(`${pod.where}: pod template misses label ${key}`);
    }
  }
  return violations;
};

/** The pod template of a toolchain with `placement: pod`, found by its component label. */
function toolchainPodOf(objects: readonly KubeObject[], toolchain: string): PodTemplate | undefined {
  return objects
    .flatMap(podSpecsOf)
    .find((p) => labelsOf(p.podMetadata)['app.kubernetes.io/component'] === `toolchain-${toolchain}`);
}

const podToolchainsOf = (agent: ToolyardAgent) =>
  (agent.spec.toolchains ?? []).filter((t) => t.placement === 'pod');

/**
 * A toolchain pod is selected by exactly one NetworkPolicy, its own, covering Ingress and Egress, whose only
 * ingress rule admits the agent pod (and no other generated pod) on the MCP port, over TCP.
 */
export const toolchainPodsAreIsolated: Check = (objects, agent) => {
  if (!(agent.spec.networkPolicy?.enabled ?? true)) return [];
  const violations: string[] = [];
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const pods = objects.flatMap(podSpecsOf);
  for (const toolchain of podToolchainsOf(agent)) {
    const pod = toolchainPodOf(objects, toolchain.name);
    if (!pod) {
      violations.push(`toolchain ${toolchain.name}: no pod of its own`);
      continue;
    }
    const selecting = policies.filter((p) =>
      selects(asObject(asObject(p['spec'])['podSelector']), labelsOf(pod.podMetadata)),
    );
    if (selecting.length !== 1 || `Deployment/${selecting[0]!.metadata.name}` !== pod.where) {
      violations.push(
        `${pod.where}: selected by ${selecting.map(nameOf).join(', ') || 'no NetworkPolicy'}, expected its own alone`,
      );
      continue;
    }
    const spec = asObject(selecting[0]!['spec']);
    if (JSON.stringify(spec['policyTypes']) !== JSON.stringify(['Ingress', 'Egress']))
      violations.push(`${pod.where}: policyTypes ${JSON.stringify(spec['policyTypes'])}, expected both`);
    const allIngress = asList(spec['ingress']);
    // With observability.metrics.scrapeFrom, a second rule: exactly those scrapers, on the metrics port alone.
    const scrapers = scrapePeers(agent);
    const scrapeRule =
      scrapers.length > 0
        ? {
            from: scrapers,
            ports: [{ port: toolchain.healthPort ?? toolchain.port + HEALTH_PORT_OFFSET, protocol: 'TCP' }],
          }
        : undefined;
    if (scrapeRule && canonicalJson(allIngress[1]) !== canonicalJson(scrapeRule))
      violations.push(
        `${pod.where}: the scrape rule is not exactly scrapeFrom on the metrics port: ${JSON.stringify(allIngress.slice(1))}`,
      );
    const ingress = scrapeRule ? allIngress.filter((_, i) => i !== 1) : allIngress;
    const peers = asList(ingress[0]?.['from']);
    const peer = asObject(peers[0]);
    const admitted = pods.filter((p) => selects(asObject(peer['podSelector']), labelsOf(p.podMetadata)));
    if (
      ingress.length !== 1 ||
      peers.length !== 1 ||
      Object.keys(peer).join() !== 'podSelector' ||
      admitted.length !== 1 ||
      !isAgentPod(admitted[0]!)
    )
      violations.push(
        `${pod.where}: ingress is not exactly "from the agent pod": ${JSON.stringify(ingress)}`,
      );
    else if (
      JSON.stringify(ingress[0]!['ports']) !== JSON.stringify([{ port: toolchain.port, protocol: 'TCP' }])
    )
      violations.push(
        `${pod.where}: ingress ports ${JSON.stringify(ingress[0]!['ports'])}, expected only the MCP port ${toolchain.port}`,
      );
  }
  return violations;
};

/**
 * Each toolchain pod's client URL, in every backend's config, names its Service on a port that reaches the
 * server's MCP listener; that server listens beyond loopback, accepts the Service name as Host, and requires
 * the token the client sends — or, only where the spec waives it, none.
 */
export const toolchainPodEndpointsServe: Check = (objects, agent) => {
  const violations: string[] = [];
  const clientConfigs = objects.filter(
    (o) => o.kind === 'ConfigMap' && o.metadata.name === `${agent.metadata.name}-mcp-clients`,
  );
  const files = Object.entries(asObject(clientConfigs[0]?.['data']))
    .filter(([key]) => listsServers(key))
    .map(([key, content]) => ({
      key,
      servers: parseClientConfig(key, String(content)),
      // Codex's requirements.toml pins each server's identity (its URL); credentials live in config.toml.
      carriesCredentials: !key.endsWith('.requirements.toml'),
    }));
  for (const toolchain of podToolchainsOf(agent)) {
    const where = `toolchain ${toolchain.name}`;
    const pod = toolchainPodOf(objects, toolchain.name);
    if (!pod) {
      violations.push(`${where}: no pod of its own`);
      continue;
    }
    const container = asList(pod.podSpec['containers']).find(
      (c) => c['name'] === `toolchain-${toolchain.name}`,
    );
    const configMapName = asList(pod.podSpec['volumes']).find(
      (v) => asObject(v['configMap'])['name'] !== undefined,
    )?.['configMap'];
    const configMap = objects.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name === asObject(configMapName)['name'],
    );
    const config = asObject(JSON.parse(String(asObject(configMap?.['data'])['config.json'] ?? '{}')));
    const listen = asObject(config['listen']);
    const auth = asObject(config['auth']);
    if (['127.0.0.1', 'localhost', '::1'].includes(String(listen['host'])))
      violations.push(`${where}: MCP listens on loopback ${String(listen['host'])} in its own pod`);
    const waived = toolchain.insecureAllowUnauthenticated === true;
    if (!waived && typeof auth['bearerTokenFile'] !== 'string')
      violations.push(`${where}: its server requires no bearer token, and the spec did not waive it`);
    if (waived && (listen['allowUnauthenticated'] !== true || 'bearerTokenFile' in auth))
      violations.push(`${where}: the spec waives the token but the server config does not say so`);
    for (const file of files) {
      const server = file.servers.find((s) => s.name === `toolchain-${toolchain.name}`);
      if (!server) {
        violations.push(`${where}: ${file.key} does not list it`);
        continue;
      }
      const url = new URL(server.url);
      const port = Number(url.port || 80);
      const [service, namespace, svc, ...rest] = url.hostname.split('.');
      const target = objects.find(
        (o) => o.kind === 'Service' && o.metadata.name === service && o.metadata.namespace === namespace,
      );
      const servicePort = asList(asObject(target?.['spec'])['ports']).find((p) => Number(p['port']) === port);
      const selector = asObject(asObject(target?.['spec'])['selector']);
      const containerPort = asList(container?.['ports']).find(
        (p) =>
          p['name'] === servicePort?.['targetPort'] || p['containerPort'] === servicePort?.['targetPort'],
      );
      if (svc !== 'svc' || rest.length > 0 || !target || !servicePort)
        violations.push(`${where}: ${file.key}: ${server.url} names no port of a generated Service`);
      else if (!selects({ matchLabels: selector }, labelsOf(pod.podMetadata)))
        violations.push(`${where}: ${file.key}: Service ${service} does not select the toolchain pod`);
      else if (!containerPort || Number(containerPort['containerPort']) !== Number(listen['port']))
        violations.push(`${where}: ${file.key}: Service port ${port} does not reach the MCP listener`);
      if (!(asList(listen['allowedHosts']) as unknown[]).includes(url.hostname))
        violations.push(`${where}: its server refuses Host ${url.hostname} (allowedHosts)`);
      if (file.carriesCredentials && waived === server.tokenEnvs.length > 0)
        violations.push(`${where}: ${file.key}: the client ${waived ? 'sends' : 'lacks'} a bearer token`);
    }
  }
  return violations;
};

/**
 * With toolchain pods, the agent pod and every toolchain pod mount one ReadWriteMany claim (generated with
 * ReadWriteMany, or an existing claim the spec declares so) at the same path, under the same fsGroup; a claim
 * template (one claim per StatefulSet replica) never serves them.
 */
export const sharedWorkspaceIsReadWriteMany: Check = (objects, agent) => {
  const toolchains = podToolchainsOf(agent);
  if (toolchains.length === 0) return [];
  const violations: string[] = [];
  const mountPath = agent.spec.workspace?.mountPath ?? '/workspace';
  const volume = agent.spec.workspace?.volume;
  const claim = volume && 'persistentVolumeClaim' in volume ? volume.persistentVolumeClaim : undefined;
  if (objects.some((o) => o.kind === 'StatefulSet')) violations.push('a StatefulSet (claim per replica)');
  const pods = objects.flatMap(podSpecsOf).filter((p) => isAgentPod(p) || isToolchainPod(p));
  if (pods.length !== toolchains.length + 1) violations.push(`${pods.length} agent and toolchain pods`);
  const claimNames = new Set<string>();
  const fsGroups = new Set<unknown>();
  for (const pod of pods) {
    const workspace = asList(pod.podSpec['volumes']).find((v) => v['name'] === 'workspace');
    const claimName = asObject(workspace?.['persistentVolumeClaim'])['claimName'];
    if (typeof claimName !== 'string') violations.push(`${pod.where}: workspace is not a claim`);
    else claimNames.add(claimName);
    fsGroups.add(asObject(pod.podSpec['securityContext'])['fsGroup']);
    for (const { list, container } of containersOf(pod.podSpec)) {
      if (list !== 'containers') continue;
      const mount = asList(container['volumeMounts']).find((m) => m['name'] === 'workspace');
      if (mount?.['mountPath'] !== mountPath || mount['subPath'] !== undefined)
        violations.push(`${pod.where}: ${String(container['name'])} mounts the workspace elsewhere`);
    }
  }
  if (claimNames.size !== 1) violations.push(`pods mount different claims: ${[...claimNames].join(', ')}`);
  if (fsGroups.size !== 1) violations.push(`pods run with different fsGroups: ${[...fsGroups].join(', ')}`);
  const [claimName] = claimNames;
  if (claim && 'claimName' in claim) {
    if (claim.claimName !== claimName) violations.push(`pods mount ${claimName}, not ${claim.claimName}`);
    if (claim.readWriteMany !== true) violations.push(`existing claim ${claim.claimName} not declared RWX`);
  } else {
    const generated = objects.find(
      (o) => o.kind === 'PersistentVolumeClaim' && o.metadata.name === claimName,
    );
    const modes = asList(asObject(generated?.['spec'])['accessModes']) as unknown[];
    if (!generated || !modes.includes('ReadWriteMany'))
      violations.push(`claim ${String(claimName)} is not a generated ReadWriteMany claim`);
  }
  return violations;
};

/** What the API server's own validation would refuse (test/support/api-server-rules.ts). */
export const apiServerAccepts: Check = (objects) => objects.flatMap((object) => apiServerProblems(object));

export const INVARIANTS: Readonly<Record<string, Check>> = {
  ...BROKER_INVARIANTS,
  ...CACHE_INVARIANTS,
  clientConfigsKeepContract,
  kubernetesSchema,
  apiServerAccepts,
  podSecurityRestricted,
  noSecretData,
  toolchainsHoldNoCredentials,
  everyPodHasNetworkPolicy,
  toolchainPodsAreIsolated,
  rolesAreLeastPrivilege,
  clientConfigUrlsResolve,
  toolchainPodEndpointsServe,
  sharedWorkspaceIsReadWriteMany,
  namesAreValid,
  portNamesAreUnique,
  labelsAndNamespace,
};
