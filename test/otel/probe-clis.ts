/**
 * A probe, not a test: `node test/otel/probe-clis.ts claude|codex|gemini` runs one pinned CLI (host network,
 * 127.0.0.1 only) against a scripted fake model and a fake MCP gateway, with its OTLP export pointed at a JSON
 * receiver, and prints where trace context went (model requests, the gateway's `traceparent` header and
 * `params._meta`), the export requests' paths and credentials, and the spans. What it showed for the pinned
 * versions is docs/observability.md's table of what each CLI propagates.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliPaths, requireBackendClis } from '../backends/backend-clis.ts';
import { startFakeAnthropic } from '../backends/fake-anthropic.ts';
import { startFakeGateway } from '../backends/fake-gateway.ts';
import { startFakeGemini } from '../backends/fake-gemini.ts';
import { ModelScript } from '../backends/fake-model.ts';
import { startFakeOpenAi } from '../backends/fake-openai.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';

const run = promisify(execFile);
const which = process.argv[2] ?? 'claude';
const dir = requireBackendClis();
const paths = cliPaths(dir);
const receiver = await startOtlpReceiver();
const gw = await startFakeGateway({ toolName: 'lookup_ticket', answer: 'ticket-open' });
const script = new ModelScript(
  [{ tool: /lookup_ticket$/, args: { id: 'T-1' }, expect: 'ticket-open' }],
  'done',
);
const home = mkdtempSync(join(tmpdir(), 'probe-home-'));
const env: Record<string, string> = {
  PATH: `${paths.bin}:${process.env.PATH}`,
  HOME: home,
  OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer probe-token',
  OTEL_RESOURCE_ATTRIBUTES: 'toolyard.agent=probe',
};
let argv: string[];
let api: { url: string; close(): Promise<void>; requests?: unknown };
if (which === 'claude') {
  api = await startFakeAnthropic(script);
  writeFileSync(
    join(home, 'mcp.json'),
    JSON.stringify({
      mcpServers: { tickets: { type: 'http', url: `http://127.0.0.1:${gw.port}/mcp`, alwaysLoad: true } },
    }),
  );
  Object.assign(env, {
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'k',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_ENABLE_TELEMETRY: '1',
    CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1',
    CLAUDE_CODE_PROPAGATE_TRACEPARENT: '1',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_LOGS_EXPORTER: 'none',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/otlp`,
    OTEL_TRACES_EXPORT_INTERVAL: '500',
    OTEL_METRIC_EXPORT_INTERVAL: '1000',
  });
  argv = [
    'claude',
    '-p',
    'Look up T-1',
    '--mcp-config',
    join(home, 'mcp.json'),
    '--allowedTools',
    'mcp__tickets',
  ];
} else if (which === 'codex') {
  api = await startFakeOpenAi(script);
  mkdirSync(join(home, '.codex'));
  writeFileSync(
    join(home, '.codex', 'config.toml'),
    `model = "toolyard-fake-model"\nmodel_provider = "fake"\n[model_providers.fake]\nname="fake"\nbase_url="${api.url}/v1"\nenv_key="OPENAI_API_KEY"\nwire_api="responses"\n[analytics]\nenabled=false\n[otel]\nlog_user_prompt=false\ntrace_exporter = { otlp-http = { endpoint = "${receiver.url}/otlp/v1/traces", protocol = "json" } }\nmetrics_exporter = { otlp-http = { endpoint = "${receiver.url}/otlp/v1/metrics", protocol = "json" } }\n[mcp_servers.tickets]\nurl="http://127.0.0.1:${gw.port}/mcp"\ndefault_tools_approval_mode="approve"\n`,
  );
  Object.assign(env, { OPENAI_API_KEY: 'k', CODEX_HOME: join(home, '.codex') });
  argv = ['codex', 'exec', '--skip-git-repo-check', 'Look up T-1'];
} else {
  api = await startFakeGemini(script);
  mkdirSync(join(home, '.gemini'));
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      mcpServers: { tickets: { type: 'http', url: `http://127.0.0.1:${gw.port}/mcp`, trust: true } },
      mcp: { allowed: ['tickets'] },
      telemetry: {
        enabled: true,
        target: 'local',
        otlpEndpoint: `${receiver.url}/otlp`,
        otlpProtocol: 'http',
        traces: true,
        logPrompts: false,
        useCollector: false,
      },
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
    }),
  );
  Object.assign(env, {
    GEMINI_API_KEY: 'k',
    GOOGLE_GEMINI_BASE_URL: api.url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
  });
  argv = ['gemini', '-p', 'Look up T-1'];
}
const work = mkdtempSync(join(tmpdir(), 'probe-work-'));
try {
  const r = await run('sh', ['-c', 'exec "$@" < /dev/null', 'sh', ...argv], {
    env,
    cwd: work,
    timeout: 120_000,
  }).catch((e) => e);
  console.log('exit', r.code ?? 0, String(r.stderr ?? '').slice(-800));
} finally {
  await new Promise((r) => setTimeout(r, 3000));
  console.log(
    'model requests traceparent:',
    JSON.stringify(
      (api as unknown as { requests: { headers?: Record<string, string> }[] }).requests?.map(
        (q) => q.headers?.traceparent,
      ),
    ),
  );
  console.log('gateway requests:', JSON.stringify(gw.requests));
  console.log('otlp requests:', receiver.requests.map((q) => `${q.path} ${q.authorization}`).join(' | '));
  console.log(
    'spans:',
    JSON.stringify(receiver.spans.map((s) => `${s.name} ${s.traceId.slice(0, 6)} kind=${s.kind}`)),
  );
  await receiver.close();
  await gw.close();
  await api.close();
}
