/**
 * Prometheus primitives rendered as text exposition format 0.0.4, without a client library: labelled
 * counters, gauges read at scrape time, and histograms.
 */

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Escapes a label value: backslash, newline and double quote. */
export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export type Labels = Readonly<Record<string, string>>;

export function formatLabels(pairs: Labels): string {
  const parts = Object.entries(pairs).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function keyOf(labels: Labels): string {
  return JSON.stringify(Object.entries(labels));
}

interface Metric {
  render(out: string[]): void;
}

function header(out: string[], name: string, help: string, type: string): void {
  out.push(`# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
  out.push(`# TYPE ${name} ${type}`);
}

/** A counter per label set. */
export class CounterMap implements Metric {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  readonly name: string;
  readonly help: string;
  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }

  inc(labels: Labels = {}, by = 1): void {
    const key = keyOf(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels, value: by });
  }

  get(labels: Labels = {}): number {
    return this.values.get(keyOf(labels))?.value ?? 0;
  }

  render(out: string[]): void {
    header(out, this.name, this.help, 'counter');
    for (const { labels, value } of this.values.values())
      out.push(`${this.name}${formatLabels(labels)} ${value}`);
  }
}

/** A counter without labels, rendered (as 0) from the start. */
export class Counter implements Metric {
  readonly name: string;
  readonly help: string;
  value = 0;
  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }

  inc(by = 1): void {
    this.value += by;
  }

  render(out: string[]): void {
    header(out, this.name, this.help, 'counter');
    out.push(`${this.name} ${this.value}`);
  }
}

/** A gauge per label set, kept up to date by the caller (inc/dec/set). */
export class GaugeMap implements Metric {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  readonly name: string;
  readonly help: string;
  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }

  add(labels: Labels, by: number): void {
    const key = keyOf(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels, value: by });
  }

  set(labels: Labels, value: number): void {
    this.values.set(keyOf(labels), { labels, value });
  }

  get(labels: Labels = {}): number {
    return this.values.get(keyOf(labels))?.value ?? 0;
  }

  render(out: string[]): void {
    header(out, this.name, this.help, 'gauge');
    for (const { labels, value } of this.values.values())
      out.push(`${this.name}${formatLabels(labels)} ${value}`);
  }
}

/** A gauge without labels whose value is read at scrape time. */
export class CallbackGauge implements Metric {
  readonly name: string;
  readonly help: string;
  private readonly read: () => number;
  constructor(name: string, help: string, read: () => number) {
    this.name = name;
    this.help = help;
    this.read = read;
  }

  render(out: string[]): void {
    header(out, this.name, this.help, 'gauge');
    out.push(`${this.name} ${this.read()}`);
  }
}

export const DURATION_BUCKETS_SECONDS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800,
] as const;

class HistogramSeries {
  readonly counts: number[];
  sum = 0;
  count = 0;
  readonly labels: Labels;
  constructor(labels: Labels, buckets: number) {
    this.labels = labels;
    this.counts = new Array<number>(buckets).fill(0);
  }
}

/** A histogram per label set; buckets are cumulative upper bounds. */
export class HistogramMap implements Metric {
  private readonly series = new Map<string, HistogramSeries>();
  readonly name: string;
  readonly help: string;
  readonly buckets: readonly number[];
  constructor(name: string, help: string, buckets: readonly number[] = DURATION_BUCKETS_SECONDS) {
    this.name = name;
    this.help = help;
    this.buckets = buckets;
  }

  observe(labels: Labels, value: number): void {
    const key = keyOf(labels);
    let series = this.series.get(key);
    if (!series) {
      series = new HistogramSeries(labels, this.buckets.length);
      this.series.set(key, series);
    }
    series.sum += value;
    series.count++;
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) series.counts[i]!++;
  }

  count(labels: Labels = {}): number {
    return this.series.get(keyOf(labels))?.count ?? 0;
  }

  render(out: string[]): void {
    header(out, this.name, this.help, 'histogram');
    for (const s of this.series.values()) {
      this.buckets.forEach((le, i) => {
        out.push(`${this.name}_bucket${formatLabels({ ...s.labels, le: String(le) })} ${s.counts[i]}`);
      });
      out.push(`${this.name}_bucket${formatLabels({ ...s.labels, le: '+Inf' })} ${s.count}`);
      out.push(`${this.name}_sum${formatLabels(s.labels)} ${s.sum}`);
      out.push(`${this.name}_count${formatLabels(s.labels)} ${s.count}`);
    }
  }
}

/**
 * Metrics rendered together, in registration order. `constLabels` (the agent, the toolchain: whoever scrapes,
 * through whatever discovery) are put on every sample, first.
 */
export class Registry {
  private readonly metrics: Metric[] = [];
  private prefix = '';

  register<M extends Metric>(metric: M): M {
    this.metrics.push(metric);
    return metric;
  }

  /** Labels on every sample, e.g. `{ agent: 'reviewer', toolchain: 'rust' }`. */
  setConstLabels(labels: Labels): void {
    this.prefix = Object.entries(labels)
      .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
      .join(',');
  }

  render(): string {
    const out: string[] = [];
    for (const metric of this.metrics) metric.render(out);
    if (this.prefix) {
      const prefix = this.prefix;
      for (let i = 0; i < out.length; i++) {
        const line = out[i] as string;
        if (line.startsWith('#')) continue;
        const brace = line.indexOf('{');
        const space = line.indexOf(' ');
        out[i] =
          brace >= 0 && brace < space
            ? `${line.slice(0, brace + 1)}${prefix},${line.slice(brace + 1)}`
            : `${line.slice(0, space)}{${prefix}}${line.slice(space)}`;
      }
    }
    return `${out.join('\n')}\n`;
  }
}
