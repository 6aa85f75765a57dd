/**
 * Trace context that arrives as HTTP headers (`traceparent`, `tracestate`: what an instrumented HTTP client
 * or a proxy sends) is copied into the `params._meta` of each `tools/call` request of the POST that has none
 * there, so the tool call's handler reads one place. `_meta` wins: it is per request (the MCP convention).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { parseTraceparent } from '../kit/trace-context.ts';

export function carryHeaderTraceContext(body: unknown, headers: IncomingHttpHeaders): void {
  const traceparent = headers.traceparent;
  if (typeof traceparent !== 'string') return;
  const tracestate = typeof headers.tracestate === 'string' ? headers.tracestate : undefined;
  const context = parseTraceparent(traceparent, tracestate);
  if (!context) return;
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!message || typeof message !== 'object') continue;
    const m = message as { method?: unknown; params?: unknown };
    if (m.method !== 'tools/call' || !m.params || typeof m.params !== 'object') continue;
    const params = m.params as { _meta?: unknown };
    const meta =
      params._meta && typeof params._meta === 'object' ? (params._meta as Record<string, unknown>) : {};
    if (parseTraceparent(meta.traceparent) !== undefined) continue;
    params._meta = {
      ...meta,
      traceparent,
      ...(context.tracestate ? { tracestate: context.tracestate } : {}),
    };
  }
}
