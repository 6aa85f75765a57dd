/**
 * The broker's Prometheus metrics, per caller and per route or egress rule. Labels are bounded: `target` is
 * a route name or the egress rule that allowed a tunnel (never the host a refused request asked for).
 */
import { CounterMap, GaugeMap, HistogramMap, Registry } from '../kit/metrics.ts';
import type { TokenUsage } from './usage.ts';

export const BROKER_METRICS = {
  toolyard_broker_requests_total:
    'Requests and tunnels by caller, kind, target, decision and status (counter).',
  toolyard_broker_bytes_total:
    'Bytes by caller, kind, target and direction (in: from the caller; out: to it) (counter).',
  toolyard_broker_request_duration_seconds:
    'Duration of requests and tunnels by caller, kind and target (histogram).',
  toolyard_broker_open_connections: 'Open proxied requests and tunnels by caller and kind (gauge).',
  toolyard_broker_tokens_total:
    'Provider-reported tokens by caller, route and type (input, output, cache_read, cache_write) (counter).',
} as const;

export class BrokerMetrics {
  readonly registry = new Registry();
  readonly requests = this.registry.register(
    new CounterMap(
      'toolyard_broker_requests_total',
      'Requests and tunnels by caller, kind, target, decision and status.',
    ),
  );
  readonly bytes = this.registry.register(
    new CounterMap('toolyard_broker_bytes_total', 'Bytes by caller, kind, target and direction.'),
  );
  readonly duration = this.registry.register(
    new HistogramMap('toolyard_broker_request_duration_seconds', 'Duration of requests and tunnels.'),
  );
  readonly open = this.registry.register(
    new GaugeMap('toolyard_broker_open_connections', 'Open proxied requests and tunnels.'),
  );
  readonly tokens = this.registry.register(
    new CounterMap('toolyard_broker_tokens_total', 'Provider-reported tokens by caller, route and type.'),
  );

  record(entry: {
    caller: string | null;
    kind: 'route' | 'connect';
    target: string | null;
    decision: string;
    status: number;
    bytesIn: number;
    bytesOut: number;
    seconds: number;
    usage: TokenUsage | null;
  }): void {
    const caller = entry.caller ?? '-';
    const target = entry.target ?? '-';
    const base = { caller, kind: entry.kind, target };
    this.requests.inc({ ...base, decision: entry.decision, status: String(entry.status) });
    if (entry.bytesIn) this.bytes.inc({ ...base, direction: 'in' }, entry.bytesIn);
    if (entry.bytesOut) this.bytes.inc({ ...base, direction: 'out' }, entry.bytesOut);
    this.duration.observe(base, entry.seconds);
    const usage = entry.usage;
    if (usage && entry.kind === 'route') {
      const route = { caller, route: target };
      if (usage.inputTokens) this.tokens.inc({ ...route, type: 'input' }, usage.inputTokens);
      if (usage.outputTokens) this.tokens.inc({ ...route, type: 'output' }, usage.outputTokens);
      if (usage.cacheReadTokens) this.tokens.inc({ ...route, type: 'cache_read' }, usage.cacheReadTokens);
      if (usage.cacheWriteTokens) this.tokens.inc({ ...route, type: 'cache_write' }, usage.cacheWriteTokens);
    }
  }

  render(): string {
    return this.registry.render();
  }
}
