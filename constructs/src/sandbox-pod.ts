/**
 * A sandbox pod, as every provider runs it: the template's image running the toolchain server in sandbox mode
 * (unbound until the manager binds it; read, write and list files), on the pod IP, Pod Security restricted, no
 * ServiceAccount token, no environment from the claim, the bootstrap token as a file the server alone reads, and
 * the broker token only when the template has egress by name. The workspace volume is the sandbox's own claim:
 * agent-sandbox adds it from the SandboxTemplate's claim template, the `kubernetes` provider's manager from the
 * claim it creates.
 */
import type { k8s } from 'cdk8s-plus-28';
import {
  SANDBOX_BOOTSTRAP_DIR,
  SANDBOX_WORKSPACE_VOLUME,
} from '../../toolchain-server/sandbox-manager/constants.ts';
import type { ToolchainServerConfigInput } from '../../toolchain-server/src/config.ts';
import { serverCommand } from '../../toolchain-server/src/launch.ts';
import { SERVER_BUNDLE_VOLUME, serverBundleVolume, serverInstaller } from './agent-workload.ts';
import { noProxyHosts } from './backend-container.ts';
import {
  plainEnv,
  resourceRequirements,
  scratchVolumes,
  serverProbes,
  tokenFile,
} from './container-parts.ts';
import { BROKER_TOKEN_DIR, PATHS, TOKEN_FILE_NAME } from './defaults.ts';
import type { AgentPlan } from './plan.ts';
import type { PlannedSandboxes, PlannedSandboxTemplate } from './sandbox-plan.ts';
import { pullSecrets, restrictedContainerSecurityContext, restrictedPodSecurityContext } from './security.ts';
import { assertServerContract } from './server-contract.ts';
import { TOOLCHAIN_CACHE_ENV, TOOLCHAIN_CONFIG_FILE, toolchainServerConfig } from './toolchain-config.ts';
import { TOOLCHAIN_MCP_PORT_NAME } from './toolchain-sidecar.ts';

/** The sandbox's container name, the same in every sandbox pod. */
export const SANDBOX_CONTAINER = 'sandbox';

/** Whether the template's sandboxes reach the broker (egress by name, broker on). */
export function sandboxUsesBroker(plan: AgentPlan, template: PlannedSandboxTemplate): boolean {
  return plan.broker.enabled && template.toolchain.namedEgress.kind !== 'none';
}

/** The server config a template's sandboxes run with, proven parseable by the server's own schema. */
export function sandboxServerConfig(
  plan: AgentPlan,
  template: PlannedSandboxTemplate,
): ToolchainServerConfigInput {
  const base = toolchainServerConfig(
    template.toolchain,
    template.mountPath,
    sandboxUsesBroker(plan, template) ? { url: plan.broker.url, noProxy: noProxyHosts(plan) } : undefined,
  );
  const config: ToolchainServerConfigInput = {
    ...base,
    listen: { host: '0.0.0.0', port: template.toolchain.port, allowedHosts: [template.serverHost] },
    sandbox: {
      bootstrapTokenFile: `${SANDBOX_BOOTSTRAP_DIR}/${TOKEN_FILE_NAME}`,
      maxFileBytes: Math.max(template.maxUploadBytes, template.maxDownloadBytes),
    },
  };
  assertServerContract(template.objectName, config);
  return config;
}

export function sandboxServerConfigJson(plan: AgentPlan, template: PlannedSandboxTemplate): string {
  return `${JSON.stringify(sandboxServerConfig(plan, template), null, 2)}\n`;
}

/** The pod spec of a template's sandboxes, without the workspace volume (the provider adds the claim). */
export function sandboxPodSpec(
  plan: AgentPlan,
  sandboxes: PlannedSandboxes,
  template: PlannedSandboxTemplate,
): k8s.PodSpec {
  const toolchain = template.toolchain;
  const scratch = scratchVolumes(SANDBOX_CONTAINER);
  const bootstrap = tokenFile(`${SANDBOX_CONTAINER}-bootstrap`, sandboxes.bootstrapSecret);
  const broker = sandboxUsesBroker(plan, template)
    ? tokenFile(`${SANDBOX_CONTAINER}-broker`, {
        name: plan.broker.tokensSecret,
        key: toolchain.containerName,
      })
    : undefined;
  const configVolume = `${SANDBOX_CONTAINER}-config`;
  const container: k8s.Container = {
    name: SANDBOX_CONTAINER,
    image: toolchain.image.reference,
    imagePullPolicy: toolchain.image.pullPolicy,
    command: [
      ...serverCommand(PATHS.serverBundle),
      '--config',
      `${PATHS.toolchainConfigDir}/${TOOLCHAIN_CONFIG_FILE}`,
    ],
    ports: [
      { name: TOOLCHAIN_MCP_PORT_NAME, containerPort: toolchain.port, protocol: 'TCP' },
      { name: `health-${toolchain.healthPort}`, containerPort: toolchain.healthPort, protocol: 'TCP' },
    ],
    env: plainEnv({ ...TOOLCHAIN_CACHE_ENV, ...toolchain.env }),
    resources: resourceRequirements(toolchain.resources),
    securityContext: restrictedContainerSecurityContext(),
    volumeMounts: [
      { name: SANDBOX_WORKSPACE_VOLUME, mountPath: template.mountPath },
      ...scratch.mounts,
      { name: configVolume, mountPath: PATHS.toolchainConfigDir, readOnly: true },
      { ...bootstrap.mount, mountPath: SANDBOX_BOOTSTRAP_DIR },
      ...(broker ? [{ ...broker.mount, mountPath: BROKER_TOKEN_DIR }] : []),
      ...(toolchain.injectServer
        ? [{ name: SERVER_BUNDLE_VOLUME, mountPath: PATHS.serverBundle, readOnly: true }]
        : []),
    ],
    ...serverProbes(toolchain.healthPort),
  };
  return {
    serviceAccountName: sandboxes.podServiceAccount,
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: restrictedPodSecurityContext(),
    ...pullSecrets(plan.imagePullSecrets),
    ...(toolchain.injectServer ? { initContainers: [serverInstaller(plan)] } : {}),
    containers: [container],
    volumes: [
      ...scratch.volumes,
      { name: configVolume, configMap: { name: toolchain.configMapName } },
      bootstrap.volume,
      ...(broker ? [broker.volume] : []),
      ...(toolchain.injectServer ? [serverBundleVolume()] : []),
    ],
  };
}

/** The spec of a sandbox's workspace claim. */
export function sandboxWorkspaceClaimSpec(template: PlannedSandboxTemplate): Record<string, unknown> {
  return {
    accessModes: ['ReadWriteOnce'],
    ...(template.storageClassName ? { storageClassName: template.storageClassName } : {}),
    resources: { requests: { storage: template.storage } },
  };
}
