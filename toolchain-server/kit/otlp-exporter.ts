/**
 * A minimal OTLP/HTTP JSON trace exporter (https://opentelemetry.io/docs/specs/otlp/#otlphttp): ended spans
 * are queued, and sent in batches of up to `maxBatch` every `intervalMs` (or as soon as a batch is full) as
 * one `ExportTraceServiceRequest` POSTed to `<endpoint>/v1/traces`. Nothing waits for an export: a call never
 * slows down because the collector is slow or away. The queue is bounded; beyond it spans are dropped and
 * counted. A failed batch is dropped too (no retry storm towards a collector that is down), and counted.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { SpanAttributeValue } from './span-attributes.ts';
import type { FinishedSpan, SpanKind, SpanSink } from './tracing.ts';

/** Sends one request body; resolves with the HTTP status (0: no response). */
export type OtlpTransport = (body: string) => Promise<number>;

export interface OtlpExporterOptions {
  readonly transport: OtlpTransport;
  /** Resource attributes: `service.name` and the rest (agent, namespace, team labels). */
  readonly resource: Readonly<Record<string, SpanAttributeValue>>;
  readonly scope: { readonly name: string; readonly version: string };
  /** Spans kept waiting at most; beyond it new spans are dropped. Default 2048. */
  readonly maxQueue?: number;
  /** Spans per request at most. Default 512. */
  readonly maxBatch?: number;
  /** How long a span may wait for its batch. Default 1000 ms. */
  readonly intervalMs?: number;
}

export interface ExporterStats {
  exported: number;
  dropped: number;
  failedBatches: number;
}

const KIND: Record<SpanKind, number> = { internal: 1, server: 2, client: 3 };

function anyValue(value: SpanAttributeValue): Record<string, unknown> {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

function keyValues(entries: Iterable<[string, SpanAttributeValue]>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [key, value] of entries) out.push({ key, value: anyValue(value) });
  return out;
}

/** Milliseconds since the epoch (fractional) as OTLP's uint64 nanoseconds, in decimal. */
export function unixNanos(ms: number): string {
  const whole = Math.floor(ms);
  const nanos = Math.round((ms - whole) * 1e6);
  return (BigInt(whole) * 1_000_000n + BigInt(nanos)).toString();
}

function otlpSpan(span: FinishedSpan): Record<string, unknown> {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    ...(span.tracestate ? { traceState: span.tracestate } : {}),
    name: span.name,
    kind: KIND[span.kind],
    startTimeUnixNano: unixNanos(span.startMs),
    endTimeUnixNano: unixNanos(span.endMs),
    attributes: keyValues(span.attributes),
    status: span.error ? { code: 2, message: span.error.message } : { code: 0 },
  };
}

/** The JSON body of one export request. */
export function exportRequest(
  spans: readonly FinishedSpan[],
  resource: Readonly<Record<string, SpanAttributeValue>>,
  scope: { readonly name: string; readonly version: string },
): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: keyValues(Object.entries(resource)) },
        scopeSpans: [{ scope, spans: spans.map(otlpSpan) }],
      },
    ],
  });
}

export class OtlpExporter implements SpanSink {
  readonly stats: ExporterStats = { exported: 0, dropped: 0, failedBatches: 0 };
  private queue: FinishedSpan[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();
  private readonly options: Required<Omit<OtlpExporterOptions, 'transport' | 'resource' | 'scope'>> &
    OtlpExporterOptions;

  constructor(options: OtlpExporterOptions) {
    this.options = { maxQueue: 2048, maxBatch: 512, intervalMs: 1000, ...options };
  }

  add(span: FinishedSpan): void {
    if (this.queue.length >= this.options.maxQueue) {
      this.stats.dropped++;
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= this.options.maxBatch) this.send();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.send(), this.options.intervalMs);
      this.timer.unref();
    }
  }

  /** Sends what is queued and waits for every request in flight. */
  async flush(): Promise<void> {
    while (this.queue.length > 0) this.send();
    await Promise.all(this.inFlight);
  }

  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue.splice(0, this.options.maxBatch);
    if (batch.length === 0) return;
    if (this.queue.length > 0) {
      this.timer = setTimeout(() => this.send(), 0);
      this.timer.unref();
    }
    const body = exportRequest(batch, this.options.resource, this.options.scope);
    const sent = this.options.transport(body).then(
      (status) => {
        if (status >= 200 && status < 300) this.stats.exported += batch.length;
        else this.stats.failedBatches++;
      },
      () => {
        this.stats.failedBatches++;
      },
    );
    const tracked = sent.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }
}

/**
 * The plain transport: POST to `<endpoint>/v1/traces` over HTTP or HTTPS with keep-alive, JSON, the given
 * headers (an `Authorization` for the broker's telemetry route), and a timeout. Never throws synchronously.
 */
export function httpTransport(
  endpoint: string,
  headers: Readonly<Record<string, string>> = {},
  timeoutMs = 10_000,
): OtlpTransport {
  const url = new URL(`${endpoint.replace(/\/+$/, '')}/v1/traces`);
  const secure = url.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: 2 })
    : new HttpAgent({ keepAlive: true, maxSockets: 2 });
  const send = secure ? httpsRequest : httpRequest;
  return (body) =>
    new Promise((resolve) => {
      const request = send(
        url,
        {
          method: 'POST',
          agent,
          timeout: timeoutMs,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
          response.on('error', () => resolve(0));
        },
      );
      request.on('timeout', () => request.destroy());
      request.on('error', () => resolve(0));
      request.end(body);
    });
}
