/**
 * Spans without an SDK: a Tracer decides sampling (parent-based, then a ratio of trace ids), a recording span
 * keeps its name, kind, times, status and attributes (only the keys of SPAN_ATTRIBUTES) and is handed to a
 * sink when it ends. A span that is not sampled records nothing; it still carries a context (the parent's
 * trace with the sampled flag off) so that whatever it calls makes the same decision. The toolchain server,
 * the broker, code mode and the sandbox manager all use this one kit (docs/observability.md).
 *
 *   const tracer = new Tracer({ sink: exporter, sampleRatio: 1 });   // or Tracer.off
 *   const span = tracer.start('tools/call cargo_test', { kind: 'server', parent, class: 'local-execution' });
 *   span.set('toolyard.toolchain', 'rust');
 *   const env = { TRACEPARENT: span.traceparent() };                 // children continue the trace
 *   span.end();
 */
import type { SpanAttributeKey, SpanAttributeValue, SpanClass } from './span-attributes.ts';
import { formatTraceparent, newSpanId, newTraceId, type TraceContext } from './trace-context.ts';

export type SpanKind = 'internal' | 'server' | 'client';

/** A span as exported: everything in plain values, times in milliseconds since the epoch. */
export interface FinishedSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly tracestate: string | undefined;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: ReadonlyMap<SpanAttributeKey, SpanAttributeValue>;
  readonly error: { readonly message: string } | undefined;
}

/** Where ended spans go (an exporter, or a list in tests). */
export interface SpanSink {
  add(span: FinishedSpan): void;
}

export interface StartOptions {
  readonly kind: SpanKind;
  /** The remote or local parent; absent: a new trace. */
  readonly parent?: TraceContext | undefined;
  readonly class?: SpanClass;
  /** Start time in ms since the epoch (default: now). */
  readonly startMs?: number;
}

export interface Span {
  /** Whether this span is sampled and will be exported. */
  readonly recording: boolean;
  /** This span's context (not sampled: the trace it belongs to, with the sampled flag off). */
  readonly context: TraceContext;
  /** Sets an attribute; null and undefined leave it unset. */
  set(key: SpanAttributeKey, value: SpanAttributeValue | null | undefined): this;
  /** Marks the span failed (status ERROR) with a short message that names no secret. */
  fail(message: string): this;
  end(endMs?: number): void;
  /** The `traceparent` that continues this span (for a child's environment or an outgoing request). */
  traceparent(): string;
}

/** Wall clock in ms with sub-millisecond resolution, monotonic within the process. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

class RecordingSpan implements Span {
  readonly recording = true;
  readonly context: TraceContext;
  private readonly attributes = new Map<SpanAttributeKey, SpanAttributeValue>();
  private error: { message: string } | undefined;
  private ended = false;
  private readonly name: string;
  private readonly kind: SpanKind;
  private readonly parentSpanId: string | undefined;
  private readonly startMs: number;
  private readonly sink: SpanSink;

  constructor(name: string, options: StartOptions, context: TraceContext, sink: SpanSink) {
    this.name = name;
    this.kind = options.kind;
    this.context = context;
    this.parentSpanId = options.parent?.spanId;
    this.startMs = options.startMs ?? nowMs();
    this.sink = sink;
    if (options.class) this.attributes.set('toolyard.class', options.class);
  }

  set(key: SpanAttributeKey, value: SpanAttributeValue | null | undefined): this {
    if (value !== null && value !== undefined && !this.ended) this.attributes.set(key, value);
    return this;
  }

  fail(message: string): this {
    if (!this.ended) this.error = { message };
    return this;
  }

  end(endMs: number = nowMs()): void {
    if (this.ended) return;
    this.ended = true;
    this.sink.add({
      name: this.name,
      kind: this.kind,
      traceId: this.context.traceId,
      spanId: this.context.spanId,
      parentSpanId: this.parentSpanId,
      tracestate: this.context.tracestate,
      startMs: this.startMs,
      endMs: Math.max(endMs, this.startMs),
      attributes: this.attributes,
      error: this.error,
    });
  }

  traceparent(): string {
    return formatTraceparent(this.context);
  }
}

/** A span that is not sampled: no allocation beyond itself, every method a no-op. */
class NonRecordingSpan implements Span {
  readonly recording = false;
  readonly context: TraceContext;
  constructor(context: TraceContext) {
    this.context = context;
  }
  set(): this {
    return this;
  }
  fail(): this {
    return this;
  }
  end(): void {}
  traceparent(): string {
    return formatTraceparent(this.context);
  }
}

export interface TracerOptions {
  readonly sink: SpanSink;
  /** Share of new traces (no sampled parent decision) that are recorded, 0 to 1. Default 1. */
  readonly sampleRatio?: number;
}

export class Tracer {
  /** A tracer that records nothing but still passes context on (tracing off). */
  static readonly off = new Tracer({ sink: { add() {} }, sampleRatio: 0 });

  private readonly sink: SpanSink;
  /** Trace ids whose last 8 hex digits are below this are sampled (`TraceIdRatioBased`). */
  private readonly threshold: number;
  readonly enabled: boolean;

  constructor(options: TracerOptions) {
    this.sink = options.sink;
    const ratio = Math.min(1, Math.max(0, options.sampleRatio ?? 1));
    this.threshold = Math.floor(ratio * 0x1_0000_0000);
    this.enabled = ratio > 0;
  }

  /**
   * Starts a span. Parent-based: a parent's sampled flag decides; a new trace is sampled by its id against the
   * ratio, so every component with the same ratio decides the same way for the same trace.
   */
  start(name: string, options: StartOptions): Span {
    const parent = options.parent;
    const traceId = parent?.traceId ?? newTraceId();
    const sampled = this.enabled && (parent ? parent.sampled : this.sampledId(traceId));
    if (!sampled) {
      // Not sampled: downstream continues the parent's trace (a new one if none) with the flag off.
      return new NonRecordingSpan(
        parent ? { ...parent, sampled: false } : { traceId, spanId: newSpanId(), sampled: false },
      );
    }
    const context: TraceContext = {
      traceId,
      spanId: newSpanId(),
      sampled: true,
      ...(parent?.tracestate ? { tracestate: parent.tracestate } : {}),
    };
    return new RecordingSpan(name, options, context, this.sink);
  }

  private sampledId(traceId: string): boolean {
    if (this.threshold >= 0x1_0000_0000) return true;
    return Number.parseInt(traceId.slice(24), 16) < this.threshold;
  }
}

/** A sink that keeps spans in memory (tests). */
export function memorySpans(): SpanSink & { readonly spans: FinishedSpan[] } {
  const spans: FinishedSpan[] = [];
  return { spans, add: (span) => void spans.push(span) };
}
