/**
 * What routes.ts and connect.ts share: the parsed config, the secrets read from files, the denied ranges, the
 * resolver, open-connection counts, and `finish`, which writes the audit line and the metrics of one request.
 */
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import type { LogSink } from '../kit/audit-sink.ts';
import type { TokenSet } from '../kit/token-file.ts';
import type { TraceContext } from '../kit/trace-context.ts';
import { nowMs, type Span, type Tracer } from '../kit/tracing.ts';
import type { Cidr, Resolver } from './addresses.ts';
import { type BrokerAuditRecord, writeBrokerAudit } from './audit.ts';
import type { BrokerCaller, BrokerConfig, BrokerRoute } from './config.ts';
import type { BrokerMetrics } from './metrics.ts';
import type { RouteUpstream } from './upstream.ts';
import type { UpstreamSessions } from './upstream-call.ts';

export type { ResolvedAddress, Resolver } from './addresses.ts';

export interface BrokerContext {
  readonly config: BrokerConfig;
  readonly log: LogSink;
  readonly metrics: BrokerMetrics;
  readonly resolve: Resolver;
  readonly deniedCidrs: readonly Cidr[];
  readonly hostnames: ReadonlySet<string>;
  /** Caller tokens; replaced on reload. */
  tokens: TokenSet;
  /** Route name → the full credential header value (prefix + key); replaced on reload. */
  credentials: Map<string, string>;
  readonly routes: ReadonlyMap<string, BrokerRoute>;
  /** Route name → its upstream, parsed once, and the lookup its connections use. */
  readonly upstreams: ReadonlyMap<string, RouteUpstream & { readonly lookup: LookupFunction }>;
  readonly callers: ReadonlyMap<string, BrokerCaller>;
  readonly httpsAgent: HttpsAgent;
  readonly httpAgent: HttpAgent;
  /** HTTP/2 connections to the routes' upstreams that offer it. */
  readonly sessions: UpstreamSessions;
  /** Open proxied requests and tunnels per caller. */
  readonly open: Map<string, number>;
  /** Client sockets of CONNECT requests (Node no longer tracks them once they are handed over). */
  readonly tunnels: Set<Socket>;
  readonly now: () => number;
  /** Spans of route requests and tunnels (docs/observability.md); `Tracer.off` without `telemetry`. */
  readonly tracer: Tracer;
}

export type Outcome = {
  -readonly [K in Exclude<
    keyof BrokerAuditRecord,
    'event' | 'time' | 'agent' | 'durationMs'
  >]: BrokerAuditRecord[K];
} & {
  /**
   * A tunnel's parent span: the context its caller's proxy user carried (kit/proxy-user.ts). Never audited (the
   * audit line takes its own fields only).
   */
  parent?: TraceContext;
};

/** Counts a caller's connection; false (and nothing counted) when it is at its limit. */
export function acquire(ctx: BrokerContext, caller: string, kind: 'route' | 'connect'): boolean {
  const open = ctx.open.get(caller) ?? 0;
  if (open >= ctx.config.limits.maxConnectionsPerCaller) return false;
  ctx.open.set(caller, open + 1);
  ctx.metrics.open.add({ caller, kind }, 1);
  return true;
}

export function release(ctx: BrokerContext, caller: string, kind: 'route' | 'connect'): void {
  const open = (ctx.open.get(caller) ?? 1) - 1;
  if (open <= 0) ctx.open.delete(caller);
  else ctx.open.set(caller, open);
  ctx.metrics.open.add({ caller, kind }, -1);
}

/**
 * Writes the audit line and records the metrics of a request or tunnel that started at `started`, and ends its
 * span: a route request's (started when the caller was known, so its context could go upstream), or for a
 * tunnel of a known caller one made now, back-dated to `started`.
 */
export function finish(ctx: BrokerContext, started: number, outcome: Outcome, span?: Span): void {
  const durationMs = Math.max(0, ctx.now() - started);
  const traced =
    span ??
    (outcome.kind === 'connect' && outcome.caller !== null
      ? ctx.tracer.start(`CONNECT ${outcome.target ?? ''}`, {
          kind: 'server',
          class: 'external-authority',
          startMs: nowMs() - durationMs,
          parent: outcome.parent,
        })
      : undefined);
  if (traced?.recording) endBrokerSpan(traced, ctx.config.agent, outcome);
  writeBrokerAudit(ctx.log, {
    event: 'broker-audit',
    time: new Date().toISOString(),
    agent: ctx.config.agent,
    ...outcome,
    durationMs,
  });
  ctx.metrics.record({
    caller: outcome.caller,
    kind: outcome.kind,
    target: outcome.kind === 'route' ? outcome.route : outcome.rule,
    decision: outcome.decision,
    status: outcome.status,
    bytesIn: outcome.bytesIn,
    bytesOut: outcome.bytesOut,
    seconds: durationMs / 1000,
    usage: outcome.usage,
  });
}

/** What a broker span says: the audit line's fields that name no secret (never a path, query or header). */
function endBrokerSpan(span: Span, agent: string, o: Outcome): void {
  const [host, port] = hostAndPort(o.target);
  span
    .set('toolyard.component', 'broker')
    .set('toolyard.agent', agent)
    .set('toolyard.broker.caller', o.caller)
    .set('toolyard.broker.kind', o.kind)
    .set('toolyard.broker.route', o.route)
    .set('toolyard.broker.rule', o.rule)
    .set('toolyard.broker.address', o.address)
    .set('server.address', host)
    .set('server.port', port)
    .set('http.request.method', o.method)
    .set('http.response.status_code', o.status || undefined)
    .set('toolyard.decision', o.decision)
    .set('toolyard.code', o.code)
    .set('toolyard.bytes_in', o.bytesIn)
    .set('toolyard.bytes_out', o.bytesOut)
    .set('gen_ai.usage.input_tokens', o.usage?.inputTokens)
    .set('gen_ai.usage.output_tokens', o.usage?.outputTokens)
    .set('gen_ai.usage.cache_read_input_tokens', o.usage?.cacheReadTokens)
    .set('gen_ai.usage.cache_creation_input_tokens', o.usage?.cacheWriteTokens);
  if (o.decision !== 'allowed' || o.status >= 500) {
    const type = o.code ?? `http-${o.status}`;
    span.set('error.type', type).fail(type);
  }
  span.end();
}

/** `https://host:port` or `host:port` as [host, port]; the port as a number when there is one. */
function hostAndPort(target: string | null): [string | undefined, number | undefined] {
  if (!target) return [undefined, undefined];
  let text = target;
  let defaultPort: number | undefined;
  if (URL.canParse(target) && /^https?:/.test(target)) {
    const url = new URL(target);
    return [url.hostname, Number(url.port || (url.protocol === 'https:' ? 443 : 80))];
  }
  const match = /^(.*):(\d+)$/.exec(text);
  if (match) {
    text = match[1] as string;
    defaultPort = Number(match[2]);
  }
  return [text, defaultPort];
}
