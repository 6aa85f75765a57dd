/**
 * The agent plan: the spec with every default applied and every derived name and endpoint computed once.
 * Everything downstream (constructs, client configs, egress, reports) reads the plan, never the raw spec.
 */
import type {
  Backend,
  ClaimTemplate,
  DeployedGateway,
  ExternalGateway,
  Image,
  Resources,
  Toolchain,
  ToolyardAgent,
  WorkspaceVolume,
} from '../../schema/src/types.generated.ts';
import type { ToolMode, ToolPreset } from '../../toolchain-server/src/config.ts';
import {
  brokerRoutes,
  type PlannedBrokerSettings,
  planBrokerSettings,
  planCallers,
  planGatewayRoute,
  planModel,
  planNamedEgress,
} from './broker-plan.ts';
import * as D from './defaults.ts';
import type { AcknowledgeableWarning } from './effective-egress.ts';
import {
  AgentNames,
  gatewayTokenEnv,
  type Labels,
  toolchainComponent,
  toolchainContainerName,
  toolchainServerName,
  toolchainTokenEnv,
} from './names.ts';

export type BackendType = Backend['type'];
export type RbacPresetName = 'read-only' | 'namespace-write';
export type EgressNeed = 'none' | 'registries' | 'open';
/** `sidecar`: a container of the agent pod. `pod`: its own Deployment, Service and NetworkPolicy. */
export type ToolchainPlacement = 'sidecar' | 'pod';

/** Destinations by CIDR and TCP port. */
export interface EgressRule {
  readonly cidrs: readonly string[];
  readonly ports: readonly number[];
}

export interface PlannedImage {
  readonly reference: string;
  readonly pullPolicy: 'IfNotPresent' | 'Always' | 'Never';
}

export interface SecretRef {
  readonly env: string;
  readonly secretName: string;
  readonly key: string;
}

export interface PlannedBackend {
  readonly name: string;
  readonly type: BackendType;
  readonly image: PlannedImage;
  readonly port: number;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly secretEnv: readonly SecretRef[];
  readonly resources: Resources;
  readonly healthPath?: string;
  /** Where a `custom` backend gets its configs; other types read fixed system locations (set only if the spec did). */
  readonly mcpConfigPath?: string;
  /** The spec's extra client settings, merged into the generated config. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Its model route at the broker (broker on), or its provider key as env (broker off); absent: no `model`. */
  readonly model?: PlannedModel;
  /** What it may reach by name through the broker, besides its routes. */
  readonly egress: PlannedNamedEgress;
}

/** A backend's model access. */
export interface PlannedModel {
  /** The variable its CLI reads the API key from (absent for `custom`). */
  readonly keyEnv?: string;
  readonly apiKeySecret: { readonly name: string; readonly key: string };
  /** Its broker route, with the broker on. */
  readonly route?: PlannedRoute;
}

/** Egress by name of one container, resolved: hosts from `hosts` and from the ecosystems' table. */
export interface PlannedNamedEgress {
  /** `none`, `open`, or `named` (`{ hosts, ecosystems }` or the `registries` alias). */
  readonly kind: 'none' | 'open' | 'named';
  /** The spec used the deprecated `registries` alias (toolchains only). */
  readonly fromRegistriesAlias: boolean;
  /** Ecosystems as declared (or implied by the alias), in spec order. */
  readonly ecosystems: readonly string[];
  /** Host patterns as declared in `hosts` (with their optional `:port`). */
  readonly declaredHosts: readonly string[];
  /** Every host the container may reach, sorted, with its ports (unknown ecosystems contribute nothing). */
  readonly entries: readonly EgressHost[];
}

export interface EgressHost {
  readonly host: string;
  readonly ports: readonly number[];
}

/** A broker route: `http://<broker>:<port>/<name>/…` forwarded to one upstream with the route's credential. */
export interface PlannedRoute {
  readonly name: string;
  readonly kind: 'model' | 'gateway';
  /** The backend or gateway it serves. */
  readonly owner: string;
  readonly upstream: string;
  /** The URL callers use: the broker Service and the route. */
  readonly url: string;
  readonly credential?: {
    readonly secret: { readonly name: string; readonly key: string };
    readonly header: string;
    readonly prefix: string;
  };
  readonly insecureHttp: boolean;
  /** A deployed gateway's pods and port, which the broker's NetworkPolicy lets it reach. */
  readonly inCluster?: { readonly podLabels: Labels; readonly port: number };
}

