/**
 * Codex reads a system configuration layer from `/etc/codex/config.toml` and admin-enforced requirements from
 * `/etc/codex/requirements.toml`; `CODEX_HOME` (its state: sessions, logs, auth) stays writable under `HOME`.
 *
 * - Pre-approval: `codex exec` runs with approval policy "never" and refuses any MCP tool that would need an
 *   approval, so pre-approved servers get `default_tools_approval_mode = "approve"` (withheld: "prompt").
 * - Servers: `requirements.toml` allows exactly toolyard's servers, by name and URL; any other server, from any
 *   layer, is disabled. A workspace `.codex/config.toml` is not loaded at all: the workspace is never marked
 *   trusted (so `projects` cannot be set from a spec).
 * - Toolchains are `required`: `codex exec` fails at start when one cannot be reached, instead of running
 *   without its tools.
 * - Timeouts: `tool_timeout_sec` per server; `startup_timeout_sec` leaves the sidecars time to come up.
 */

import { codexTelemetrySettings } from './cli-telemetry.ts';
import type { ClientConfigFormat, ClientConfigProblem, McpServerEntry } from './client-config-types.ts';
import { type JsonObject, mergeClientSettings } from './client-settings.ts';
import { CLIENT_CONFIG_PATHS } from './defaults.ts';
import { type TomlValue, tomlProblems, toToml } from './toml.ts';

export const CODEX_CONFIG = 'config.toml';
export const CODEX_REQUIREMENTS = 'requirements.toml';
/** Seconds Codex waits for a server to initialize and list its tools. */
export const CODEX_STARTUP_TIMEOUT_SECONDS = 30;

/** `[mcp_servers.<name>]` tables; the token by `bearer_token_env_var`, never a value. */
export function codexServerTables(servers: readonly McpServerEntry[]): Record<string, TomlValue> {
  const tables: Record<string, TomlValue> = {};
  for (const server of servers) {
    tables[server.name] = {
      url: server.url,
      ...(server.tokenEnv ? { bearer_token_env_var: server.tokenEnv } : {}),
      ...(server.kind !== 'gateway' ? { required: true } : {}),
      startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SECONDS,
      tool_timeout_sec: server.toolTimeoutSeconds,
      default_tools_approval_mode: server.preApproved ? 'approve' : 'prompt',
    };
  }
  return tables;
}

/** The Codex model provider that points at the broker route. */
export const CODEX_PROVIDER = 'toolyard';

/**
 * The model route: a provider of its own in the system config layer (a workspace `.codex/config.toml` is never
 * loaded: the workspace stays untrusted). `env_key` names the variable holding the backend's broker token, sent
 * as `Authorization: Bearer`; the broker swaps it for the real key. `wire_api = "responses"`: the Responses API
 * of `https://api.openai.com/v1`, which the route forwards to.
 */
export function codexModelSettings(routeUrl: string | undefined, keyEnv: string | undefined): JsonObject {
  if (!routeUrl) return {};
  return {
    model_provider: CODEX_PROVIDER,
    model_providers: {
      [CODEX_PROVIDER]: {
        name: CODEX_PROVIDER,
        base_url: routeUrl,
        ...(keyEnv ? { env_key: keyEnv } : {}),
        wire_api: 'responses',
      },
    },
  };
}

export const codexConfig: ClientConfigFormat = (backend, servers) => {
  const generated: JsonObject = {
    // A read-only image installed from npm cannot update itself; the check would only call the network.
    check_for_update_on_startup: false,
    ...codexModelSettings(backend.model?.route?.url, backend.model?.keyEnv),
    ...codexTelemetrySettings(backend.telemetry),
    mcp_servers: codexServerTables(servers),
  };
  const merge = mergeClientSettings(generated, backend.settings, {
    mcp_servers: "MCP servers are the spec's toolchains and gateways",
    projects: 'the workspace stays untrusted, so Codex ignores configuration planted in it',
  });
  const problems: ClientConfigProblem[] = [
    ...merge.problems,
    ...tomlProblems(backend.settings ?? {}, '/settings').map((p) => ({
      pointer: p.pointer,
      message: `Codex reads TOML: ${p.message}`,
    })),
  ];
  const requirements = {
    mcp_servers: Object.fromEntries(servers.map((s) => [s.name, { identity: { url: s.url } }])),
  };
  return {
    draft: {
      files: (problems.length > 0
        ? {}
        : {
            [CODEX_CONFIG]: toToml(merge.merged as Record<string, TomlValue>),
            [CODEX_REQUIREMENTS]: toToml(requirements),
          }) as Record<string, string>,
      mount: { kind: 'directory', path: CLIENT_CONFIG_PATHS.codex },
      env: {},
    },
    problems,
  };
};
