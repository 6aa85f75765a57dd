/**
 * The agent CLIs' own OpenTelemetry settings (`spec.observability`, docs/observability.md), each in the form its
 * CLI reads, all toward the broker's otlp route — so one trace store holds the model turn and the tool calls.
 * The broker token authenticates the export: `OTEL_EXPORTER_OTLP_HEADERS` in the container's environment,
 * built by Kubernetes from `TOOLYARD_BROKER_TOKEN` (`$(VAR)` expansion, never a value in the manifest), which
 * all three CLIs' OTLP exporters read. The value keeps a plain space (`Bearer <token>`): Claude Code sends the
 * value as written, without the percent-decoding the OpenTelemetry spec describes, so `Bearer%20…` would reach
 * the broker as a token it does not know.
 * Prompt, response and tool-argument logging is pinned off in every CLI (a workspace's settings cannot turn it
 * on): spans and log events never carry what the model read or the arguments it passed.
 *
 * What the pinned CLIs do with it (seen with test/otel/probe-clis.ts; docs/observability.md has the table):
 * - Claude Code 2.1: `CLAUDE_CODE_ENABLE_TELEMETRY`, `OTEL_*_EXPORTER`, `OTEL_EXPORTER_OTLP_*`, traces with
 *   `CLAUDE_CODE_ENHANCED_TELEMETRY_BETA`; `CLAUDE_CODE_PROPAGATE_TRACEPARENT` sends `traceparent` on model
 *   requests, and MCP `tools/call` requests carry a `traceparent` header of the same trace: its spans, the
 *   broker's and the toolchain server's make one trace. `OTEL_LOG_*` switch content off.
 * - Codex 0.169: `[otel]` with `trace_exporter`, `exporter` (logs: always `none`, below) and `metrics_exporter`, each
 *   `{ otlp-http = { endpoint = "<full signal URL>", protocol = "binary" | "json" } }`; `log_user_prompt`. Model
 *   requests carry `traceparent`, MCP calls carry it in the header and in `params._meta`: one trace too.
 * - Gemini CLI 0.61: `telemetry { enabled, target: local, otlpEndpoint, otlpProtocol: http, traces, logPrompts }`;
 *   it exports every signal once enabled (no per-signal switch) and propagates no trace context (neither to its
 *   model nor to MCP servers): its spans are correlated by `session.id`, not joined.
 */
import type { JsonObject } from './client-settings.ts';
import { BROKER_TOKEN_ENV } from './defaults.ts';
import { resourceAttributesText } from './observability-plan.ts';
import type { PlannedBackendTelemetry } from './plan-types.ts';

/** The export's credential, as every OpenTelemetry SDK reads headers from the environment (URL-encoded). */
export const OTLP_HEADERS_ENV = 'OTEL_EXPORTER_OTLP_HEADERS';

export function otlpHeadersValue(): string {
  return `Authorization=Bearer $(${BROKER_TOKEN_ENV})`;
}

/** Claude Code's managed-settings `env` entries (which outrank a workspace's `.claude/settings.json`). */
export function claudeTelemetrySettings(t: PlannedBackendTelemetry | undefined): JsonObject {
  if (!t) return {};
  const exporter = (on: boolean) => (on ? 'otlp' : 'none');
  return {
    env: {
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      ...(t.signals.traces
        ? { CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1', CLAUDE_CODE_PROPAGATE_TRACEPARENT: '1' }
        : {}),
      OTEL_TRACES_EXPORTER: exporter(t.signals.traces),
      OTEL_METRICS_EXPORTER: exporter(t.signals.metrics),
      OTEL_LOGS_EXPORTER: exporter(t.signals.logs),
      OTEL_EXPORTER_OTLP_PROTOCOL: t.protocol,
      OTEL_EXPORTER_OTLP_ENDPOINT: t.endpoint,
      // Signal-specific endpoints outrank the generic one: pinned, so a workspace cannot send one elsewhere.
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${t.endpoint}/v1/traces`,
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${t.endpoint}/v1/metrics`,
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${t.endpoint}/v1/logs`,
      OTEL_RESOURCE_ATTRIBUTES: resourceAttributesText(t.resource),
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: String(t.sampleRatio),
      OTEL_LOG_USER_PROMPTS: '0',
      OTEL_LOG_ASSISTANT_RESPONSES: '0',
      OTEL_LOG_TOOL_DETAILS: '0',
      OTEL_LOG_TOOL_CONTENT: '0',
      OTEL_LOG_RAW_API_BODIES: '0',
    },
  };
}

/** Codex's `[otel]` table (the system config layer). */
export function codexTelemetrySettings(t: PlannedBackendTelemetry | undefined): JsonObject {
  if (!t) return {};
  const protocol = t.protocol === 'http/json' ? 'json' : 'binary';
  const exporter = (on: boolean, signal: string) =>
    on ? { 'otlp-http': { endpoint: `${t.endpoint}/v1/${signal}`, protocol } } : 'none';
  return {
    otel: {
      environment: 'toolyard',
      log_user_prompt: false,
      trace_exporter: exporter(t.signals.traces, 'traces'),
      // Never its log events, whatever `export.logs` says: `codex.tool_result` carries each tool call's
      // arguments and output in full, and no setting of 0.169 leaves them out (test/otel/cli-traces.test.ts saw
      // a canary argument there).
      exporter: 'none',
      metrics_exporter: exporter(t.signals.metrics, 'metrics'),
    },
  };
}

/** Gemini CLI's `telemetry` settings (the system settings file, which outranks the workspace's). */
export function geminiTelemetrySettings(t: PlannedBackendTelemetry | undefined): JsonObject {
  if (!t) return {};
  return {
    telemetry: {
      enabled: true,
      target: 'local',
      otlpEndpoint: t.endpoint,
      otlpProtocol: 'http',
      useCollector: false,
      traces: t.signals.traces,
      logPrompts: false,
    },
  };
}

/**
 * Container environment of a backend with telemetry: the resource, which every CLI's SDK reads from there, and
 * the Node SDK's resource detectors without `process`, whose `process.command_args` holds a headless CLI's
 * prompt (`gemini -p …`: seen in Gemini CLI's log and metric resources by test/otel/cli-traces.test.ts).
 */
export function telemetryEnv(t: PlannedBackendTelemetry | undefined): Record<string, string> {
  return t
    ? {
        OTEL_RESOURCE_ATTRIBUTES: resourceAttributesText(t.resource),
        OTEL_NODE_RESOURCE_DETECTORS: 'env,host,os',
      }
    : {};
}
