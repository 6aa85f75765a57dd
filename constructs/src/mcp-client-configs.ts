/**
 * Backends' MCP client configs, one format per backend type. Every server is a streamable-HTTP endpoint:
 * toolchain sidecars on `http://127.0.0.1:<port>/mcp` inside the pod, toolchain pods and gateways at their Service,
 * external gateways at their declared URL.
 * Credentials appear only as references to environment variables, never as values.
 */
import type { AgentPlan, BackendType, PlannedBackend } from './plan.ts';

/** One MCP server as every format sees it. */
export interface McpServerEntry {
  readonly name: string;
  readonly url: string;
  readonly kind: 'toolchain' | 'gateway';
  /** Environment variable holding the bearer token, if the server needs one. */
  readonly tokenEnv?: string;
}

export interface McpClientConfigFile {
  readonly backend: string;
  readonly type: BackendType;
  /** File name in the backend's config directory. */
  readonly fileName: string;
  /** Key in the shared ConfigMap. */
  readonly configMapKey: string;
  readonly content: string;
}

const FILE_NAMES: Readonly<Record<BackendType, string>> = {
  claude: 'mcp.json',
  openai: 'config.toml',
  gemini: 'settings.json',
  custom: 'mcp.json',
};

export function mcpServerEntries(plan: AgentPlan): McpServerEntry[] {
  return [
    ...plan.toolchains.map((t) => ({
      name: t.serverName,
      url: t.url,
      kind: 'toolchain' as const,
      ...(t.auth ? { tokenEnv: t.auth.backendEnv } : {}),
    })),
    ...plan.gateways.map((g) => ({
      name: g.name,
      url: g.url,
      kind: 'gateway' as const,
      ...(g.auth ? { tokenEnv: g.auth.backendEnv } : {}),
    })),
  ];
}

export function mcpClientConfigFile(
  backend: PlannedBackend,
  servers: readonly McpServerEntry[],
): McpClientConfigFile {
  const fileName = FILE_NAMES[backend.type];
  return {
    backend: backend.name,
    type: backend.type,
    fileName,
    configMapKey: `${backend.name}.${fileName}`,
    content: renderConfig(backend.type, servers),
  };
}

export function mcpClientConfigFiles(plan: AgentPlan): McpClientConfigFile[] {
  const servers = mcpServerEntries(plan);
  return plan.backends.map((backend) => mcpClientConfigFile(backend, servers));
}

function renderConfig(type: BackendType, servers: readonly McpServerEntry[]): string {
  switch (type) {
    case 'claude':
    case 'custom':
      return claudeCodeJson(servers);
    case 'openai':
      return codexToml(servers);
    case 'gemini':
      return geminiSettingsJson(servers);
  }
}

/** Claude Code `.mcp.json`: `type: http`; `${VAR}` is expanded by Claude Code at load time. */
function claudeCodeJson(servers: readonly McpServerEntry[]): string {
  const mcpServers: Record<string, unknown> = {};
  for (const server of servers) {
    mcpServers[server.name] = {
      type: 'http',
      url: server.url,
      ...(server.tokenEnv ? { headers: { Authorization: `Bearer \${${server.tokenEnv}}` } } : {}),
    };
  }
  return `${JSON.stringify({ mcpServers }, null, 2)}\n`;
}

/** Gemini CLI `settings.json`: `httpUrl` selects streamable HTTP; `${VAR}` is expanded from the environment. */
function geminiSettingsJson(servers: readonly McpServerEntry[]): string {
  const mcpServers: Record<string, unknown> = {};
  for (const server of servers) {
    mcpServers[server.name] = {
      httpUrl: server.url,
      ...(server.tokenEnv ? { headers: { Authorization: `Bearer \${${server.tokenEnv}}` } } : {}),
    };
  }
  return `${JSON.stringify({ mcpServers }, null, 2)}\n`;
}

/** Codex `config.toml`: `[mcp_servers.<name>]` with `url`, token by `bearer_token_env_var`. */
function codexToml(servers: readonly McpServerEntry[]): string {
  const tables = servers.map((server) => {
    const lines = [`[mcp_servers.${server.name}]`, `url = ${tomlString(server.url)}`];
    if (server.tokenEnv) lines.push(`bearer_token_env_var = ${tomlString(server.tokenEnv)}`);
    return lines.join('\n');
  });
  return tables.length > 0 ? `${tables.join('\n\n')}\n` : '';
}

/** JSON string escapes are a subset of TOML basic-string escapes. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}