/** One container that authenticates to the broker with its own token (a key of the tokens Secret). */
export interface PlannedCaller {
  readonly name: string;
  readonly role: 'backend' | 'toolchain';
  /** The pod it runs in. */
  readonly pod: string;
  readonly routes: readonly string[];
  readonly egress: readonly EgressHost[];
  /** `open`: any public host on these ports. */
  readonly openPorts: readonly number[];
}

export interface PlannedBroker {
  readonly enabled: boolean;
  /** Deployment, Service, ServiceAccount, ConfigMap and NetworkPolicy: `<agent>-broker`. */
  readonly objectName: string;
  readonly component: string;
  readonly selector: Labels;
  /** Cluster-DNS host of its Service. */
  readonly host: string;
  /** `http://<host>:<port>`: routes below it, and the CONNECT proxy. */
  readonly url: string;
  readonly image: PlannedImage;
  readonly port: number;
  readonly healthPort: number;
  readonly tokensSecret: string;
  readonly egressPorts: readonly number[];
  readonly deniedCidrs: readonly string[];
  readonly replicas: number;
  readonly resources: Resources;
  /** Model routes (backend order), then gateway routes (gateway order); empty with the broker off. */
  readonly routes: readonly PlannedRoute[];
  /** Backends, then toolchains with egress; empty with the broker off. */
  readonly callers: readonly PlannedCaller[];
}

export interface PlannedToolchain {
  readonly name: string;
  readonly containerName: string;
  readonly serverName: string;
  readonly placement: ToolchainPlacement;
  /** The MCP endpoint backends call: 127.0.0.1 in the agent pod, or the toolchain pod's Service. */
  readonly url: string;
  /** Its own pod's objects and selector, with `placement: pod`. */
  readonly pod?: PlannedToolchainPod;
  /** The spec waived the bearer token of a toolchain pod (`insecureAllowUnauthenticated`). */
  readonly allowUnauthenticated: boolean;
  readonly image: PlannedImage;
  readonly port: number;
  readonly healthPort: number;
  readonly injectServer: boolean;
  readonly mode: ToolMode;
  readonly presets: readonly ToolPreset[];
  readonly allowedCommands: readonly string[];
  readonly handles: { readonly commands: readonly string[]; readonly files: readonly string[] };
  readonly limits: typeof D.DEFAULT_LIMITS | Readonly<Record<keyof typeof D.DEFAULT_LIMITS, number>>;
  /** The pod-level posture (with the broker off, NetworkPolicy grants follow it); `{hosts, ecosystems}` is `registries`. */
  readonly egress: EgressNeed;
  /** What it may reach by name through the broker (with the broker on). */
  readonly namedEgress: PlannedNamedEgress;
  readonly env: Readonly<Record<string, string>>;
  readonly resources: Resources;
  readonly configMapName: string;
  /** The server's bearer token: a file in the toolchain, an env var in backends. */
  readonly auth?: PlannedToolchainAuth;
}

export interface PlannedToolchainPod {
  /** Name of its Deployment, Service, ServiceAccount and NetworkPolicy. */
  readonly objectName: string;
  /** Cluster-DNS host of its Service. */
  readonly host: string;
  /** Component label of its objects, `toolchain-<name>`. */
  readonly component: string;
  readonly selector: Labels;
  readonly replicas: number;
}

export interface PlannedToolchainAuth {
  readonly secret: { readonly name: string; readonly key: string };
  /** Env var in backends that carries the token; client configs name it, never the value. */
  readonly backendEnv: string;
}

export interface PlannedGatewayAuth {
  readonly secret: { readonly name: string; readonly key: string };
  /** Env var in backends that carries the token; client configs name it, never the value. */
  readonly backendEnv: string;
  /** Env var in the deployed gateway that also carries the token, when the spec asks for one (`tokenEnv`). */
  readonly gatewayEnv?: string;
}

