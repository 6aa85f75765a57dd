/** The container of a model backend: its image, its MCP client config, gateway tokens by reference. */
import type { k8s } from 'cdk8s-plus-28';
import { plainEnv, probes, resourceRequirements, scratchVolumes, secretEnv } from './container-parts.ts';
import { PATHS } from './defaults.ts';
import type { McpClientConfigFile } from './mcp-client-configs.ts';
import type { AgentPlan, PlannedBackend } from './plan.ts';
import { restrictedContainerSecurityContext } from './security.ts';

export const SERVICE_ACCOUNT_VOLUME = 'kube-api-access';

export interface BackendContainerParts {
  readonly container: k8s.Container;
  readonly volumes: readonly k8s.Volume[];
}

/** Environment variables that tell each backend family where its generated config is. */
function configLocationEnv(backend: PlannedBackend, file: McpClientConfigFile): Record<string, string> {
  const path = `${backend.mcpConfigPath}/${file.fileName}`;
  switch (backend.type) {
    case 'openai':
      return { TOOLYARD_MCP_CONFIG: path, CODEX_HOME: backend.mcpConfigPath };
    case 'gemini':
      return { TOOLYARD_MCP_CONFIG: path, GEMINI_CLI_SYSTEM_SETTINGS_PATH: path };
    case 'claude':
    case 'custom':
      return { TOOLYARD_MCP_CONFIG: path };
  }
}

export function backendContainer(
  plan: AgentPlan,
  backend: PlannedBackend,
  configFile: McpClientConfigFile,
): BackendContainerParts {
  const scratch = scratchVolumes(backend.name);
  const mcpVolume = `${backend.name}-mcp`;
  const serverTokens = [...plan.toolchains, ...plan.gateways].flatMap((s) =>
    s.auth ? [{ env: s.auth.backendEnv, secretName: s.auth.secret.name, key: s.auth.secret.key }] : [],
  );
  const container: k8s.Container = {
    name: backend.name,
    image: backend.image.reference,
    imagePullPolicy: backend.image.pullPolicy,
    ...(backend.command ? { command: [...backend.command] } : {}),
    ...(backend.args ? { args: [...backend.args] } : {}),
    ports: [{ name: portName(backend), containerPort: backend.port, protocol: 'TCP' }],
    env: [
      ...plainEnv({
        HOME: PATHS.home,
        TMPDIR: PATHS.tmp,
        ...configLocationEnv(backend, configFile),
        ...backend.env,
      }),
      ...secretEnv(backend.secretEnv),
      ...secretEnv(serverTokens),
    ],
    resources: resourceRequirements(backend.resources),
    securityContext: restrictedContainerSecurityContext(),
    volumeMounts: [
      { name: 'workspace', mountPath: plan.workspace.mountPath },
      ...scratch.mounts,
      { name: mcpVolume, mountPath: backend.mcpConfigPath, readOnly: true },
      ...(plan.rbacPreset !== 'none'
        ? [{ name: SERVICE_ACCOUNT_VOLUME, mountPath: PATHS.serviceAccount, readOnly: true }]
        : []),
    ],
    ...probes(backend.port, backend.healthPath),
  };
  const volumes: k8s.Volume[] = [
    ...scratch.volumes,
    {
      name: mcpVolume,
      configMap: {
        name: plan.names.mcpClientConfigMap,
        items: [{ key: configFile.configMapKey, path: configFile.fileName }],
      },
    },
  ];
  return { container, volumes };
}

/**
 * The backend's port name: its own name when that fits IANA's 15 characters, else `port-<number>`.
 * The semantic checks reject the one way two of them could still collide.
 */
export function portName(backend: PlannedBackend): string {
  return backend.name.length <= 15 ? backend.name : `port-${backend.port}`;
}

/** The projected token a backend gets when `rbac.preset` is set: never mounted into toolchains. */
export function serviceAccountTokenVolume(): k8s.Volume {
  return {
    name: SERVICE_ACCOUNT_VOLUME,
    projected: {
      defaultMode: 0o444,
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3600 } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        {
          downwardApi: {
            items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
          },
        },
      ],
    },
  };
}
