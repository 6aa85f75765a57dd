/** The container of a model backend: its image, its MCP client config mounts, gateway tokens by reference. */

import type { k8s } from 'cdk8s-plus-28';
import { OTLP_HEADERS_ENV, otlpHeadersValue, telemetryEnv } from './cli-telemetry.ts';
import { plainEnv, probes, resourceRequirements, scratchVolumes, secretEnv } from './container-parts.ts';
import { BROKER_TOKEN_ENV, BROKER_URL_ENV, PATHS } from './defaults.ts';
import type { BackendClientConfig } from './mcp-client-configs.ts';
import type { AgentPlan, PlannedBackend } from './plan.ts';
import { restrictedContainerSecurityContext } from './security.ts';

export const SERVICE_ACCOUNT_VOLUME = 'kube-api-access';

export interface BackendContainerParts {
  readonly container: k8s.Container;
  readonly volumes: readonly k8s.Volume[];
}

/**
 * git in backend containers ignores hooks and fsmonitor commands, whatever a `.git/config` or `.git/hooks` in the
 * shared workspace says (code in a toolchain can write both): configuration from the environment outranks every
 * config file. The workspace root itself belongs to root (the kubelet creates it; `fsGroup` only sets its
 * group), so git's ownership check would refuse a repository checked out there; it is declared safe, by its
 * exact path.
 */
export function gitHardeningEnv(workspaceMountPath: string): Record<string, string> {
  const settings: [string, string][] = [
    ['core.hooksPath', '/dev/null'],
    ['core.fsmonitor', 'false'],
    ['safe.directory', workspaceMountPath],
  ];
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** Every variable toolyard sets in a backend container, before the spec's own. */
export function backendBaseEnv(plan: AgentPlan, config: BackendClientConfig): Record<string, string> {
  return { HOME: PATHS.home, TMPDIR: PATHS.tmp, ...config.env, ...gitHardeningEnv(plan.workspace.mountPath) };
}

/**
 * Hosts a container reaches directly, not through the broker's CONNECT proxy: loopback (its pod's sidecars),
 * the broker itself (its routes) and the cluster's Services (which its NetworkPolicy allows or not).
 */
export function noProxyHosts(plan: AgentPlan): string[] {
  // Cluster suffixes, not the namespace: a chart installs the same objects in any namespace.
  return ['localhost', '127.0.0.1', '::1', plan.broker.host, '.svc', '.cluster.local'];
}

/**
 * What a backend gets from the broker: its broker token where its CLI reads its API key and as
 * `TOOLYARD_BROKER_TOKEN` (client configs name it for gateway routes), its model route as `TOOLYARD_BROKER_URL`,
 * and proxy variables when it declares egress (the token in the proxy URL by `$(VAR)` expansion, never a value).
 * With the broker off, the provider key from `model.apiKeySecret` under the CLI's variable.
 */
export function backendBrokerEnv(plan: AgentPlan, backend: PlannedBackend): k8s.EnvVar[] {
  const model = backend.model;
  if (!plan.broker.enabled)
    return model?.keyEnv
      ? secretEnv([{ env: model.keyEnv, secretName: model.apiKeySecret.name, key: model.apiKeySecret.key }])
      : [];
  const own = { secretName: plan.broker.tokensSecret, key: backend.name };
  const env: k8s.EnvVar[] = [
    ...secretEnv([{ env: BROKER_TOKEN_ENV, ...own }]),
    ...(model?.keyEnv ? secretEnv([{ env: model.keyEnv, ...own }]) : []),
    ...(model?.route ? plainEnv({ [BROKER_URL_ENV]: model.route.url }) : []),
    // The CLI's OTLP export authenticates to the broker's otlp route with the same token ($(VAR) expansion).
    ...(backend.telemetry ? plainEnv({ [OTLP_HEADERS_ENV]: otlpHeadersValue() }) : []),
  ];
  if (backend.egress.kind !== 'none') {
    const proxy = `http://${backend.name}:$(${BROKER_TOKEN_ENV})@${plan.broker.host}:${plan.broker.port}`;
    const noProxy = noProxyHosts(plan).join(',');
    env.push(
      ...plainEnv({
        HTTPS_PROXY: proxy,
        https_proxy: proxy,
        HTTP_PROXY: proxy,
        http_proxy: proxy,
        NO_PROXY: noProxy,
        no_proxy: noProxy,
      }),
    );
  }
  return env;
}

/** The variables `backendBrokerEnv` may set: a spec may not set them itself. */
export const BACKEND_BROKER_ENV_NAMES = [
  BROKER_TOKEN_ENV,
  OTLP_HEADERS_ENV,
  BROKER_URL_ENV,
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
] as const;

function configVolume(plan: AgentPlan, config: BackendClientConfig, name: string): k8s.Volume {
  return {
    name,
    configMap: {
      name: plan.names.mcpClientConfigMap,
      items: config.files.map((file) => ({ key: file.configMapKey, path: file.fileName })),
    },
  };
}

function configMount(config: BackendClientConfig, name: string): k8s.VolumeMount {
  const mount = config.mount;
  return mount.kind === 'directory'
    ? { name, mountPath: mount.path, readOnly: true }
    : { name, mountPath: mount.path, subPath: mount.fileName, readOnly: true };
}

export function backendContainer(
  plan: AgentPlan,
  backend: PlannedBackend,
  config: BackendClientConfig,
): BackendContainerParts {
  const scratch = scratchVolumes(backend.name);
  const mcpVolume = `${backend.name}-mcp`;
  // A gateway behind a broker route: the broker holds its token, the backend only its own broker token.
  const serverTokens = [
    ...plan.toolchains,
    ...plan.gateways.filter((g) => !g.route),
    ...(plan.sandboxes ? [plan.sandboxes] : []),
  ].flatMap((s) =>
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
      ...plainEnv({ ...backendBaseEnv(plan, config), ...telemetryEnv(backend.telemetry), ...backend.env }),
      ...secretEnv(backend.secretEnv),
      ...secretEnv(serverTokens),
      ...backendBrokerEnv(plan, backend),
    ],
    resources: resourceRequirements(backend.resources),
    securityContext: restrictedContainerSecurityContext(),
    volumeMounts: [
      { name: 'workspace', mountPath: plan.workspace.mountPath },
      ...scratch.mounts,
      configMount(config, mcpVolume),
      ...(plan.rbacPreset !== 'none'
        ? [{ name: SERVICE_ACCOUNT_VOLUME, mountPath: PATHS.serviceAccount, readOnly: true }]
        : []),
    ],
    ...probes(backend.port, backend.healthPath),
  };
  const volumes: k8s.Volume[] = [...scratch.volumes, configVolume(plan, config, mcpVolume)];
  return { container, volumes };
}

/**
 * The backend's port name: its own name when that is an IANA service name (at most 15 characters, a letter
 * among them, no `--`), else `port-<number>`. The semantic checks reject the one way two of them could still
 * collide.
 */
export function portName(backend: PlannedBackend): string {
  const ianaName = backend.name.length <= 15 && /[a-z]/.test(backend.name) && !backend.name.includes('--');
  return ianaName ? backend.name : `port-${backend.port}`;
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