interface PlannedGatewayBase {
  readonly name: string;
  /** URL written into backends' client configs: the broker route's with the broker on, else `upstreamUrl`. */
  readonly url: string;
  /** The gateway's own URL: its Service (deployed) or the declared URL (external). */
  readonly upstreamUrl: string;
  /** The broker route backends call it through (external gateways, deployed ones with auth), broker on. */
  readonly route?: PlannedRoute;
  /** Backends may call its tools without an interactive approval. */
  readonly preApproved: boolean;
  /** Client-side timeout of one tool call. */
  readonly toolTimeoutSeconds: number;
  readonly auth?: PlannedGatewayAuth;
  readonly egress?: EgressRule;
}

export interface PlannedDeployedGateway extends PlannedGatewayBase {
  readonly kind: 'deployed';
  readonly objectName: string;
  readonly image: PlannedImage;
  readonly port: number;
  readonly path: string;
  readonly replicas: number;
  readonly kubernetes?: { readonly preset: RbacPresetName; readonly namespaces: readonly string[] };
  readonly env: Readonly<Record<string, string>>;
  readonly secretEnv: readonly SecretRef[];
  readonly healthPath?: string;
  readonly resources: Resources;
  readonly selector: Labels;
  readonly serviceAccountAnnotations: Labels;
}

export interface PlannedExternalGateway extends PlannedGatewayBase {
  readonly kind: 'external';
}

export type PlannedGateway = PlannedDeployedGateway | PlannedExternalGateway;

export type PlannedWorkspaceVolume =
  | { readonly kind: 'emptyDir'; readonly sizeLimit: string; readonly medium: string }
  | { readonly kind: 'existingClaim'; readonly claimName: string; readonly readWriteMany: boolean }
  | {
      readonly kind: 'claimTemplate';
      readonly storage: string;
      readonly storageClassName?: string;
      readonly accessModes: readonly string[];
    }
  /** A new claim as one PersistentVolumeClaim object that every pod mounts (toolchains with `placement: pod`). */
  | {
      readonly kind: 'sharedClaim';
      readonly claimName: string;
      readonly storage: string;
      readonly storageClassName?: string;
      readonly accessModes: readonly string[];
    };

export interface PlannedNetwork {
  readonly enabled: boolean;
  readonly modelEgress: EgressRule;
  readonly registryEgress: EgressRule;
  readonly apiServerEgress: EgressRule;
  readonly dns: { readonly namespace: string; readonly podLabels: Labels };
  readonly agentIngressFrom: readonly { readonly namespace?: string; readonly podLabels: Labels }[];
}

/** A render warning the spec accepts on purpose (`spec.acknowledgedWarnings[]`). */
export interface PlannedAcknowledgement {
  readonly warning: AcknowledgeableWarning;
  /** The toolchain or gateway it names, if its warning is about one. */
  readonly subject?: string;
  readonly reason: string;
  /** Where it is in the spec, e.g. `/spec/acknowledgedWarnings/0`. */
  readonly path: string;
}

export interface AgentPlan {
  readonly names: AgentNames;
  readonly name: string;
  readonly namespace: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly workspace: { readonly mountPath: string; readonly volume: PlannedWorkspaceVolume };
  readonly backends: readonly PlannedBackend[];
  readonly toolchains: readonly PlannedToolchain[];
  readonly gateways: readonly PlannedGateway[];
  readonly rbacPreset: RbacPresetName | 'none';
  readonly network: PlannedNetwork;
  readonly toolchainServerImage: PlannedImage;
  readonly serviceAccountAnnotations: Labels;
  readonly imagePullSecrets: readonly string[];
  readonly acknowledgements: readonly PlannedAcknowledgement[];
  readonly broker: PlannedBroker;
}

