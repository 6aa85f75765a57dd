/**
 * The agent plan: the spec with every default applied and every derived name and endpoint computed once.
 * Everything downstream (constructs, client configs, egress, reports) reads the plan, never the raw spec.
 */
import type {
  Backend,
  DeployedGateway,
  ExternalGateway,
  Toolchain,
  ToolyardAgent,
  WorkspaceVolume,
} from '../../schema/src/types.generated.ts';
import {
  brokerRoutes,
  type PlannedBrokerSettings,
  planBrokerSettings,
  planCallers,
  planGatewayRoute,
  planModel,
  planNamedEgress,
} from './broker-plan.ts';
import { planCaches, planCacheUses, planEgressPhase } from './cache-plan.ts';
import { planCodeMode } from './code-mode-plan.ts';
import * as D from './defaults.ts';
import {
  AgentNames,
  gatewayTokenEnv,
  toolchainComponent,
  toolchainContainerName,
  toolchainServerName,
  toolchainTokenEnv,
} from './names.ts';
import { planObservability } from './observability-plan.ts';
import { existingOrNewClaim } from './plan-claim.ts';
import { planImage } from './plan-image.ts';
import type {
  AgentPlan,
  EgressNeed,
  PlannedBackend,
  PlannedCacheUse,
  PlannedDeployedGateway,
  PlannedExternalGateway,
  PlannedGatewayAuth,
  PlannedToolchain,
  PlannedToolchainPod,
  PlannedWorkspaceVolume,
  PodToolchain,
} from './plan-types.ts';
import { planSandboxes, SANDBOX_MANAGER_CALLER } from './sandbox-plan.ts';

export { planImage } from './plan-image.ts';
export type * from './plan-types.ts';

/** Builds the plan of a schema-valid agent document. */
export function planAgent(agent: ToolyardAgent): AgentPlan {
  const name = agent.metadata.name;
  const namespace = agent.metadata.namespace ?? D.DEFAULT_NAMESPACE;
  const names = new AgentNames(name, namespace);
  const spec = agent.spec;
  const network = spec.networkPolicy ?? {};
  const brokerSettings = planBrokerSettings(spec.broker, names);
  const observability = planObservability(
    spec.observability,
    { name, namespace, labels: definedEntries(agent.metadata.labels) },
    brokerSettings,
  );
  const caches = planCaches(spec.workspace?.caches, names);
  const plainToolchains = (spec.toolchains ?? []).map((toolchain, i) =>
    planToolchain(toolchain, names, planCacheUses(toolchain.caches, caches, i)),
  );
  const backends = spec.backends.map((backend) => {
    const planned = planBackend(backend, brokerSettings);
    const o = observability;
    return o.enabled
      ? {
          ...planned,
          telemetry: {
            endpoint: o.emitterUrl,
            protocol: o.protocol,
            signals: o.signals,
            sampleRatio: o.sampleRatio,
            resource: { ...o.resource, 'k8s.container.name': backend.name },
          },
        }
      : planned;
  });
  const gateways = (spec.gateways ?? []).map((gateway) =>
    'url' in gateway
      ? planExternalGateway(gateway, brokerSettings)
      : planDeployedGateway(gateway, names, brokerSettings),
  );
  // Code mode names other toolchains and gateways: planned once every one of them is.
  const toolchains = plainToolchains.map((toolchain, i) => {
    const codeMode = spec.toolchains?.[i]?.tools?.codeMode;
    return codeMode
      ? { ...toolchain, codeMode: planCodeMode(codeMode, toolchain, plainToolchains, gateways) }
      : toolchain;
  });
  const sandboxes = planSandboxes(spec.sandboxes, names, brokerSettings);
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
    caches,
    backends,
    toolchains,
    gateways,
    rbacPreset: spec.rbac?.preset ?? 'none',
    network: {
      enabled: network.enabled ?? true,
      modelEgress: network.modelEgress ?? D.DEFAULT_MODEL_EGRESS,
      registryEgress: network.registryEgress ?? D.DEFAULT_REGISTRY_EGRESS,
      apiServerEgress: network.apiServerEgress,
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
          : ack.warning === 'unreachable-gateway' || ack.warning === 'wide-gateway-egress'
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
      routes: [...brokerRoutes(backends, gateways), ...(observability.route ? [observability.route] : [])],
      callers: [
        ...planCallers(
          brokerSettings,
          backends,
          toolchains,
          gateways,
          names.workload,
          observability.route?.name,
        ),
        // Sandboxes call the broker for their egress by name only: no telemetry route for code the agent runs there.
        ...planCallers(
          brokerSettings,
          [],
          sandboxes?.templates.map((t) => t.toolchain) ?? [],
          gateways,
          names.workload,
        ),
        // The sandbox manager exports its spans through the otlp route, and calls the broker for nothing else.
        ...(sandboxes && observability.route && brokerSettings.enabled
          ? [
              {
                name: SANDBOX_MANAGER_CALLER,
                role: 'sandbox-manager' as const,
                pod: sandboxes.objectName,
                routes: [observability.route.name],
                egress: [],
                openPorts: [],
              },
            ]
          : []),
      ],
    },
    ...(sandboxes ? { sandboxes } : {}),
    observability,
  };
}

function planWorkspaceVolume(
  volume: WorkspaceVolume | undefined,
  names: AgentNames,
  sharedByPods: boolean,
): PlannedWorkspaceVolume {
  if (volume && 'persistentVolumeClaim' in volume) {
    const claim = existingOrNewClaim(volume.persistentVolumeClaim);
    if (claim.kind === 'existingClaim') return claim;
    return sharedByPods
      ? { kind: 'sharedClaim', claimName: names.workspaceClaim, ...claim.settings }
      : { kind: 'claimTemplate', ...claim.settings };
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

function planToolchain(
  toolchain: Toolchain,
  names: AgentNames,
  caches: readonly PlannedCacheUse[],
): PlannedToolchain {
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
    egressPhase: planEgressPhase(toolchain.network?.egress),
    caches,
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

/** Toolchains that are containers of the agent pod. */
export function sidecarToolchains(plan: AgentPlan): PlannedToolchain[] {
  return plan.toolchains.filter((t) => t.placement === 'sidecar');
}

/** Toolchains in their own pods (`placement: pod`). */
export function podToolchains(plan: AgentPlan): PodToolchain[] {
  return plan.toolchains.filter((t): t is PodToolchain => t.pod !== undefined);
}
