/**
 * When and from what the sources were made, for image labels and `created` times, from a git checkout or from a
 * source archive without `.git` (a distribution's build of a release tarball):
 * - the time: `SOURCE_DATE_EPOCH` (the reproducible-builds convention) if set; else the commit time of `HEAD` in a
 *   git checkout; else the newest modification time of the source files (`git archive` gives every file the
 *   commit time, so an extracted archive yields the same time as its checkout);
 * - the revision: `TOOLYARD_REVISION` if set; else `HEAD` of a git checkout; else none, and the images carry no
 *   `org.opencontainers.image.revision` label rather than a made-up one.
 * The same sources and variables always give the same metadata, so two builds stay byte-identical.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Directories that hold build output or fetched dependencies, never sources. */
const NOT_SOURCES = new Set([
  '.git',
  'node_modules',
  'dist',
  'lib',
  '.tmp',
  '.astro',
  'test-results',
  'fleet-site',
]);

export interface SourceMetadata {
  /** Seconds since the epoch. */
  readonly epoch: number;
  /** Where `epoch` came from, for logs. */
  readonly epochFrom: 'SOURCE_DATE_EPOCH' | 'git' | 'newest file';
  /** The commit, or undefined for a label-less build. */
  readonly revision: string | undefined;
}

function parseEpoch(value: string): number {
  if (!/^\d+$/.test(value.trim()))
    throw new Error(
      `SOURCE_DATE_EPOCH must be whole seconds since 1970-01-01 (got ${JSON.stringify(value)})`,
    );
  return Number(value.trim());
}

async function newestFileTime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (NOT_SOURCES.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, await newestFileTime(path));
    else if (entry.isFile()) newest = Math.max(newest, Math.floor((await stat(path)).mtimeMs / 1000));
  }
  return newest;
}

export async function sourceMetadata(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<SourceMetadata> {
  const isCheckout = existsSync(join(root, '.git'));
  const git = async (...args: string[]) => (await run('git', args, { cwd: root })).stdout.trim();
  const fromEnv = env['SOURCE_DATE_EPOCH'];
  let epoch: number;
  let epochFrom: SourceMetadata['epochFrom'];
  if (fromEnv !== undefined && fromEnv !== '') {
    epoch = parseEpoch(fromEnv);
    epochFrom = 'SOURCE_DATE_EPOCH';
  } else if (isCheckout) {
    epoch = Number(await git('log', '-1', '--format=%ct'));
    epochFrom = 'git';
  } else {
    epoch = await newestFileTime(root);
    epochFrom = 'newest file';
  }
  const revision = env['TOOLYARD_REVISION'] || (isCheckout ? await git('rev-parse', 'HEAD') : undefined);
  return { epoch, epochFrom, revision };
}
