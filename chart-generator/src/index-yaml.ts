/**
 * Helm repository indexes (`index.yaml`, apiVersion v1): written for freshly packaged charts, or merged into an
 * existing index as `helm repo index --merge` does. Pure: text in, text out.
 */
import { parse, stringify } from 'yaml';
import { DEFAULT_EPOCH } from './epoch.ts';

export interface IndexEntry {
  readonly chartYaml: Readonly<Record<string, unknown>>;
  readonly fileName: string;
  readonly digest: string;
}

function timestamp(epoch: number): string {
  return new Date(epoch * 1000).toISOString().replace('.000Z', 'Z');
}

function indexEntry(entry: IndexEntry, created: string, baseUrl: string): Record<string, unknown> {
  const url = baseUrl === '' ? entry.fileName : `${baseUrl.replace(/\/$/, '')}/${entry.fileName}`;
  return { ...entry.chartYaml, created, digest: entry.digest, urls: [url] };
}

/** Entries by chart name (sorted), each chart's versions newest first (SemVer precedence), as Helm sorts them. */
function sortedEntries(byName: Readonly<Record<string, Record<string, unknown>[]>>) {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const name of Object.keys(byName).sort()) {
    out[name] = [...byName[name]!].sort((a, b) => compareSemver(String(b['version']), String(a['version'])));
  }
  return out;
}

/** A Helm repository `index.yaml` (apiVersion v1) for packaged charts; `created` and `generated` from `epoch`. */
export function indexYaml(entries: readonly IndexEntry[], epoch = DEFAULT_EPOCH, baseUrl = ''): string {
  return mergeIndexYaml(undefined, entries, epoch, baseUrl);
}

/**
 * `index.yaml` with `entries` merged into an existing index (as `helm repo index --merge`): every other chart
 * and version is kept as it was; a chart version packaged again replaces its entry. Throws when `existing`
 * is not a Helm repository index, naming what is wrong.
 */
export function mergeIndexYaml(
  existing: string | undefined,
  entries: readonly IndexEntry[],
  epoch = DEFAULT_EPOCH,
  baseUrl = '',
): string {
  const created = timestamp(epoch);
  const previous = existing === undefined ? undefined : parseIndex(existing);
  const byName: Record<string, Record<string, unknown>[]> = {};
  for (const [name, list] of Object.entries(previous?.entries ?? {})) byName[name] = [...list];
  for (const entry of entries) {
    const name = String(entry.chartYaml['name']);
    const version = String(entry.chartYaml['version']);
    byName[name] = [
      ...(byName[name] ?? []).filter((e) => String(e['version']) !== version),
      indexEntry(entry, created, baseUrl),
    ];
  }
  return stringify(
    { ...previous?.rest, apiVersion: 'v1', entries: sortedEntries(byName), generated: created },
    { version: '1.1', lineWidth: 0 },
  );
}

function parseIndex(text: string): {
  entries: Record<string, Record<string, unknown>[]>;
  rest: Record<string, unknown>;
} {
  let doc: unknown;
  try {
    doc = parse(text, { version: '1.1' });
  } catch (error) {
    throw new Error(`index.yaml is not valid YAML: ${(error as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new Error('index.yaml is not a YAML map');
  const { apiVersion, entries = {}, generated: _generated, ...rest } = doc as Record<string, unknown>;
  if (apiVersion !== 'v1')
    throw new Error(`index.yaml: apiVersion is ${JSON.stringify(apiVersion)}, expected "v1"`);
  if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) {
    throw new Error('index.yaml: entries is not a map of chart names to versions');
  }
  for (const [name, list] of Object.entries(entries)) {
    if (!Array.isArray(list) || !list.every((e) => typeof e === 'object' && e !== null && 'version' in e)) {
      throw new Error(`index.yaml: entries.${name} is not a list of chart versions`);
    }
  }
  return { entries: entries as Record<string, Record<string, unknown>[]>, rest };
}

/** SemVer 2 precedence: < 0 when a is older than b. Build metadata is ignored; a pre-release is older. */
export function compareSemver(a: string, b: string): number {
  const split = (v: string) => {
    const [core = '', pre] = v.replace(/^v/, '').split('+')[0]!.split(/-(.*)/s);
    return { core: core.split('.').map(Number), pre: pre === undefined || pre === '' ? [] : pre.split('.') };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.core[i] ?? 0) - (y.core[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn && Number(p) !== Number(q)) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}
