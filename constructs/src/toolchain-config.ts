/** The toolchain server config a sidecar receives: built here, parsed by the server with the same schema. */
import type { ToolchainServerConfigInput } from '../../toolchain-server/src/config.ts';
import { cacheEnv, offlineEnv, serverCaches } from './cache-plan.ts';
import { BROKER_TOKEN_DIR, PATHS, TOKEN_FILE_NAME, TOOLCHAIN_POD_LISTEN_HOST } from './defaults.ts';
import type { AgentPlan, PlannedToolchain } from './plan.ts';
import type { PlannedCodeMode } from './plan-types.ts';
import { assertServerContract } from './server-contract.ts';

/** Writable locations for language caches, all under the `HOME` emptyDir. */
export const TOOLCHAIN_CACHE_ENV: Readonly<Record<string, string>> = {
  HOME: PATHS.home,
  TMPDIR: PATHS.tmp,
  XDG_CACHE_HOME: `${PATHS.home}/.cache`,
  CARGO_HOME: `${PATHS.home}/.cargo`,
  GOPATH: `${PATHS.home}/go`,
  GOCACHE: `${PATHS.home}/.cache/go-build`,
  npm_config_cache: `${PATHS.home}/.npm`,
  UV_CACHE_DIR: `${PATHS.home}/.cache/uv`,
  PIP_CACHE_DIR: `${PATHS.home}/.cache/pip`,
  TF_PLUGIN_CACHE_DIR: `${PATHS.home}/.terraform.d/plugin-cache`,
  HELM_CACHE_HOME: `${PATHS.home}/.cache/helm`,
  HELM_CONFIG_HOME: `${PATHS.home}/.config/helm`,
  HELM_DATA_HOME: `${PATHS.home}/.local/share/helm`,
};

/** Variables language images set that tools need; copied from the server's environment into children. */
export const TOOLCHAIN_PASSTHROUGH_ENV = [
  'PATH',
  'LANG',
  'LC_ALL',
  'RUSTUP_HOME',
  'RUST_VERSION',
  'GOROOT',
  'GOTOOLCHAIN',
  'JAVA_HOME',
  'NODE_VERSION',
  'PYTHON_VERSION',
] as const;

export const TOOLCHAIN_CONFIG_FILE = 'config.json';

/** The broker's CONNECT proxy as a toolchain with egress sees it (absent: the broker is off or it has none). */
export interface ToolchainEgressProxy {
  /** `http://<broker host>:<port>`. */
  readonly url: string;
  /** Hosts its children reach directly (loopback is added by the server). */
  readonly noProxy: readonly string[];
}

/** What a toolchain server exports, and where (`spec.observability`): traces through the broker's otlp route. */
export interface ToolchainTelemetry {
  readonly config?: NonNullable<ToolchainServerConfigInput['telemetry']>;
  /** Serve /metrics on the probe port for Prometheus. */
  readonly metrics: boolean;
  /** Labels on every sample: the agent and the toolchain. */
  readonly metricsLabels?: Readonly<Record<string, string>>;
}

export function toolchainTelemetry(plan: AgentPlan, toolchain: PlannedToolchain): ToolchainTelemetry {
  const o = plan.observability;
  if (!o.enabled) return { metrics: false };
  return {
    metrics: true,
    metricsLabels: { agent: plan.name, toolchain: toolchain.name },
    ...(o.signals.traces
      ? {
          config: {
            endpoint: o.emitterUrl,
            tokenFile: `${BROKER_TOKEN_DIR}/${TOKEN_FILE_NAME}`,
            sampleRatio: o.sampleRatio,
            resource: { ...o.resource, 'k8s.container.name': toolchain.containerName },
          },
        }
      : {}),
  };
}

