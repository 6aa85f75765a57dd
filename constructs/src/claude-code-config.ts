/**
 * Claude Code reads managed (system-wide) files from `/etc/claude-code/`: `managed-mcp.json`, which has
 * exclusive control over MCP servers (a workspace `.mcp.json`, user and project servers are ignored), and
 * `managed-settings.json`, which outranks user and project settings. The mount is a plain ConfigMap directory;
 * Claude Code does not mind its group-writable mode.
 *
 * - Pre-approval: `claude -p` refuses an MCP tool without a permission rule, so each pre-approved server gets
 *   `mcp__<server>` in `permissions.allow`; `allowManagedPermissionRulesOnly` ignores rules planted in
 *   `.claude/settings.json`.
 * - Hooks: `allowManagedHooksOnly` runs no hook from user or project settings (toolyard defines none).
 * - Servers: `allowedMcpServers` names exactly toolyard's servers (also required for entries whose headers name
 *   an environment variable).
 * - Toolchain tools are always loaded (`alwaysLoad`), never deferred behind tool search, and the first turn
 *   waits until the toolchains are connected.
 * - Timeouts: `timeout` (milliseconds) per server.
 */

import { claudeTelemetrySettings } from './cli-telemetry.ts';
import type { ClientConfigFormat, McpServerEntry } from './client-config-types.ts';
import { mergeClientSettings } from './client-settings.ts';
import { CLIENT_CONFIG_PATHS } from './defaults.ts';

export const CLAUDE_MANAGED_MCP = 'managed-mcp.json';
export const CLAUDE_MANAGED_SETTINGS = 'managed-settings.json';

/** `.mcp.json`-style server entries; `${VAR}` in headers is expanded by Claude Code at load time. */
export function claudeServerEntries(
  servers: readonly McpServerEntry[],
  options: { readonly alwaysLoad: boolean },
): Record<string, unknown> {
  const entries: Record<string, unknown> = {};
  for (const server of servers) {
    entries[server.name] = {
      type: 'http',
      url: server.url,
      ...(server.tokenEnv ? { headers: { Authorization: `Bearer \${${server.tokenEnv}}` } } : {}),
      ...(options.alwaysLoad ? { alwaysLoad: true } : {}),
      timeout: server.toolTimeoutSeconds * 1000,
    };
  }
  return entries;
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * The model route: Claude Code reads `ANTHROPIC_BASE_URL` from the `env` of its settings, and managed settings
 * outrank a `.claude/settings.json` planted in the workspace, so the route cannot be redirected from there. The
 * key (`ANTHROPIC_API_KEY`) is the backend's broker token, sent as `x-api-key`; the broker swaps it.
 *
 * `apiKeyHelper` is pinned here for the same reason: Claude Code 2.1 runs a project's `apiKeyHelper` (a command
 * planted in the workspace, run in the backend container at start) unless a higher settings layer sets one.
 * The managed helper prints the token the container already holds (test/broker-e2e proves the planted one no
 * longer runs).
 */
export const CLAUDE_API_KEY_HELPER = 'printenv ANTHROPIC_API_KEY';

export function claudeModelSettings(routeUrl: string | undefined): Record<string, unknown> {
  return routeUrl ? { env: { ANTHROPIC_BASE_URL: routeUrl }, apiKeyHelper: CLAUDE_API_KEY_HELPER } : {};
}

export const claudeCodeConfig: ClientConfigFormat = (backend, servers) => {
  const generated = {
    permissions: { allow: servers.filter((s) => s.preApproved).map((s) => `mcp__${s.name}`) },
    allowManagedPermissionRulesOnly: true,
    allowManagedHooksOnly: true,
    allowedMcpServers: servers.map((s) => ({ serverName: s.name })),
    ...mergeEnv(claudeModelSettings(backend.model?.route?.url), claudeTelemetrySettings(backend.telemetry)),
  };
  const { merged, problems } = mergeClientSettings(generated, backend.settings, {
    mcpServers: "MCP servers are the spec's toolchains and gateways, in managed-mcp.json",
    allowedMcpServers: "exactly the spec's toolchains and gateways",
    deniedMcpServers: 'the spec lists every server the backend may use',
  });
  return {
    draft: {
      files: {
        [CLAUDE_MANAGED_MCP]: json({
          mcpServers: claudeServerEntries(servers, { alwaysLoad: true }),
        }),
        [CLAUDE_MANAGED_SETTINGS]: json(merged),
      },
      mount: { kind: 'directory', path: CLIENT_CONFIG_PATHS.claudeCode },
      // A read-only image cannot update itself; the updater would only fail, over the network.
      env: { DISABLE_AUTOUPDATER: '1' },
    },
    problems,
  };
};

/** Two settings objects whose `env` maps are merged (both set some of Claude Code's variables). */
function mergeEnv(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const env = {
    ...(a.env as Record<string, string> | undefined),
    ...(b.env as Record<string, string> | undefined),
  };
  return { ...a, ...b, ...(Object.keys(env).length > 0 ? { env } : {}) };
}
