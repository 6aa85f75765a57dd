import type { k8s } from 'cdk8s-plus-28';
import * as plus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { serverCommand } from '../../toolchain-server/src/launch.ts';
import { noProxyHosts } from './backend-container.ts';
import { cacheEnv } from './cache-plan.ts';
import { cacheMounts } from './cache-volumes.ts';
import {
  plainEnv,
  resourceRequirements,
  scratchVolumes,
  serverProbes,
  tokenFile,
} from './container-parts.ts';
import { BROKER_TOKEN_DIR, PATHS } from './defaults.ts';
import type { AgentPlan, PlannedToolchain } from './plan.ts';
import { restrictedContainerSecurityContext } from './security.ts';
import {
  TOOLCHAIN_CACHE_ENV,
  TOOLCHAIN_CONFIG_FILE,
  toolchainServerConfigJson,
  toolchainTelemetry,
} from './toolchain-config.ts';

/** The name of a toolchain pod's MCP container port, which its Service targets. */
export const TOOLCHAIN_MCP_PORT_NAME = 'mcp';

export interface ToolchainSidecarProps {
  /** The agent the sidecar belongs to. */
  readonly plan: AgentPlan;
  /** The toolchain, defaults applied. */
  readonly toolchain: PlannedToolchain;
  /** Name of the pod volume holding the injected server bundle. @default "toolyard-server" */
  readonly serverBundleVolume?: string;
}

/**
 * A toolchain's container (any language image running the toolchain server), its scratch volumes, and the
 * ConfigMap holding the server's config. The pod that hosts it is built from `container` and `volumes`: by
 * `AgentWorkload` for a sidecar (the server on 127.0.0.1), by `ToolchainPod` for `placement: pod` (the server
 * on the pod IP, its MCP port named `mcp` for the toolchain's Service).
 */
export class ToolchainSidecar extends Construct {
  readonly container: k8s.Container;
  readonly volumes: readonly k8s.Volume[];
  readonly configMap: plus.ConfigMap;
  readonly configJson: string;
  /** The container mounts the server bundle that the pod's init container installs. */
  readonly injectsServer: boolean;
  /** The toolchain it runs. */
  readonly toolchain: PlannedToolchain;

  constructor(scope: Construct, id: string, props: ToolchainSidecarProps) {
    super(scope, id);
    const { plan, toolchain } = props;
    const bundleVolume = props.serverBundleVolume ?? 'toolyard-server';
    this.injectsServer = toolchain.injectServer;
    this.toolchain = toolchain;
    // With egress through the broker, the server gives its children the proxy and its own token, from a file.
    const viaBroker = plan.broker.enabled && toolchain.namedEgress.kind !== 'none';
    // Code mode's gateway routes are opened with the same broker token, held by the server alone.
    // Telemetry goes through the broker's otlp route with the same token (spec.observability).
    const brokerCaller = plan.broker.callers.some((c) => c.name === toolchain.containerName);
    this.configJson = toolchainServerConfigJson(
      toolchain,
      plan.workspace.mountPath,
      viaBroker ? { url: plan.broker.url, noProxy: noProxyHosts(plan) } : undefined,
      toolchainTelemetry(plan, toolchain),
    );
    this.configMap = new plus.ConfigMap(this, 'config', {
      metadata: {
        name: toolchain.configMapName,
        namespace: plan.namespace,
        labels: plan.names.labels(toolchain.pod?.component ?? 'agent', plan.labels),
        ...(Object.keys(plan.annotations).length > 0 ? { annotations: plan.annotations } : {}),
      },
      data: { [TOOLCHAIN_CONFIG_FILE]: this.configJson },
    });

    const configVolume = `${toolchain.containerName}-config`;
    const scratch = scratchVolumes(toolchain.containerName);
    const token = toolchain.auth
      ? tokenFile(`${toolchain.containerName}-token`, toolchain.auth.secret)
      : undefined;
    const brokerToken = brokerCaller
      ? tokenFile(`${toolchain.containerName}-broker`, {
          name: plan.broker.tokensSecret,
          key: toolchain.containerName,
        })
      : undefined;
    // Code mode's tokens for other servers: each a Secret key of its own, in this toolchain only.
    const codeModeTokens = (toolchain.codeMode?.servers ?? []).flatMap((server) => {
      if (server.token?.kind !== 'secret') return [];
      const file = tokenFile(`${toolchain.containerName}-cm-${server.name}`, server.token.secret);
      return [{ volume: file.volume, mount: { ...file.mount, mountPath: server.token.dir } }];
    });
    this.volumes = [
      ...scratch.volumes,
      { name: configVolume, configMap: { name: toolchain.configMapName } },
      ...(token ? [token.volume] : []),
      ...(brokerToken ? [brokerToken.volume] : []),
      ...codeModeTokens.map((t) => t.volume),
    ];
    this.container = {
      name: toolchain.containerName,
      image: toolchain.image.reference,
      imagePullPolicy: toolchain.image.pullPolicy,
      command: [
        ...serverCommand(PATHS.serverBundle),
        '--config',
        `${PATHS.toolchainConfigDir}/${TOOLCHAIN_CONFIG_FILE}`,
      ],
      // Port names must be unique in the pod and at most 15 characters. A sidecar's MCP port is loopback only.
      ports: [
        ...(toolchain.pod
          ? [{ name: TOOLCHAIN_MCP_PORT_NAME, containerPort: toolchain.port, protocol: 'TCP' }]
          : []),
        { name: `health-${toolchain.healthPort}`, containerPort: toolchain.healthPort, protocol: 'TCP' },
      ],
      env: plainEnv({ ...TOOLCHAIN_CACHE_ENV, ...cacheEnv(toolchain), ...toolchain.env }),
      resources: resourceRequirements(toolchain.resources),
      securityContext: restrictedContainerSecurityContext(),
      volumeMounts: [
        { name: 'workspace', mountPath: plan.workspace.mountPath },
        ...cacheMounts(toolchain),
        ...scratch.mounts,
        { name: configVolume, mountPath: PATHS.toolchainConfigDir, readOnly: true },
        ...(token ? [token.mount] : []),
        ...(brokerToken ? [{ ...brokerToken.mount, mountPath: BROKER_TOKEN_DIR }] : []),
        ...codeModeTokens.map((t) => t.mount),
        ...(toolchain.injectServer
          ? [{ name: bundleVolume, mountPath: PATHS.serverBundle, readOnly: true }]
          : []),
      ],
      ...serverProbes(toolchain.healthPort),
    };
  }
}
