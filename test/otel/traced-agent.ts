/**
 * The agent of the observability end-to-end test (test/otel/cli-traces.test.ts): three stock CLIs as backends, a
 * toolchain whose code mode reaches an external gateway through the broker, observability toward an in-cluster
 * collector (Jaeger in the test) with a team label and Claude's pricing; and each CLI as the test drives it.
 */
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { startFakeAnthropic } from '../backends/fake-anthropic.ts';
import { startFakeGemini } from '../backends/fake-gemini.ts';
import { startFakeOpenAi } from '../backends/fake-openai.ts';

export const AGENT = 'traced';
export const NAMESPACE = 'agents';
export const BROKER_SERVICE = `${AGENT}-broker.${NAMESPACE}.svc`;
export const WORKSPACE = '/workspace';
export const COLLECTOR = 'otel-collector.observability.svc';
export const COLLECTOR_ADDRESS = '10.231.2.50';
export const TOOLCHAIN_PORT = 8711;
export const GATEWAY_HOST = 'mcp.tickets.example.com';
export const GATEWAY_SECRET = 'tickets-token';
export const random = (label: string) =>
  `${label}-${Math.random().toString(36).slice(2, 12)}${Math.random().toString(36).slice(2, 8)}`;

export interface Cli {
  readonly backend: string;
  readonly type: 'claude' | 'openai' | 'gemini';
  readonly host: string;
  readonly keyName: string;
  readonly header: string;
  readonly prefix: string;
  readonly service: RegExp;
  readonly tool: RegExp;
  readonly start: typeof startFakeAnthropic;
  readonly argv: (prompt: string) => string[];
  /** Whether the CLI sends trace context to its model and its MCP servers. */
  readonly propagates: boolean;
}

export const CLIS: readonly Cli[] = [
  {
    backend: 'claude',
    type: 'claude',
    host: 'api.anthropic.com',
    keyName: 'anthropic',
    header: 'x-api-key',
    prefix: '',
    service: /claude/i,
    tool: /^mcp__toolchain-node__exec_allowed$/,
    start: startFakeAnthropic,
    argv: (p) => ['claude', '-p', p],
    propagates: true,
  },
  {
    backend: 'codex',
    type: 'openai',
    host: 'api.openai.com',
    keyName: 'openai',
    header: 'authorization',
    prefix: 'Bearer ',
    service: /codex/i,
    tool: /toolchain_node.*exec_allowed$/,
    start: startFakeOpenAi,
    argv: (p) => ['codex', 'exec', p],
    propagates: true,
  },
  {
    backend: 'gemini',
    type: 'gemini',
    host: 'generativelanguage.googleapis.com',
    keyName: 'gemini',
    header: 'x-goog-api-key',
    prefix: '',
    service: /gemini/i,
    tool: /toolchain-node.*exec_allowed$/,
    start: startFakeGemini,
    argv: (p) => ['gemini', '-p', p],
    propagates: false,
  },
];

/** The spec, as a platform team would write it for this agent. */
export function tracedAgentSpec(): ToolyardAgent {
  return {
    apiVersion: 'toolyard.dev/v1alpha1',
    kind: 'Agent',
    metadata: { name: AGENT, namespace: NAMESPACE, labels: { team: 'platform' } },
    spec: {
      workspace: { mountPath: WORKSPACE },
      backends: [
        {
          name: 'claude',
          type: 'claude',
          image: { repository: 'example/claude-code', tag: '2.1.330' },
          port: 8080,
          env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
          model: { apiKeySecret: { name: 'model-keys', key: 'anthropic' } },
        },
        {
          name: 'codex',
          type: 'openai',
          image: { repository: 'example/codex', tag: '0.169.0' },
          port: 8081,
          model: { apiKeySecret: { name: 'model-keys', key: 'openai' } },
          settings: { model: 'toolyard-fake-model', analytics: { enabled: false } },
        },
        {
          name: 'gemini',
          type: 'gemini',
          image: { repository: 'example/gemini-cli', tag: '0.61.0' },
          port: 8082,
          model: { apiKeySecret: { name: 'model-keys', key: 'gemini' } },
          settings: { privacy: { usageStatisticsEnabled: false } },
        },
      ],
      toolchains: [
        {
          name: 'node',
          image: { repository: 'docker.io/library/node', tag: '24' },
          port: TOOLCHAIN_PORT,
          tools: {
            mode: 'exec',
            allowedCommands: ['echo'],
            codeMode: { languages: ['node'], servers: ['tickets', 'node'] },
          },
          handles: { commands: ['echo'] },
        },
      ],
      gateways: [
        {
          name: 'tickets',
          url: `https://${GATEWAY_HOST}/mcp`,
          auth: { bearerTokenSecret: { name: GATEWAY_SECRET, key: 'token' } },
        },
      ],
      observability: {
        enabled: true,
        endpoint: {
          url: `http://${COLLECTOR}:4318`,
          collectorPodLabels: { 'app.kubernetes.io/name': 'jaeger' },
        },
        teamLabels: ['team'],
        // Every signal, so the test can read the CLIs' log records too (Jaeger prints them; it stores traces).
        export: { traces: true, metrics: true, logs: true },
        metrics: { pricing: { claude: { input: 3, output: 15 } } },
      },
    },
  };
}