export function toolchainServerConfig(
  toolchain: PlannedToolchain,
  workspaceMountPath: string,
  egressProxy?: ToolchainEgressProxy,
  telemetry: ToolchainTelemetry = { metrics: false },
): ToolchainServerConfigInput {
  return {
    name: toolchain.name,
    // A sidecar serves the agent pod's loopback; a toolchain pod serves its pod IP, called by its Service name.
    listen: toolchain.pod
      ? {
          host: TOOLCHAIN_POD_LISTEN_HOST,
          port: toolchain.port,
          allowedHosts: [toolchain.pod.host],
          ...(toolchain.allowUnauthenticated && !toolchain.auth ? { allowUnauthenticated: true } : {}),
        }
      : { host: '127.0.0.1', port: toolchain.port },
    health: { host: '0.0.0.0', port: toolchain.healthPort, ...(telemetry.metrics ? { metrics: true } : {}) },
    workspaceRoots: [workspaceMountPath],
    tools: {
      mode: toolchain.mode,
      presets: [...toolchain.presets],
      allowedCommands: [...toolchain.allowedCommands],
    },
    handles: { commands: [...toolchain.handles.commands], files: [...toolchain.handles.files] },
    // The pod's NetworkPolicy and the broker bound egress, so confinement's TCP rule can leave loopback test
    // servers reachable (docs/confinement.md#loopback); a spec's `limits.connect: egress` keeps the rule.
    limits: { connect: 'pod', ...toolchain.limits },
    env: {
      passthrough: [...TOOLCHAIN_PASSTHROUGH_ENV, ...Object.keys(toolchain.env)],
      set: { ...TOOLCHAIN_CACHE_ENV, ...cacheEnv(toolchain) },
    },
    ...(toolchain.auth ? { auth: { bearerTokenFile: `${PATHS.authDir}/${TOKEN_FILE_NAME}` } } : {}),
    ...(egressProxy
      ? {
          egressProxy: {
            url: egressProxy.url,
            user: toolchain.containerName,
            tokenFile: `${BROKER_TOKEN_DIR}/${TOKEN_FILE_NAME}`,
            noProxy: [...egressProxy.noProxy],
            ...(toolchain.egressPhase === 'fetch' ? { phase: toolchain.egressPhase } : {}),
          },
        }
      : {}),
    ...(toolchain.caches.length > 0 ? { caches: serverCaches(toolchain) } : {}),
    ...(toolchain.egressPhase === 'fetch' ? { offlineEnv: offlineEnv(toolchain) } : {}),
    ...(toolchain.codeMode ? { codeMode: serverCodeMode(toolchain.codeMode) } : {}),
    ...(telemetry.config ? { telemetry: telemetry.config } : {}),
    ...(telemetry.metricsLabels ? { metricsLabels: { ...telemetry.metricsLabels } } : {}),
  };
}

/** Code mode as the server reads it: each server's URL and the file of the token it presents. */
function serverCodeMode(codeMode: PlannedCodeMode): NonNullable<ToolchainServerConfigInput['codeMode']> {
  return {
    languages: [...codeMode.languages],
    servers: codeMode.servers.map((s) => ({
      name: s.name,
      kind: s.kind,
      ...(s.url ? { url: s.url } : {}),
      ...(s.token?.kind === 'secret'
        ? { tokenFile: `${s.token.dir}/${TOKEN_FILE_NAME}` }
        : s.token?.kind === 'broker'
          ? { tokenFile: `${BROKER_TOKEN_DIR}/${TOKEN_FILE_NAME}` }
          : {}),
    })),
    ...(Object.keys(codeMode.limits).length > 0 ? { limits: { ...codeMode.limits } } : {}),
  };
}

/** The config as the ConfigMap carries it; proven parseable by the server's schema before it is emitted. */
export function toolchainServerConfigJson(
  toolchain: PlannedToolchain,
  workspaceMountPath: string,
  egressProxy?: ToolchainEgressProxy,
  telemetry?: ToolchainTelemetry,
): string {
  const config = toolchainServerConfig(toolchain, workspaceMountPath, egressProxy, telemetry);
  assertServerContract(toolchain.name, config);
  return `${JSON.stringify(config, null, 2)}\n`;
}
