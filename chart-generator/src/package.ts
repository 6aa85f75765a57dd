/**
 * Chart packages and Helm repository indexes.
 *
 * `tarChart` (a deterministic ustar writer: sorted entries, fixed mtime, uid/gid 0, mode 0644) and the
 * indexes (index-yaml.ts) are pure and run anywhere. `packageChart` is Node-only: it uses node:zlib for gzip
 * and node:crypto for the sha256 digest (in a browser: CompressionStream('gzip') and crypto.subtle.digest, whose
 * gzip bytes may differ from zlib's, so digests are only comparable within one implementation).
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { DEFAULT_EPOCH } from './epoch.ts';
import type { GeneratedChart } from './generate.ts';

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function writeString(block: Uint8Array, offset: number, width: number, text: string): void {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > width) throw new Error(`tar field too long: ${text}`);
  block.set(bytes, offset);
}

function header(path: string, size: number, mtime: number): Uint8Array {
  const block = new Uint8Array(512);
  let name = path;
  let prefix = '';
  if (new TextEncoder().encode(path).length > 100) {
    const cut = path.lastIndexOf('/', 155);
    if (cut <= 0 || path.length - cut - 1 > 100) throw new Error(`path too long for ustar: ${path}`);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  writeString(block, 0, 100, name);
  writeString(block, 100, 8, octal(0o644, 8));
  writeString(block, 108, 8, octal(0, 8));
  writeString(block, 116, 8, octal(0, 8));
  writeString(block, 124, 12, octal(size, 12));
  writeString(block, 136, 12, octal(mtime, 12));
  writeString(block, 148, 8, '        ');
  writeString(block, 156, 1, '0');
  writeString(block, 257, 6, 'ustar\0');
  writeString(block, 263, 2, '00');
  writeString(block, 345, 155, prefix);
  let sum = 0;
  for (const byte of block) sum += byte;
  writeString(block, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** An uncompressed, deterministic tar of `files` (path → content), entries sorted by path. */
export function tarFiles(files: ReadonlyMap<string, string | Uint8Array>, mtime = DEFAULT_EPOCH): Uint8Array {
  const chunks: Uint8Array[] = [];
  const paths = [...files.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const path of paths) {
    const content = files.get(path)!;
    const data = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    chunks.push(header(path, data.length, mtime), data);
    const rest = (512 - (data.length % 512)) % 512;
    if (rest > 0) chunks.push(new Uint8Array(rest));
  }
  chunks.push(new Uint8Array(1024));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The chart's tar: every file under `<name>/`, as `helm package` lays it out. */
export function tarChart(chart: GeneratedChart, mtime = DEFAULT_EPOCH): Uint8Array {
  const files = new Map<string, string>();
  for (const [path, content] of chart.files) files.set(`${chart.name}/${path}`, content);
  return tarFiles(files, mtime);
}

export interface PackagedChart {
  readonly fileName: string;
  readonly archive: Uint8Array;
  readonly digest: string;
}

/** `<name>-<version>.tgz` with its sha256 digest. Node-only (zlib, crypto). */
export function packageChart(chart: GeneratedChart, mtime = DEFAULT_EPOCH): PackagedChart {
  const archive = new Uint8Array(gzipSync(tarChart(chart, mtime), { level: 9 }));
  const digest = createHash('sha256').update(archive).digest('hex');
  return { fileName: `${chart.name}-${chart.version}.tgz`, archive, digest };
}

export { DEFAULT_EPOCH, parseEpoch } from './epoch.ts';
export { compareSemver, type IndexEntry, indexYaml, mergeIndexYaml } from './index-yaml.ts';
