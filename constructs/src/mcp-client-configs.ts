/**
 * Backends' MCP client configs: for each backend type, the files its CLI reads from its own system-wide
 * (managed) location, where they are mounted, and the environment that makes the stock CLI find, trust and use
 * them in a headless run. Every server is a streamable-HTTP endpoint: toolchain sidecars on
 * `http://127.0.0.1:<port>/mcp` inside the pod, toolchain pods and deployed gateways at their Service, external
 * gateways at their declared URL. Credentials appear only as references to
 * environment variables, never as values. The formats live in one file per CLI.
 */
import { claudeCodeConfig } from './claude-code-config.ts';
import type {
  BackendClientConfig,
  ClientConfigFormat,
  McpClientConfigFile,
  McpServerEntry,
} from './client-config-types.ts';
import { codexConfig } from './codex-config.ts';
import { customBackendConfig } from './custom-backend-config.ts';
import { BROKER_TOKEN_ENV, CLIENT_TIMEOUT_MARGIN_SECONDS } from './defaults.ts';
import { geminiCliConfig } from './gemini-cli-config.ts';
import type { AgentPlan, BackendType, PlannedBackend } from './plan.ts';

export type {
  BackendClientConfig,
  ClientConfigDraft,
  ClientConfigFormat,
  ClientConfigMount,
  ClientConfigProblem,
  McpClientConfigFile,
  McpServerEntry,
} from './client-config-types.ts';

const FORMATS: Readonly<Record<BackendType, ClientConfigFormat>> = {
  claude: claudeCodeConfig,
  openai: codexConfig,
  gemini: geminiCliConfig,
  custom: customBackendConfig,
};

export function mcpServerEntries(plan: AgentPlan): McpServerEntry[] {
  return [
    ...plan.toolchains.map((t) => ({
      name: t.serverName,
      url: t.url,
      kind: 'toolchain' as const,
      ...(t.auth ? { tokenEnv: t.auth.backendEnv } : {}),
      preApproved: true,
      toolTimeoutSeconds: t.limits.maxTimeoutSeconds + CLIENT_TIMEOUT_MARGIN_SECONDS,
    })),
    // Behind a broker route, a gateway is called with the backend's own broker token; the broker sets its token.
    ...plan.gateways.map((g) => ({
      name: g.name,
      url: g.url,
      kind: 'gateway' as const,
      ...(g.route ? { tokenEnv: BROKER_TOKEN_ENV } : g.auth ? { tokenEnv: g.auth.backendEnv } : {}),
      preApproved: g.preApproved,
      toolTimeoutSeconds: g.toolTimeoutSeconds,
    })),
    ...(plan.sandboxes
      ? [
          {
            name: plan.sandboxes.serverName,
            url: plan.sandboxes.url,
            kind: 'sandboxes' as const,
            tokenEnv: plan.sandboxes.auth.backendEnv,
            preApproved: true,
            // A sandbox_exec runs up to the template's maximum, after a create that may wait for a cold start.
            toolTimeoutSeconds: plan.sandboxes.maxTimeoutSeconds + CLIENT_TIMEOUT_MARGIN_SECONDS + 120,
          },
        ]
      : []),
  ];
}

function generate(backend: PlannedBackend, servers: readonly McpServerEntry[]) {
  return FORMATS[backend.type](backend, servers);
}

/** The generated config of one backend; the spec must have passed `clientConfigProblems`. */
export function backendClientConfig(
  backend: PlannedBackend,
  servers: readonly McpServerEntry[],
): BackendClientConfig {
  const { draft, problems } = generate(backend, servers);
  if (problems.length > 0)
    throw new Error(
      `internal error: backend "${backend.name}" has unchecked config problems: ${problems[0]?.message}`,
    );
  const dir = draft.mount.kind === 'directory' ? draft.mount.path : draft.mount.path.replace(/\/[^/]*$/, '');
  const files = Object.entries(draft.files).map(([fileName, content]) => ({
    backend: backend.name,
    type: backend.type,
    fileName,
    configMapKey: `${backend.name}.${fileName}`,
    path: draft.mount.kind === 'file' ? draft.mount.path : `${dir}/${fileName}`,
    content,
  }));
  return { backend: backend.name, type: backend.type, files, mount: draft.mount, env: draft.env };
}

export function backendClientConfigs(plan: AgentPlan): BackendClientConfig[] {
  const servers = mcpServerEntries(plan);
  return plan.backends.map((backend) => backendClientConfig(backend, servers));
}

/** Every generated file of every backend, in backend order. */
export function mcpClientConfigFiles(plan: AgentPlan): McpClientConfigFile[] {
  return backendClientConfigs(plan).flatMap((config) => config.files);
}

/** The variables a backend's client config needs in its container (the same whatever the servers). */
export function clientConfigEnv(backend: PlannedBackend): Readonly<Record<string, string>> {
  return generate(backend, []).draft.env;
}

/** What a backend's spec asks for that its client format cannot express or that toolyard owns. */
export function clientConfigProblems(plan: AgentPlan): { path: string; message: string; hint?: string }[] {
  const servers = mcpServerEntries(plan);
  return plan.backends.flatMap((backend, index) =>
    generate(backend, servers).problems.map((problem) => ({
      path: `/spec/backends/${index}${problem.pointer}`,
      message: problem.message,
      ...(problem.hint ? { hint: problem.hint } : {}),
    })),
  );
}