/** Builds the plan of a schema-valid agent document. */
export function planAgent(agent: ToolyardAgent): AgentPlan {
  const name = agent.metadata.name;
  const namespace = agent.metadata.namespace ?? D.DEFAULT_NAMESPACE;
  const names = new AgentNames(name, namespace);
  const spec = agent.spec;
  const network = spec.networkPolicy ?? {};
  const brokerSettings = planBrokerSettings(spec.broker, names);
  const toolchains = (spec.toolchains ?? []).map((toolchain) => planToolchain(toolchain, names));
  const backends = spec.backends.map((backend) => planBackend(backend, brokerSettings));
  const gateways = (spec.gateways ?? []).map((gateway) =>
    'url' in gateway
      ? planExternalGateway(gateway, brokerSettings)
      : planDeployedGateway(gateway, names, brokerSettings),
  );
  return {
    names,
    name,
    namespace,
    labels: definedEntries(agent.metadata.labels),
    annotations: definedEntries(agent.metadata.annotations),
    workspace: {
      mountPath: spec.workspace?.mountPath ?? D.DEFAULT_WORKSPACE_MOUNT_PATH,
      volume: planWorkspaceVolume(
        spec.workspace?.volume,
        names,
        toolchains.some((t) => t.placement === 'pod'),
      ),
    },
    backends,
    toolchains,
    gateways,
    rbacPreset: spec.rbac?.preset ?? 'none',
    network: {
      enabled: network.enabled ?? true,
      modelEgress: network.modelEgress ?? D.DEFAULT_MODEL_EGRESS,
      registryEgress: network.registryEgress ?? D.DEFAULT_REGISTRY_EGRESS,
      apiServerEgress: network.apiServerEgress ?? D.DEFAULT_API_SERVER_EGRESS,
      dns: {
        namespace: network.dns?.namespace ?? D.DEFAULT_DNS.namespace,
        podLabels: network.dns?.podLabels ? definedEntries(network.dns.podLabels) : D.DEFAULT_DNS.podLabels,
      },
      agentIngressFrom: (network.agentIngressFrom ?? []).map((peer) => ({
        ...(peer.namespace ? { namespace: peer.namespace } : {}),
        podLabels: definedEntries(peer.podLabels),
      })),
    },
    toolchainServerImage: planImage(spec.toolchainServer?.image ?? D.DEFAULT_TOOLCHAIN_SERVER_IMAGE),
    serviceAccountAnnotations: definedEntries(spec.serviceAccount?.annotations),
    imagePullSecrets: spec.imagePullSecrets ?? [],
    acknowledgements: (spec.acknowledgedWarnings ?? []).map((ack, index) => {
      const subject =
        ack.warning === 'shared-egress'
          ? ack.toolchain
          : ack.warning === 'unreachable-gateway'
            ? ack.gateway
            : undefined;
      return {
        warning: ack.warning,
        ...(subject !== undefined ? { subject } : {}),
        reason: ack.reason,
        path: `/spec/acknowledgedWarnings/${index}`,
      };
    }),
    broker: {
      ...brokerSettings,
      routes: brokerRoutes(backends, gateways),
      callers: planCallers(brokerSettings, backends, toolchains, gateways, names.workload),
    },
  };
}

export function planImage(image: Image): PlannedImage {
  const reference = image.digest ? `${image.repository}@${image.digest}` : `${image.repository}:${image.tag}`;
  return { reference, pullPolicy: image.pullPolicy ?? D.DEFAULT_PULL_POLICY };
}

function planWorkspaceVolume(
  volume: WorkspaceVolume | undefined,
  names: AgentNames,
  sharedByPods: boolean,
): PlannedWorkspaceVolume {
  if (volume && 'persistentVolumeClaim' in volume) {
    const claim = volume.persistentVolumeClaim;
    if ('claimName' in claim)
      return {
        kind: 'existingClaim',
        claimName: claim.claimName,
        readWriteMany: claim.readWriteMany ?? false,
      };
    const template = claim as ClaimTemplate;
    return {
      ...(sharedByPods
        ? { kind: 'sharedClaim' as const, claimName: names.workspaceClaim }
        : { kind: 'claimTemplate' as const }),
      storage: template.storage,
      ...(template.storageClassName ? { storageClassName: template.storageClassName } : {}),
      accessModes: template.accessModes ?? [...D.DEFAULT_CLAIM_ACCESS_MODES],
    };
  }
  return {
    kind: 'emptyDir',
    sizeLimit: volume?.emptyDir.sizeLimit ?? D.DEFAULT_WORKSPACE_SIZE_LIMIT,
    medium: volume?.emptyDir.medium ?? '',
  };
}

