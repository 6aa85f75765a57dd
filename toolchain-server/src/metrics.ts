/** Prometheus metrics, rendered as text exposition format 0.0.4 without a client library. */

const DURATION_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labels(pairs: Readonly<Record<string, string>>): string {
  const parts = Object.entries(pairs).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

class Histogram {
  readonly counts = new Array<number>(DURATION_BUCKETS_SECONDS.length).fill(0);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    this.sum += seconds;
    this.count++;
    for (let i = 0; i < DURATION_BUCKETS_SECONDS.length; i++) {
      if (seconds <= DURATION_BUCKETS_SECONDS[i]!) this.counts[i]!++;
    }
  }
}

interface MetricGauges {
  inFlight: () => number;
  queueDepth: () => number;
  sessions: () => number;
  /** The Landlock ABI applied to calls (0: none); absent, the metric is not rendered. */
  confinementAbi?: () => number;
}

export type CallOutcome = 'ok' | 'nonzero' | 'denied' | 'error' | 'timeout' | 'cancelled' | 'busy';

export class Metrics {
  private readonly calls = new Map<string, number>();
  private readonly denials = new Map<string, number>();
  private readonly durations = new Map<string, Histogram>();
  truncations = 0;
  timeouts = 0;
  private readonly gauges: MetricGauges;

  constructor(gauges: MetricGauges) {
    this.gauges = gauges;
  }

  recordCall(tool: string, outcome: CallOutcome, seconds: number): void {
    const key = `${tool}\u0000${outcome}`;
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    let histogram = this.durations.get(tool);
    if (!histogram) {
      histogram = new Histogram();
      this.durations.set(tool, histogram);
    }
    histogram.observe(seconds);
  }

  recordDenial(rule: string): void {
    this.denials.set(rule, (this.denials.get(rule) ?? 0) + 1);
  }

  render(): string {
    const out: string[] = [];
    out.push('# HELP toolyard_tool_calls_total Tool calls by tool and outcome.');
    out.push('# TYPE toolyard_tool_calls_total counter');
    for (const [key, value] of this.calls) {
      const [tool, outcome] = key.split('\u0000') as [string, string];
      out.push(`toolyard_tool_calls_total${labels({ tool, outcome })} ${value}`);
    }
    out.push('# HELP toolyard_tool_call_duration_seconds Tool call duration, queueing included.');
    out.push('# TYPE toolyard_tool_call_duration_seconds histogram');
    for (const [tool, h] of this.durations) {
      DURATION_BUCKETS_SECONDS.forEach((le, i) => {
        out.push(
          `toolyard_tool_call_duration_seconds_bucket${labels({ tool, le: String(le) })} ${h.counts[i]}`,
        );
      });
      out.push(`toolyard_tool_call_duration_seconds_bucket${labels({ tool, le: '+Inf' })} ${h.count}`);
      out.push(`toolyard_tool_call_duration_seconds_sum${labels({ tool })} ${h.sum}`);
      out.push(`toolyard_tool_call_duration_seconds_count${labels({ tool })} ${h.count}`);
    }
    out.push('# HELP toolyard_tool_calls_in_flight Processes running now.');
    out.push('# TYPE toolyard_tool_calls_in_flight gauge');
    out.push(`toolyard_tool_calls_in_flight ${this.gauges.inFlight()}`);
    out.push('# HELP toolyard_tool_queue_depth Calls waiting for a concurrency slot.');
    out.push('# TYPE toolyard_tool_queue_depth gauge');
    out.push(`toolyard_tool_queue_depth ${this.gauges.queueDepth()}`);
    out.push('# HELP toolyard_mcp_sessions Open MCP sessions.');
    out.push('# TYPE toolyard_mcp_sessions gauge');
    out.push(`toolyard_mcp_sessions ${this.gauges.sessions()}`);
    out.push('# HELP toolyard_policy_denials_total Calls refused, by policy rule.');
    out.push('# TYPE toolyard_policy_denials_total counter');
    for (const [rule, value] of this.denials)
      out.push(`toolyard_policy_denials_total${labels({ rule })} ${value}`);
    out.push('# HELP toolyard_output_truncations_total Calls whose output exceeded maxOutputBytes.');
    out.push('# TYPE toolyard_output_truncations_total counter');
    out.push(`toolyard_output_truncations_total ${this.truncations}`);
    out.push('# HELP toolyard_timeouts_total Calls whose process group was killed by the timeout.');
    out.push('# TYPE toolyard_timeouts_total counter');
    out.push(`toolyard_timeouts_total ${this.timeouts}`);
    if (this.gauges.confinementAbi) {
      out.push('# HELP toolyard_confinement_abi Landlock ABI applied to every call (0: unconfined).');
      out.push('# TYPE toolyard_confinement_abi gauge');
      out.push(`toolyard_confinement_abi ${this.gauges.confinementAbi()}`);
    }
    return `${out.join('\n')}\n`;
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
] as const;
