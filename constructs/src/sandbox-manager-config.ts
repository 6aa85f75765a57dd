/**
 * The sandbox manager's config, as its ConfigMap carries it (toolchain-server/sandbox-manager/config.ts is the
 * contract): where its tokens are mounted, the labels of its objects, the quota, and per template the warm pool
 * (agent-sandbox) or the pod and claim it creates (kubernetes), the lifecycle and what one sandbox counts.
 */
import { k8s } from 'cdk8s-plus-28';
import type { SandboxManagerConfigInput } from '../../toolchain-server/sandbox-manager/config.ts';
import {
  SANDBOX_MANAGER_PATHS,
  SANDBOX_WORKSPACE_VOLUME,
} from '../../toolchain-server/sandbox-manager/constants.ts';
import { brokerConfigHash } from './broker-config.ts';
import { BROKER_TOKEN_DIR, TOKEN_FILE_NAME } from './defaults.ts';
import { goPrettyJson } from './go-json.ts';
import type { AgentPlan } from './plan.ts';
import { assertSandboxManagerContract } from './sandbox-manager-contract.ts';
import { type PlannedSandboxes, SANDBOX_MANAGER_CALLER } from './sandbox-plan.ts';
import { sandboxPodSpec, sandboxWorkspaceClaimSpec } from './sandbox-pod.ts';

export function sandboxManagerConfig(
  plan: AgentPlan,
  sandboxes: PlannedSandboxes,
): SandboxManagerConfigInput {
  const kubernetes = sandboxes.provider === 'kubernetes';
  const config: SandboxManagerConfigInput = {
    agent: plan.name,
    namespace: plan.namespace,
    provider: sandboxes.provider,
    listen: { host: '0.0.0.0', port: sandboxes.port, allowedHosts: [sandboxes.host] },
    health: { host: '0.0.0.0', port: sandboxes.healthPort },
    auth: { bearerTokenFile: `${SANDBOX_MANAGER_PATHS.authDir}/${TOKEN_FILE_NAME}` },
    bootstrapTokenFile: `${SANDBOX_MANAGER_PATHS.bootstrapDir}/${TOKEN_FILE_NAME}`,
    labels: { ...sandboxes.managedLabels },
    quota: { ...sandboxes.quota },
    templates: sandboxes.templates.map((t) => ({
      name: t.name,
      ...(kubernetes ? {} : { warmPool: t.objectName }),
      serverPort: t.toolchain.port,
      serverHost: t.serverHost,
      cpuMillis: t.cpuMillis,
      memoryBytes: t.memoryBytes,
      idleTimeoutSeconds: t.idleTimeoutSeconds,
      retentionSeconds: t.retentionSeconds,
      maxTimeoutSeconds: t.toolchain.limits.maxTimeoutSeconds,
      ...(t.toolchain.codeMode ? { codeMode: { languages: [...t.toolchain.codeMode.languages] } } : {}),
      maxUploadBytes: t.maxUploadBytes,
      maxDownloadBytes: t.maxDownloadBytes,
      ...(kubernetes
        ? {
            pod: {
              metadata: {
                labels: { ...plan.names.labels(t.component, plan.labels) },
                annotations: { ...plan.annotations },
              },
              spec: k8s.KubePod.manifest({ spec: sandboxPodSpec(plan, sandboxes, t) }).spec as Record<
                string,
                unknown
              >,
              workspaceClaim: sandboxWorkspaceClaimSpec(t),
              workspaceClaimVolume: SANDBOX_WORKSPACE_VOLUME,
            },
          }
        : {}),
    })),
    defaultTemplate: sandboxes.templates[0]?.name ?? '',
    ...sandboxManagerTelemetry(plan),
  };
  assertSandboxManagerContract(config);
  return config;
}

/**
 * spec.observability with traces: the manager's spans go to the broker's otlp route with its own broker token
 * (a caller of that route alone), as a toolchain's do (toolchainTelemetry).
 */
export function sandboxManagerTelemetry(plan: AgentPlan): Pick<SandboxManagerConfigInput, 'telemetry'> {
  const o = plan.observability;
  if (!o.enabled || !o.signals.traces) return {};
  if (!plan.broker.callers.some((c) => c.name === SANDBOX_MANAGER_CALLER)) return {};
  return {
    telemetry: {
      endpoint: o.emitterUrl,
      tokenFile: `${BROKER_TOKEN_DIR}/${TOKEN_FILE_NAME}`,
      sampleRatio: o.sampleRatio,
      resource: { ...o.resource, 'k8s.container.name': 'sandbox-manager' },
    },
  };
}

/**
 * The config's JSON text as Go's `json.MarshalIndent(config, "", "  ")` (Helm's `mustToPrettyJson`) writes it,
 * without a trailing newline: a chart builds the same text from values (chart-generator/src/sandbox-values.ts),
 * so with default values it renders synth's bytes, and hashes it as `sandboxManagerConfigHash` does.
 */
export function sandboxManagerConfigText(plan: AgentPlan, sandboxes: PlannedSandboxes): string {
  return goPrettyJson(sandboxManagerConfig(plan, sandboxes));
}

/** The ConfigMap's file: the text and a newline. */
export function sandboxManagerConfigJson(plan: AgentPlan, sandboxes: PlannedSandboxes): string {
  return `${sandboxManagerConfigText(plan, sandboxes)}\n`;
}

/**
 * The manager pod's `toolyard.dev/config-hash`: the first 8 hex digits of the SHA-1 of the config text, what a
 * chart computes with `include "<chart>.sandboxManagerConfig" $ | sha1sum | trunc 8` (as the broker's).
 */
export function sandboxManagerConfigHash(plan: AgentPlan, sandboxes: PlannedSandboxes): string {
  return brokerConfigHash(sandboxManagerConfigText(plan, sandboxes));
}
