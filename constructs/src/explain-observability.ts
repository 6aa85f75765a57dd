/**
 * `toolyard explain`'s observability section (docs/observability.md): which component emits what, where it
 * goes, what joins one trace, and how metrics are scraped. Pure; the fleet site shows the same rows.
 */
import { metricsPorts, metricsServiceName } from './metrics-scrape.ts';
import type { AgentPlan } from './plan.ts';

export interface EmitterReport {
  readonly component: string;
  /** `traces`, `metrics (OTLP)`, `logs (OTLP)`, `/metrics (Prometheus)`. */
  readonly signals: readonly string[];
  /** Where the trace context comes from and goes to. */
  readonly context: string;
}

export interface ObservabilityReport {
  readonly endpoint: string;
  readonly via: string;
  readonly sampling: string;
  readonly resource: Readonly<Record<string, string>>;
  readonly emitters: readonly EmitterReport[];
  readonly scrape: string;
}

/** What each CLI does with trace context (seen with the pinned versions: test/otel/cli-traces.test.ts). */
const CLI_CONTEXT: Readonly<Record<string, string>> = {
  claude:
    'traceparent on model requests and MCP tools/call: its spans, the broker span and the toolchain spans make one trace',
  openai:
    'traceparent on model requests and on MCP tools/call (header and params._meta): one trace with the broker and toolchains',
  gemini:
    'propagates no trace context: its spans are correlated by session.id, toolchain and broker spans start their own traces',
  custom: 'whatever the image does with OTEL_* variables (not configured by toolyard)',
};

export function observabilityReport(plan: AgentPlan): ObservabilityReport | undefined {
  const o = plan.observability;
  if (!o.enabled) return undefined;
  const signals = o.signals;
  const cli = (type: string) => [
    ...(signals.traces ? ['traces'] : []),
    ...(signals.metrics ? ['metrics (OTLP)'] : []),
    // Codex's log events carry tool arguments and output: never exported (cli-telemetry.ts).
    ...((signals.logs && type !== 'openai') || type === 'gemini' ? ['logs (OTLP)'] : []),
  ];
  const emitters: EmitterReport[] = [
    ...plan.backends.map((b) => ({
      component: `backend ${b.name} (${b.type})`,
      signals: b.type === 'custom' ? [] : cli(b.type),
      context: CLI_CONTEXT[b.type] ?? '',
    })),
    ...plan.toolchains.map((t) => ({
      component: `toolchain ${t.name}${t.codeMode ? ' (code mode)' : ''}`,
      signals: [...(signals.traces ? ['traces'] : []), '/metrics (Prometheus)'],
      context: `a server span per tool call from the caller's traceparent (params._meta or header), routing reason and class local-execution; TRACEPARENT to each command${t.codeMode ? '; each proxied MCP call a client span (external-authority for gateways) whose context the target receives' : ''}`,
    })),
    ...(plan.sandboxes && signals.traces
      ? [
          {
            component: 'sandbox manager',
            signals: ['traces'],
            context:
              "a server span per tool call from the caller's traceparent (params._meta or header), class external-authority (create, resume, stop, destroy, list) or local-execution (exec, files, run_code); a client span per call to a sandbox's server, whose context it receives; a client span per Kubernetes call (external-authority); the sandboxes themselves export nothing",
          },
        ]
      : []),
    {
      component: 'broker',
      signals: [...(signals.traces ? ['traces'] : []), '/metrics (Prometheus)'],
      context:
        "a span per route request (class model or external-authority) continuing the caller's traceparent and sent upstream; a span per tunnel; the otlp route itself is never traced",
    },
  ];
  return {
    endpoint: o.endpointUrl ?? '',
    via: `${o.emitterUrl} (the broker's otlp route; every container authenticates with its broker token${o.route?.credential ? `; the collector's credential, secret ${o.route.credential.secret.name}/${o.route.credential.secret.key}, only in the broker` : ''})`,
    sampling: `${o.sampleRatio} of new traces; a caller's sampled flag wins`,
    resource: o.resource,
    emitters,
    scrape:
      o.metrics.scrape === 'none'
        ? 'none'
        : `${o.metrics.scrape === 'serviceMonitor' ? 'ServiceMonitor' : 'prometheus.io/scrape annotations'} on Service ${metricsServiceName(plan)}, ports ${metricsPorts(
            plan,
          )
            .map((p) => `${p.name}:${p.port}`)
            .join(', ')}; scrapers admitted: ${
            o.metrics.scrapeFrom
              .map(
                (p) =>
                  `${p.namespace ?? plan.namespace}/${Object.entries(p.podLabels)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(',')}`,
              )
              .join('; ') || 'none (metrics.scrapeFrom)'
          }`,
  };
}

export function formatObservabilityReport(report: ObservabilityReport | undefined): string[] {
  if (!report) return [];
  const lines = [
    '',
    `Observability: OTLP to ${report.endpoint}`,
    `  through: ${report.via}`,
    `  sampling: ${report.sampling}`,
    `  resource: ${Object.entries(report.resource)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
    '  emitters:',
  ];
  for (const e of report.emitters)
    lines.push(`    ${e.component}: ${e.signals.join(', ') || 'nothing'}`, `      ${e.context}`);
  lines.push(`  metrics: ${report.scrape}`);
  return lines;
}
