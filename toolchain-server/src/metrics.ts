/** The toolchain server's Prometheus metrics, built on the shared kit (text exposition format 0.0.4). */
import { CallbackGauge, Counter, CounterMap, GaugeMap, HistogramMap, Registry } from '../kit/metrics.ts';

interface MetricGauges {
  inFlight: () => number;
  queueDepth: () => number;
  sessions: () => number;
  /** The Landlock ABI applied to calls (0: none); absent, the metric is not rendered. */
  confinementAbi?: () => number;
  /** The second wall calls get (docs/confinement.md); absent, the metric is not rendered. */
  confinementWall?: () => string;
}

export type CallOutcome = 'ok' | 'nonzero' | 'denied' | 'error' | 'timeout' | 'cancelled' | 'busy';

export class Metrics {
  readonly registry = new Registry();
  private readonly calls = this.registry.register(
    new CounterMap('toolyard_tool_calls_total', 'Tool calls by tool and outcome.'),
  );
  private readonly durations = this.registry.register(
    new HistogramMap('toolyard_tool_call_duration_seconds', 'Tool call duration, queueing included.'),
  );
  private readonly denials: CounterMap;
  readonly truncations: Counter;
  readonly timeouts: Counter;

  constructor(gauges: MetricGauges) {
    const r = this.registry;
    r.register(new CallbackGauge('toolyard_tool_calls_in_flight', 'Processes running now.', gauges.inFlight));
    r.register(
      new CallbackGauge(
        'toolyard_tool_queue_depth',
        'Calls waiting for a concurrency slot.',
        gauges.queueDepth,
      ),
    );
    r.register(new CallbackGauge('toolyard_mcp_sessions', 'Open MCP sessions.', gauges.sessions));
    this.denials = r.register(
      new CounterMap('toolyard_policy_denials_total', 'Calls refused, by policy rule.'),
    );
    this.truncations = r.register(
      new Counter('toolyard_output_truncations_total', 'Calls whose output exceeded maxOutputBytes.'),
    );
    this.timeouts = r.register(
      new Counter('toolyard_timeouts_total', 'Calls whose process group was killed by the timeout.'),
    );
    if (gauges.confinementAbi)
      r.register(
        new CallbackGauge(
          'toolyard_confinement_abi',
          'Landlock ABI applied to every call (0: unconfined).',
          gauges.confinementAbi,
        ),
      );
    if (gauges.confinementWall) {
      const wall = r.register(
        new GaugeMap(
          'toolyard_confinement_wall',
          'The second wall under Landlock every call gets: 1 for its mechanism (namespaces, seccomp, off, unavailable).',
        ),
      );
      wall.set({ mechanism: gauges.confinementWall() }, 1);
    }
  }

  recordCall(tool: string, outcome: CallOutcome, seconds: number): void {
    this.calls.inc({ tool, outcome });
    this.durations.observe({ tool }, seconds);
  }

  recordDenial(rule: string): void {
    this.denials.inc({ rule });
  }

  render(): string {
    return this.registry.render();
  }
}

/** Metric names, for the docs check. */
export const METRIC_NAMES = [
  'toolyard_tool_calls_total',
  'toolyard_tool_call_duration_seconds',
  'toolyard_tool_calls_in_flight',
  'toolyard_tool_queue_depth',
  'toolyard_mcp_sessions',
  'toolyard_policy_denials_total',
  'toolyard_output_truncations_total',
  'toolyard_timeouts_total',
  'toolyard_confinement_abi',
  'toolyard_confinement_wall',
] as const;
