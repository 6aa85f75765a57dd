/**
 * A `custom` backend runs whatever the image runs, so it gets the server list in all three formats, read-only
 * in `mcpConfigPath` (default `/etc/toolyard/mcp`): `mcp.json` (Claude Code `.mcp.json` shape), `config.toml`
 * (Codex `[mcp_servers.*]` tables) and `settings.json` (Gemini CLI `mcpServers`). The Codex and Gemini forms
 * carry each server's pre-approval (`default_tools_approval_mode`, `trust`); all three carry its timeout.
 * `TOOLYARD_MCP_CONFIG` names `mcp.json`, `TOOLYARD_MCP_CONFIG_DIR` the directory.
 */
import { claudeServerEntries, json } from './claude-code-config.ts';
import type { ClientConfigFormat, ClientConfigProblem } from './client-config-types.ts';
import { codexServerTables } from './codex-config.ts';
import { DEFAULT_MCP_CONFIG_PATH } from './defaults.ts';
import { geminiServerEntries } from './gemini-cli-config.ts';
import { toToml } from './toml.ts';

export const CUSTOM_FILES = { claude: 'mcp.json', codex: 'config.toml', gemini: 'settings.json' } as const;

export const customBackendConfig: ClientConfigFormat = (backend, servers) => {
  const dir = backend.mcpConfigPath ?? DEFAULT_MCP_CONFIG_PATH;
  const problems: ClientConfigProblem[] =
    backend.settings !== undefined
      ? [
          {
            pointer: '/settings',
            message: 'a custom backend has no client settings file to merge settings into',
            hint: 'configure the runtime in its image or through env; toolyard provides only the MCP server list',
          },
        ]
      : [];
  return {
    draft: {
      files: {
        [CUSTOM_FILES.claude]: json({
          mcpServers: claudeServerEntries(servers, { alwaysLoad: false }),
        }),
        [CUSTOM_FILES.codex]: toToml({ mcp_servers: codexServerTables(servers) }),
        [CUSTOM_FILES.gemini]: json({ mcpServers: geminiServerEntries(servers) }),
      },
      mount: { kind: 'directory', path: dir },
      env: { TOOLYARD_MCP_CONFIG: `${dir}/${CUSTOM_FILES.claude}`, TOOLYARD_MCP_CONFIG_DIR: dir },
    },
    problems,
  };
};