function planBackend(backend: Backend, broker: PlannedBrokerSettings): PlannedBackend {
  const model = planModel(backend, broker);
  return {
    name: backend.name,
    type: backend.type,
    image: planImage(backend.image),
    port: backend.port,
    ...(backend.command ? { command: backend.command } : {}),
    ...(backend.args ? { args: backend.args } : {}),
    env: definedEntries(backend.env),
    secretEnv: (backend.secretEnv ?? []).map((s) => ({ env: s.name, secretName: s.secretName, key: s.key })),
    resources: backend.resources ?? D.DEFAULT_BACKEND_RESOURCES,
    ...(backend.healthPath ? { healthPath: backend.healthPath } : {}),
    ...(backend.mcpConfigPath !== undefined || backend.type === 'custom'
      ? { mcpConfigPath: backend.mcpConfigPath ?? D.DEFAULT_MCP_CONFIG_PATH }
      : {}),
    ...(backend.settings !== undefined ? { settings: backend.settings } : {}),
    ...(model ? { model } : {}),
    egress: planNamedEgress(backend.network?.egress),
  };
}

function planToolchain(toolchain: Toolchain, names: AgentNames): PlannedToolchain {
  const placement = toolchain.placement ?? D.DEFAULT_TOOLCHAIN_PLACEMENT;
  const pod: PlannedToolchainPod | undefined =
    placement === 'pod'
      ? {
          objectName: names.toolchainPod(toolchain.name),
          host: names.toolchainHost(toolchain.name),
          component: toolchainComponent(toolchain.name),
          selector: names.toolchainSelector(toolchain.name),
          replicas: D.TOOLCHAIN_POD_REPLICAS,
        }
      : undefined;
  return {
    name: toolchain.name,
    containerName: toolchainContainerName(toolchain.name),
    serverName: toolchainServerName(toolchain.name),
    placement,
    url: pod ? `http://${pod.host}:${toolchain.port}/mcp` : `http://127.0.0.1:${toolchain.port}/mcp`,
    ...(pod ? { pod } : {}),
    allowUnauthenticated: toolchain.insecureAllowUnauthenticated ?? false,
    image: planImage(toolchain.image),
    port: toolchain.port,
    healthPort: toolchain.healthPort ?? toolchain.port + D.HEALTH_PORT_OFFSET,
    injectServer: toolchain.injectServer ?? true,
    mode: toolchain.tools?.mode ?? 'structured',
    presets: toolchain.tools?.presets ?? [],
    allowedCommands: toolchain.tools?.allowedCommands ?? [],
    handles: { commands: toolchain.handles?.commands ?? [], files: toolchain.handles?.files ?? [] },
    limits: { ...D.DEFAULT_LIMITS, ...toolchain.limits },
    egress: egressNeed(toolchain.network?.egress),
    namedEgress: planNamedEgress(toolchain.network?.egress, toolchain.tools?.presets ?? []),
    env: definedEntries(toolchain.env),
    resources: toolchain.resources ?? D.DEFAULT_TOOLCHAIN_RESOURCES,
    configMapName: names.toolchainConfigMap(toolchain.name),
    ...(toolchain.auth
      ? {
          auth: {
            secret: {
              name: toolchain.auth.bearerTokenSecret.name,
              key: toolchain.auth.bearerTokenSecret.key,
            },
            backendEnv: toolchainTokenEnv(toolchain.name),
          },
        }
      : {}),
  };
}

function planAuth(gateway: DeployedGateway | ExternalGateway): PlannedGatewayAuth | undefined {
  if (!gateway.auth) return undefined;
  return {
    secret: { name: gateway.auth.bearerTokenSecret.name, key: gateway.auth.bearerTokenSecret.key },
    backendEnv: gatewayTokenEnv(gateway.name),
    ...(gateway.auth.tokenEnv ? { gatewayEnv: gateway.auth.tokenEnv } : {}),
  };
}

