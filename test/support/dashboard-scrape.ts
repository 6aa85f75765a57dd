/**
 * Whether a Grafana dashboard's PromQL reads what is really exported: each `toolyard_*` series a query names,
 * with the labels it filters and groups by, against the text a `/metrics` endpoint served. A metric is exported
 * when the scrape has its `# TYPE` line; a label is exported when some sample of that series carries it.
 */

/** One series a query reads, and the labels the query uses on it. */
export interface SeriesUse {
  /** As written in the query (`toolyard_tool_call_duration_seconds_bucket`). */
  readonly series: string;
  /** The metric family (`_bucket`, `_sum`, `_count` taken off). */
  readonly family: string;
  readonly labels: readonly string[];
}

const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g;

/** Every `toolyard_*` series in `expr`, each with its selector's labels and every `by (…)` label of the query. */
export function seriesUses(expr: string): SeriesUse[] {
  const grouped = [...expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((m) =>
    (m[1] ?? '')
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean),
  );
  return [...expr.matchAll(/\b(toolyard_[a-z0-9_]+)(\{([^}]*)\})?/g)].map((m) => {
    const series = m[1] as string;
    const selected = [...(m[3] ?? '').matchAll(LABEL)].map((l) => l[1] as string);
    return {
      series,
      family: series.replace(/_(bucket|sum|count)$/, ''),
      labels: [...new Set([...selected, ...grouped])],
    };
  });
}

interface Scrape {
  readonly families: ReadonlySet<string>;
  /** Series name → the label names of each of its samples. */
  readonly samples: ReadonlyMap<string, readonly (readonly string[])[]>;
}

/** Reads Prometheus text exposition: the `# TYPE` families and each sample's label names. */
export function readScrape(text: string): Scrape {
  const families = new Set<string>();
  const samples = new Map<string, string[][]>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) /.exec(line);
    if (type) families.add(type[1] as string);
    if (line.startsWith('#') || line.trim() === '') continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s/.exec(line);
    if (!sample) continue;
    const names = [...(sample[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)].map((l) => l[1] as string);
    const list = samples.get(sample[1] as string) ?? [];
    list.push(names);
    samples.set(sample[1] as string, list);
  }
  return { families, samples };
}

/**
 * What the dashboard's queries read that the scrapes do not export: a family without a `# TYPE` line, a series
 * in `mustHaveSamples` with no sample, a label no sample of its series carries.
 */
export function dashboardScrapeProblems(
  exprs: readonly string[],
  scrapeTexts: readonly string[],
  mustHaveSamples: ReadonlySet<string> = new Set(),
): string[] {
  const scrapes = scrapeTexts.map(readScrape);
  const problems = new Set<string>();
  for (const expr of exprs)
    for (const use of seriesUses(expr)) {
      if (!scrapes.some((s) => s.families.has(use.family))) {
        problems.add(`${use.family}: not exported (no # TYPE line)`);
        continue;
      }
      const samples = scrapes.flatMap((s) => s.samples.get(use.series) ?? []);
      if (samples.length === 0) {
        if (mustHaveSamples.has(use.family)) problems.add(`${use.series}: no sample`);
        continue;
      }
      for (const label of use.labels)
        if (!samples.some((names) => names.includes(label)))
          problems.add(`${use.series}: no sample has the label ${label}`);
    }
  return [...problems];
}

interface DashboardLike {
  readonly panels?: readonly { readonly targets?: readonly { readonly expr?: string }[] }[];
  readonly templating?: { readonly list?: readonly { readonly query?: unknown }[] };
}

/** Every query of a dashboard: panel targets, and template variables' `label_values(series, label)` as PromQL. */
export function dashboardExprs(value: unknown): string[] {
  const dashboard = value as DashboardLike;
  const targets = (dashboard.panels ?? []).flatMap((p) => (p.targets ?? []).flatMap((t) => t.expr ?? []));
  const variables = (dashboard.templating?.list ?? []).flatMap((v) => {
    const m = typeof v.query === 'string' ? /^label_values\((\w+),\s*(\w+)\)$/.exec(v.query) : null;
    return m ? [`sum by (${m[2]}) (${m[1]})`] : [];
  });
  return [...targets, ...variables];
}
