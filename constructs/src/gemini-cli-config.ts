/**
 * Gemini CLI reads system settings from `/etc/gemini-cli/settings.json` and skips that file when its directory
 * is writable by group or others, which a ConfigMap directory mount always is (mode 2777 with `fsGroup`). So
 * the one file is mounted by `subPath` into the image's own `/etc/gemini-cli`.
 *
 * Headless runs (`gemini -p`) refuse an untrusted folder, so `GEMINI_CLI_TRUST_WORKSPACE=true` trusts the
 * workspace. A trusted folder's `.gemini/settings.json` is merged under the system settings, so the system
 * file pins everything that could run code or add servers: exactly toolyard's servers (`mcp.allowed`, and its
 * own entries replace same-named ones), no MCP server command, no tool discovery or call command, hooks off,
 * no project `.env`.
 *
 * - Pre-approval: a server's tools are offered in a headless run only when it is `trust`ed, and `mcp.allowed`
 *   runs them without confirmation; a withheld gateway is neither.
 * - Timeouts: `timeout` (milliseconds) per server.
 */

import { json } from './claude-code-config.ts';
import { geminiTelemetrySettings } from './cli-telemetry.ts';
import type { ClientConfigFormat, McpServerEntry } from './client-config-types.ts';
import { type JsonObject, mergeClientSettings } from './client-settings.ts';
import { CLIENT_CONFIG_PATHS } from './defaults.ts';

export const GEMINI_SETTINGS = 'settings.json';

/** `mcpServers` entries: streamable HTTP by `url` + `type: http`; `${VAR}` in headers is expanded at load time. */
export function geminiServerEntries(servers: readonly McpServerEntry[]): Record<string, unknown> {
  const entries: Record<string, unknown> = {};
  for (const server of servers) {
    entries[server.name] = {
      type: 'http',
      url: server.url,
      ...(server.tokenEnv ? { headers: { Authorization: `Bearer \${${server.tokenEnv}}` } } : {}),
      trust: server.preApproved,
      timeout: server.toolTimeoutSeconds * 1000,
    };
  }
  return entries;
}

/**
 * `mcp.allowed` is both Gemini CLI's allowlist (no other server connects) and a policy that runs the listed
 * servers' tools without confirmation, so it names the pre-approved servers only: a withheld gateway is left
 * out of Gemini CLI altogether. An empty list would mean "no allowlist", so a name no server can have (not a DNS
 * label) keeps the allowlist in force when no server is pre-approved.
 */
export function geminiAllowlist(servers: readonly McpServerEntry[]): string[] {
  const approved = servers.filter((s) => s.preApproved).map((s) => s.name);
  return approved.length > 0 ? approved : ['toolyard:none'];
}

/**
 * The model route: Gemini CLI (through @google/genai) takes its API base URL from `GOOGLE_GEMINI_BASE_URL` in
 * the container environment, which a planted workspace `.env` cannot override (`advanced.ignoreLocalEnv`). The
 * key (`GEMINI_API_KEY`) is the backend's broker token, sent as `x-goog-api-key`; the broker swaps it.
 */
export function geminiModelEnv(routeUrl: string | undefined): Record<string, string> {
  return routeUrl ? { GOOGLE_GEMINI_BASE_URL: routeUrl } : {};
}

/**
 * With `GOOGLE_GEMINI_BASE_URL` set and no auth type selected, Gemini CLI 0.61 picks its `gateway` auth type,
 * which `gemini -p` then refuses ("Invalid auth method selected.", exit 41). Selecting `gemini-api-key` in the
 * system settings (which outrank the workspace's) keeps the base URL and sends `GEMINI_API_KEY` as
 * `x-goog-api-key` (proved by test/broker-e2e/backends-broker.test.ts with the real CLI).
 */
export function geminiModelSettings(routeUrl: string | undefined): JsonObject {
  return routeUrl ? { security: { auth: { selectedType: 'gemini-api-key' } } } : {};
}

export const geminiCliConfig: ClientConfigFormat = (backend, servers) => {
  const generated: JsonObject = {
    mcpServers: geminiServerEntries(servers),
    mcp: { allowed: geminiAllowlist(servers), serverCommand: '' },
    tools: { discoveryCommand: '', callCommand: '' },
    hooksConfig: { enabled: false },
    advanced: { ignoreLocalEnv: true },
    ...geminiModelSettings(backend.model?.route?.url),
    ...geminiTelemetrySettings(backend.telemetry),
    // A read-only image installed from npm cannot update itself.
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
  const { merged, problems } = mergeClientSettings(generated, backend.settings, {
    mcpServers: "MCP servers are the spec's toolchains and gateways",
    hooks: 'hooks are off: a trusted workspace could add its own',
  });
  return {
    draft: {
      files: { [GEMINI_SETTINGS]: json(merged) },
      mount: { kind: 'file', path: CLIENT_CONFIG_PATHS.geminiCliSettings, fileName: GEMINI_SETTINGS },
      env: {
        GEMINI_CLI_SYSTEM_SETTINGS_PATH: CLIENT_CONFIG_PATHS.geminiCliSettings,
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        ...geminiModelEnv(backend.model?.route?.url),
      },
    },
    problems,
  };
};