function planGatewayCalls(gateway: DeployedGateway | ExternalGateway) {
  return {
    preApproved: gateway.preApproved ?? D.DEFAULT_GATEWAY_PRE_APPROVED,
    toolTimeoutSeconds: gateway.toolTimeoutSeconds ?? D.DEFAULT_GATEWAY_TOOL_TIMEOUT_SECONDS,
  };
}

function planDeployedGateway(
  gateway: DeployedGateway,
  names: AgentNames,
  broker: PlannedBrokerSettings,
): PlannedDeployedGateway {
  const path = gateway.path ?? D.DEFAULT_GATEWAY_PATH;
  const kubernetes = gateway.authority?.kubernetes;
  const auth = planAuth(gateway);
  const upstreamUrl = `http://${names.gatewayHost(gateway.name)}:${gateway.port}${path}`;
  const selector = names.gatewaySelector(gateway.name);
  const route = planGatewayRoute(gateway, upstreamUrl, broker, { podLabels: selector, port: gateway.port });
  return {
    kind: 'deployed',
    name: gateway.name,
    ...planGatewayCalls(gateway),
    objectName: names.gateway(gateway.name),
    url: route?.url ?? upstreamUrl,
    upstreamUrl,
    ...(route ? { route } : {}),
    ...(auth ? { auth } : {}),
    ...(gateway.egress ? { egress: gateway.egress } : {}),
    image: planImage(gateway.image),
    port: gateway.port,
    path,
    replicas: gateway.replicas ?? D.DEFAULT_GATEWAY_REPLICAS,
    ...(kubernetes
      ? { kubernetes: { preset: kubernetes.preset, namespaces: kubernetes.namespaces ?? [names.namespace] } }
      : {}),
    env: definedEntries(gateway.env),
    secretEnv: (gateway.secretEnv ?? []).map((s) => ({ env: s.name, secretName: s.secretName, key: s.key })),
    ...(gateway.healthPath ? { healthPath: gateway.healthPath } : {}),
    resources: gateway.resources ?? D.DEFAULT_GATEWAY_RESOURCES,
    selector,
    serviceAccountAnnotations: definedEntries(gateway.serviceAccountAnnotations),
  };
}

function planExternalGateway(
  gateway: ExternalGateway,
  broker: PlannedBrokerSettings,
): PlannedExternalGateway {
  const auth = planAuth(gateway);
  const route = planGatewayRoute(gateway, gateway.url, broker);
  return {
    kind: 'external',
    name: gateway.name,
    ...planGatewayCalls(gateway),
    url: route?.url ?? gateway.url,
    upstreamUrl: gateway.url,
    ...(route ? { route } : {}),
    ...(auth ? { auth } : {}),
    ...(gateway.egress ? { egress: gateway.egress } : {}),
  };
}

/** The pod-level posture of a toolchain's egress: egress by name counts as `registries` (CIDR rules, broker off). */
function egressNeed(egress: NonNullable<Toolchain['network']>['egress']): EgressNeed {
  if (egress === undefined || egress === 'none') return 'none';
  if (egress === 'open') return 'open';
  return 'registries';
}

/** Drops the `undefined` that generated index signatures allow. */
export function definedEntries(
  map: Readonly<Record<string, string | undefined>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) if (value !== undefined) out[key] = value;
  return out;
}

export function deployedGateways(plan: AgentPlan): PlannedDeployedGateway[] {
  return plan.gateways.filter((g): g is PlannedDeployedGateway => g.kind === 'deployed');
}

/** A toolchain with `placement: pod`: its own pod's plan is present. */
export type PodToolchain = PlannedToolchain & { readonly pod: PlannedToolchainPod };

/** Toolchains that are containers of the agent pod. */
export function sidecarToolchains(plan: AgentPlan): PlannedToolchain[] {
  return plan.toolchains.filter((t) => t.placement === 'sidecar');
}

/** Toolchains in their own pods (`placement: pod`). */
export function podToolchains(plan: AgentPlan): PodToolchain[] {
  return plan.toolchains.filter((t): t is PodToolchain => t.pod !== undefined);
}
