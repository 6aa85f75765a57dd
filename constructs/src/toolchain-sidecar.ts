import * as plus from 'cdk8s-plus-28';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { serverCommand } from '../../toolchain-server/src/launch.ts';
import { plainEnv, resourceRequirements, scratchVolumes, tokenFile } from './container-parts.ts';
import { PATHS } from './defaults.ts';
import type { AgentPlan, PlannedToolchain } from './plan.ts';
import { restrictedContainerSecurityContext } from './security.ts';
import { TOOLCHAIN_CACHE_ENV, TOOLCHAIN_CONFIG_FILE, toolchainServerConfigJson } from './toolchain-config.ts';

export interface ToolchainSidecarProps {
  /** The agent the sidecar belongs to. */
  readonly plan: AgentPlan;
  /** The toolchain, defaults applied. */
  readonly toolchain: PlannedToolchain;
  /** Name of the pod volume holding the injected server bundle. @default "toolyard-server" */
  readonly serverBundleVolume?: string;
}

/**
 * A toolchain sidecar: its container (any language image running the toolchain server on 127.0.0.1),
 * its scratch volumes, and the ConfigMap holding the server's config. The pod that hosts it is built by
 * `AgentWorkload` from `container` and `volumes`.
 */
export class ToolchainSidecar extends Construct {
  readonly container: k8s.Container;
  readonly volumes: readonly k8s.Volume[];
  readonly configMap: plus.ConfigMap;
  readonly configJson: string;

  constructor(scope: Construct, id: string, props: ToolchainSidecarProps) {
    super(scope, id);
    const { plan, toolchain } = props;
    const bundleVolume = props.serverBundleVolume ?? 'toolyard-server';
    this.configJson = toolchainServerConfigJson(toolchain, plan.workspace.mountPath);
    this.configMap = new plus.ConfigMap(this, 'config', {
      metadata: {
        name: toolchain.configMapName,
        namespace: plan.namespace,
        labels: plan.names.labels('agent', plan.labels),
        ...(Object.keys(plan.annotations).length > 0 ? { annotations: plan.annotations } : {}),
      },
      data: { [TOOLCHAIN_CONFIG_FILE]: this.configJson },
    });

    const configVolume = `${toolchain.containerName}-config`;
    const scratch = scratchVolumes(toolchain.containerName);
    const token = toolchain.auth
      ? tokenFile(`${toolchain.containerName}-token`, toolchain.auth.secret)
      : undefined;
    this.volumes = [
      ...scratch.volumes,
      { name: configVolume, configMap: { name: toolchain.configMapName } },
      ...(token ? [token.volume] : []),
    ];
    const health = k8s.IntOrString.fromNumber(toolchain.healthPort);
    this.container = {
      name: toolchain.containerName,
      image: toolchain.image.reference,
      imagePullPolicy: toolchain.image.pullPolicy,
      command: [
        ...serverCommand(PATHS.serverBundle),
        '--config',
        `${PATHS.toolchainConfigDir}/${TOOLCHAIN_CONFIG_FILE}`,
      ],
      // Port names must be unique in the pod and at most 15 characters.
      ports: [
        { name: `health-${toolchain.healthPort}`, containerPort: toolchain.healthPort, protocol: 'TCP' },
      ],
      env: plainEnv({ ...TOOLCHAIN_CACHE_ENV, ...toolchain.env }),
      resources: resourceRequirements(toolchain.resources),
      securityContext: restrictedContainerSecurityContext(),
      volumeMounts: [
        { name: 'workspace', mountPath: plan.workspace.mountPath },
        ...scratch.mounts,
        { name: configVolume, mountPath: PATHS.toolchainConfigDir, readOnly: true },
        ...(token ? [token.mount] : []),
        ...(toolchain.injectServer
          ? [{ name: bundleVolume, mountPath: PATHS.serverBundle, readOnly: true }]
          : []),
      ],
      readinessProbe: {
        httpGet: { path: '/readyz', port: health },
        periodSeconds: 10,
        timeoutSeconds: 2,
        failureThreshold: 3,
      },
      livenessProbe: {
        httpGet: { path: '/healthz', port: health },
        initialDelaySeconds: 5,
        periodSeconds: 20,
        timeoutSeconds: 2,
        failureThreshold: 3,
      },
    };
  }
}
