/**
 * The three stock agent CLIs (Claude Code, Codex CLI, Gemini CLI) as the backend tests use them: each one's fake
 * model API, its entry in an agent spec (pointed at that API directly, the pre-broker shape, nothing sent
 * elsewhere), how it names an MCP server's tool, and its plain headless command run in the backend container
 * exactly as rendered (env, mounts, uid, read-only root; pod-emulation.ts).
 */
import { dirname } from 'node:path';
import type { AgentSpec, Backend as SpecBackend } from '../../schema/src/types.generated.ts';
import { startFakeAnthropic } from './fake-anthropic.ts';
import { startFakeGemini } from './fake-gemini.ts';
import type { FakeApi, ModelScript } from './fake-model.ts';
import { startFakeOpenAi } from './fake-openai.ts';
import { WORKSPACE } from './planted-workspace.ts';
import { type PodVolumes, type RunResult, runContainer } from './pod-emulation.ts';

export type CliName = 'claude' | 'codex' | 'gemini';

export interface StockCli {
  readonly name: CliName;
  /** The CLI's plain headless invocation with a prompt (the backend image's own command). */
  readonly argv: (prompt: string) => string[];
  /** Starts the fake model API in this CLI's wire format, answering from `script`. */
  readonly startApi: (script: ModelScript) => Promise<FakeApi>;
  /** The spec's backend entry (named like the CLI) that calls `api`. */
  readonly backend: (api: FakeApi) => SpecBackend;
  /** The name this CLI offers the model for `tool` of the MCP server named `server` in its config. */
  readonly tool: (server: string, tool: string) => RegExp;
}

const modelSecret = (name: string) => ({ name, secretName: 'model-credentials', key: name.toLowerCase() });

export const STOCK_CLIS: Readonly<Record<CliName, StockCli>> = {
  claude: {
    name: 'claude',
    argv: (prompt) => ['claude', '-p', prompt],
    startApi: startFakeAnthropic,
    backend: (api) => ({
      name: 'claude',
      type: 'claude',
      image: { repository: 'example/claude-code', tag: '2.1.330' },
      port: 8080,
      env: { ANTHROPIC_BASE_URL: api.url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      secretEnv: [modelSecret('ANTHROPIC_API_KEY')],
    }),
    tool: (server, tool) => new RegExp(`^mcp__${server}__${tool}$`),
  },
  codex: {
    name: 'codex',
    argv: (prompt) => ['codex', 'exec', prompt],
    startApi: startFakeOpenAi,
    backend: (api) => ({
      name: 'codex',
      type: 'openai',
      image: { repository: 'example/codex', tag: '0.169.0' },
      port: 8081,
      secretEnv: [modelSecret('OPENAI_API_KEY')],
      // A model Codex has no metadata for gets plain function tools (no tool search), which the fake speaks.
      settings: {
        model: 'toolyard-fake-model',
        openai_base_url: `${api.url}/v1`,
        analytics: { enabled: false },
      },
    }),
    // Codex namespaces a server's tools as `mcp__<server, dashes as underscores>`.
    tool: (server, tool) => new RegExp(`^mcp__${server.replace(/-/g, '_')}\\.${tool}$`),
  },
  gemini: {
    name: 'gemini',
    argv: (prompt) => ['gemini', '-p', prompt],
    startApi: startFakeGemini,
    backend: (api) => ({
      name: 'gemini',
      type: 'gemini',
      image: { repository: 'example/gemini-cli', tag: '0.61.0' },
      port: 8082,
      env: { GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_VERTEX_BASE_URL: api.url },
      secretEnv: [modelSecret('GOOGLE_API_KEY')],
      settings: { privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } },
    }),
    tool: (server, tool) => new RegExp(`${server}.*${tool}$`),
  },
};

/** The spec's `backends`: each CLI's entry, calling its own fake API. */
export function specBackends(entries: readonly (readonly [StockCli, FakeApi])[]): AgentSpec['backends'] {
  const [first, ...rest] = entries.map(([cli, api]) => cli.backend(api));
  if (!first) throw new Error('an agent needs at least one backend');
  return [first, ...rest];
}

/** Test values of the model API keys the backend entries read from Secrets. */
export const MODEL_SECRET_ENV: Readonly<Record<string, string>> = {
  ANTHROPIC_API_KEY: 'sk-ant-fake',
  OPENAI_API_KEY: 'sk-fake',
  GOOGLE_API_KEY: 'fake-google-key',
};

export interface CliRunOptions {
  /** The installed CLIs (requireBackendClis()), mounted as the backend image's /opt/backend-clis. */
  readonly cliDir: string;
  /** Values of the backend container's env entries that come from Secrets (model keys, server tokens). */
  readonly secretEnv: Readonly<Record<string, string>>;
  /** /etc/hosts lines (gateway Service names → 127.0.0.1). */
  readonly hosts?: readonly string[];
  readonly timeoutMs?: number;
}

/** Runs `cli`'s headless command with `prompt` in its backend container, in the workspace, as rendered. */
export function runStockCli(
  volumes: PodVolumes,
  cli: StockCli,
  prompt: string,
  options: CliRunOptions,
): Promise<RunResult> {
  return runContainer(volumes, cli.name, {
    argv: cli.argv(prompt),
    cwd: WORKSPACE,
    imageMounts: {
      '/opt/backend-clis': options.cliDir,
      '/opt/node/bin': dirname(process.execPath),
    },
    imageEnv: {
      PATH: '/opt/backend-clis/node_modules/.bin:/opt/node/bin:/usr/local/bin:/usr/bin:/bin',
      NO_COLOR: '1',
    },
    secretEnv: options.secretEnv,
    ...(options.hosts ? { hosts: options.hosts } : {}),
    timeoutMs: options.timeoutMs ?? 120_000,
  });
}
