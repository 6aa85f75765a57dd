/**
 * What routes.ts and connect.ts share: the parsed config, the secrets read from files, the denied ranges, the
 * resolver, open-connection counts, and `finish`, which writes the audit line and the metrics of one request.
 */
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import type { LogSink } from '../kit/audit-sink.ts';
import type { TokenSet } from '../kit/token-file.ts';
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
}

export type Outcome = {
  -readonly [K in Exclude<
    keyof BrokerAuditRecord,
    'event' | 'time' | 'agent' | 'durationMs'
  >]: BrokerAuditRecord[K];
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

/** Writes the audit line and records the metrics of a request or tunnel that started at `started`. */
export function finish(ctx: BrokerContext, started: number, outcome: Outcome): void {
  const durationMs = Math.max(0, ctx.now() - started);
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
