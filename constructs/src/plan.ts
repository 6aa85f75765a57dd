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
import * as D from './defaults.ts';
import type { AcknowledgeableWarning } from './effective-egress.ts';
import {
  AgentNames,
  gatewayTokenEnv,
  type Labels,
  toolchainContainerName,
  toolchainServerName,
  toolchainTokenEnv,
} from './names.ts';

export type BackendType = Backend['type'];
export type RbacPresetName = 'read-only' | 'namespace-write';
export type EgressNeed = 'none' | 'registries' | 'open';

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
}

export interface PlannedToolchain {
  readonly name: string;
  readonly containerName: string;
  readonly serverName: string;
  readonly image: PlannedImage;
  readonly port: number;
  readonly healthPort: number;
  readonly injectServer: boolean;
  readonly mode: ToolMode;
  readonly presets: readonly ToolPreset[];
  readonly allowedCommands: readonly string[];
  readonly handles: { readonly commands: readonly string[]; readonly files: readonly string[] };
  readonly limits: typeof D.DEFAULT_LIMITS | Readonly<Record<keyof typeof D.DEFAULT_LIMITS, number>>;
  readonly egress: EgressNeed;
  readonly env: Readonly<Record<string, string>>;
  readonly resources: Resources;
  readonly configMapName: string;
  /** The server's bearer token: a file in the toolchain, an env var in backends. */
  readonly auth?: PlannedToolchainAuth;
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
  /** URL written into backends' client configs. */
  readonly url: string;
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
  | { readonly kind: 'existingClaim'; readonly claimName: string }
  | {
      readonly kind: 'claimTemplate';
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
}

/** Builds the plan of a schema-valid agent document. */
export function planAgent(agent: ToolyardAgent): AgentPlan {
  const name = agent.metadata.name;
  const namespace = agent.metadata.namespace ?? D.DEFAULT_NAMESPACE;
  const names = new AgentNames(name, namespace);
  const spec = agent.spec;
  const network = spec.networkPolicy ?? {};
  return {
    names,
    name,
    namespace,
    labels: definedEntries(agent.metadata.labels),
    annotations: definedEntries(agent.metadata.annotations),
    workspace: {
      mountPath: spec.workspace?.mountPath ?? D.DEFAULT_WORKSPACE_MOUNT_PATH,
      volume: planWorkspaceVolume(spec.workspace?.volume),
    },
    backends: spec.backends.map(planBackend),
    toolchains: (spec.toolchains ?? []).map((toolchain) => planToolchain(toolchain, names)),
    gateways: (spec.gateways ?? []).map((gateway) =>
      'url' in gateway ? planExternalGateway(gateway) : planDeployedGateway(gateway, names),
    ),
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
  };
}

export function planImage(image: Image): PlannedImage {
  const reference = image.digest ? `${image.repository}@${image.digest}` : `${image.repository}:${image.tag}`;
  return { reference, pullPolicy: image.pullPolicy ?? D.DEFAULT_PULL_POLICY };
}

function planWorkspaceVolume(volume: WorkspaceVolume | undefined): PlannedWorkspaceVolume {
  if (volume && 'persistentVolumeClaim' in volume) {
    const claim = volume.persistentVolumeClaim;
    if ('claimName' in claim) return { kind: 'existingClaim', claimName: claim.claimName };
    const template = claim as ClaimTemplate;
    return {
      kind: 'claimTemplate',
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

function planBackend(backend: Backend): PlannedBackend {
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
  };
}

function planToolchain(toolchain: Toolchain, names: AgentNames): PlannedToolchain {
  return {
    name: toolchain.name,
    containerName: toolchainContainerName(toolchain.name),
    serverName: toolchainServerName(toolchain.name),
    image: planImage(toolchain.image),
    port: toolchain.port,
    healthPort: toolchain.healthPort ?? toolchain.port + D.HEALTH_PORT_OFFSET,
    injectServer: toolchain.injectServer ?? true,
    mode: toolchain.tools?.mode ?? 'structured',
    presets: toolchain.tools?.presets ?? [],
    allowedCommands: toolchain.tools?.allowedCommands ?? [],
    handles: { commands: toolchain.handles?.commands ?? [], files: toolchain.handles?.files ?? [] },
    limits: { ...D.DEFAULT_LIMITS, ...toolchain.limits },
    egress: toolchain.network?.egress ?? 'none',
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

function planDeployedGateway(gateway: DeployedGateway, names: AgentNames): PlannedDeployedGateway {
  const path = gateway.path ?? D.DEFAULT_GATEWAY_PATH;
  const kubernetes = gateway.authority?.kubernetes;
  const auth = planAuth(gateway);
  return {
    kind: 'deployed',
    name: gateway.name,
    ...planGatewayCalls(gateway),
    objectName: names.gateway(gateway.name),
    url: `http://${names.gatewayHost(gateway.name)}:${gateway.port}${path}`,
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
    selector: names.gatewaySelector(gateway.name),
    serviceAccountAnnotations: definedEntries(gateway.serviceAccountAnnotations),
  };
}

function planExternalGateway(gateway: ExternalGateway): PlannedExternalGateway {
  const auth = planAuth(gateway);
  return {
    kind: 'external',
    name: gateway.name,
    ...planGatewayCalls(gateway),
    url: gateway.url,
    ...(auth ? { auth } : {}),
    ...(gateway.egress ? { egress: gateway.egress } : {}),
  };
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
