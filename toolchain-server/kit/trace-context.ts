/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): parsing and writing `traceparent`, keeping
 * `tracestate` as it came, and fresh trace and span ids. Where context arrives from: an HTTP `traceparent`
 * header, an MCP request's `params._meta.traceparent` (the OpenTelemetry MCP convention; it wins over the
 * header) and, for commands, the `TRACEPARENT` environment variable.
 */
import { randomFillSync } from 'node:crypto';

/** One span's identity as it travels: ids in lower-case hex, and whether the trace is sampled. */
export interface TraceContext {
  /** 32 hex digits, not all zero. */
  readonly traceId: string;
  /** 16 hex digits, not all zero: the span that is the parent of whatever continues this context. */
  readonly spanId: string;
  readonly sampled: boolean;
  /** The vendor list as received (at most 512 characters), passed on unchanged. */
  readonly tracestate?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '00000000000000000000000000000000';
const ZERO_SPAN = '0000000000000000';
/** W3C: a vendor list longer than this may be dropped. */
const MAX_TRACESTATE = 512;
const TRACESTATE = /^[\x20-\x7e]*$/;

/**
 * A `traceparent` value, or undefined when it is absent or invalid (an invalid one starts a new trace, as the
 * spec says). Version 00 must have exactly four fields; a later version may carry more, which are ignored.
 */
export function parseTraceparent(value: unknown, tracestate?: unknown): TraceContext | undefined {
  if (typeof value !== 'string' || value.length > 256) return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const state =
    typeof tracestate === 'string' && tracestate.length <= MAX_TRACESTATE && TRACESTATE.test(tracestate)
      ? tracestate.trim()
      : undefined;
  return {
    traceId,
    spanId,
    sampled: (Number.parseInt(flags, 16) & 1) === 1,
    ...(state ? { tracestate: state } : {}),
  };
}

/** The `traceparent` value of a context (version 00). */
export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled ? '01' : '00'}`;
}

/**
 * The context of an MCP request: `params._meta.traceparent` (and `tracestate`) when valid, else the HTTP
 * header's. `_meta` wins because it is per request, where the header may be a connection's or a proxy's.
 */
export function contextFromRequest(
  meta: unknown,
  headers?: { readonly traceparent?: unknown; readonly tracestate?: unknown },
): TraceContext | undefined {
  if (meta && typeof meta === 'object') {
    const m = meta as Record<string, unknown>;
    const fromMeta = parseTraceparent(m.traceparent, m.tracestate);
    if (fromMeta) return fromMeta;
  }
  return headers ? parseTraceparent(headers.traceparent, headers.tracestate) : undefined;
}

/** Random bytes are drawn 4 KiB at a time: one system call per 170 spans, not one per id. */
const POOL = Buffer.allocUnsafe(4096);
let offset = POOL.length;

function randomHex(bytes: number): string {
  for (;;) {
    if (offset + bytes > POOL.length) {
      randomFillSync(POOL);
      offset = 0;
    }
    const hex = POOL.toString('hex', offset, offset + bytes);
    offset += bytes;
    // All zero is invalid; with 64 or 128 random bits it never happens, but it must never be emitted either.
    if (!/^0+$/.test(hex)) return hex;
  }
}

export function newTraceId(): string {
  return randomHex(16);
}

export function newSpanId(): string {
  return randomHex(8);
}
