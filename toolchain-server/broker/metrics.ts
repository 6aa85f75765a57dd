/**
 * The broker's Prometheus metrics, per caller and per route or egress rule. Labels are bounded: `target` is
 * a route name or the egress rule that allowed a tunnel (never the host a refused request asked for).
 */
import { CounterMap, GaugeMap, HistogramMap, type Labels, Registry } from '../kit/metrics.ts';
import type { TokenUsage } from './usage.ts';

/** Every metric: its type, labels and meaning. docs/broker.md lists exactly these; a test compares them. */
export const BROKER_METRICS = {
  toolyard_broker_requests_total: {
    type: 'counter',
    labels: ['caller', 'kind', 'target', 'decision', 'status'],
    help: 'Requests and tunnels by caller, kind (route, connect), target (route name or egress rule), decision and status.',
  },
  toolyard_broker_bytes_total: {
    type: 'counter',
    labels: ['caller', 'kind', 'target', 'direction'],
    help: 'Bytes by caller, kind, target and direction (in: from the caller; out: to it).',
  },
  toolyard_broker_request_duration_seconds: {
    type: 'histogram',
    labels: ['caller', 'kind', 'target'],
    help: 'Duration of requests and tunnels, to the last byte.',
  },
  toolyard_broker_open_connections: {
    type: 'gauge',
    labels: ['caller', 'kind'],
    help: 'Proxied requests and tunnels open now.',
  },
  toolyard_broker_tokens_total: {
    type: 'counter',
    labels: ['caller', 'route', 'type'],
    help: 'Provider-reported tokens by caller, route and type (input, output, cache_read, cache_write).',
  },
  toolyard_broker_cost_usd_total: {
    type: 'counter',
    labels: ['caller', 'route'],
    help: "Estimated model cost in USD by caller and route: provider-reported tokens times the route's pricing.",
  },
} as const;

type MetricName = keyof typeof BROKER_METRICS;

/** USD per million tokens (`routes[].pricing`); cache reads and writes at the input price unless given. */
export interface RoutePricing {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number | undefined;
  readonly cacheWrite?: number | undefined;
}
const help = (name: MetricName) => BROKER_METRICS[name].help;

export class BrokerMetrics {
  readonly registry = new Registry();
  readonly requests = this.registry.register(
    new CounterMap('toolyard_broker_requests_total', help('toolyard_broker_requests_total')),
  );
  readonly bytes = this.registry.register(
    new CounterMap('toolyard_broker_bytes_total', help('toolyard_broker_bytes_total')),
  );
  readonly duration = this.registry.register(
    new HistogramMap(
      'toolyard_broker_request_duration_seconds',
      help('toolyard_broker_request_duration_seconds'),
    ),
  );
  readonly open = this.registry.register(
    new GaugeMap('toolyard_broker_open_connections', help('toolyard_broker_open_connections')),
  );
  readonly tokens = this.registry.register(
    new CounterMap('toolyard_broker_tokens_total', help('toolyard_broker_tokens_total')),
  );
  readonly cost = this.registry.register(
    new CounterMap('toolyard_broker_cost_usd_total', help('toolyard_broker_cost_usd_total')),
  );
  /** Route name → USD per million tokens (`routes[].pricing`). */
  private readonly pricing = new Map<string, RoutePricing>();

  constructor(pricing: ReadonlyMap<string, RoutePricing> = new Map(), constLabels: Labels = {}) {
    for (const [route, p] of pricing) this.pricing.set(route, p);
    this.registry.setConstLabels(constLabels);
  }

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
      const price = this.pricing.get(target);
      if (price) {
        const usd =
          ((usage.inputTokens ?? 0) * price.input +
            (usage.outputTokens ?? 0) * price.output +
            (usage.cacheReadTokens ?? 0) * (price.cacheRead ?? price.input) +
            (usage.cacheWriteTokens ?? 0) * (price.cacheWrite ?? price.input)) /
          1e6;
        if (usd > 0) this.cost.inc(route, usd);
      }
    }
  }

  render(): string {
    return this.registry.render();
  }
}
