/**
 * Builds agents' shares of a fleet site on worker threads: each worker reads, checks and renders a slice of the
 * spec files and builds their pages, manifests and charts (the chart generator and gzip are most of the cost),
 * so a fleet of a thousand agents uses every core. A slice runs in this thread when one is enough. Errors and
 * warnings come back as the text the CLI prints; names come back so duplicates across slices are found too.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkSpecText } from '../../../../constructs/src/check-spec-text.ts';
import { formatSpecError, type SpecError } from '../../../../schema/src/load.ts';
import { duplicateNames } from '../../read-specs.ts';
import { renderSpec } from '../../render-specs.ts';
import { moduloSlices, workerSlices } from '../../worker-slices.ts';
import { StagingDirectory } from '../../write-files.ts';
import { type AgentSiteFiles, agentSiteFiles, type SiteOptions } from './build-site.ts';

/** Why a name may be used once in a site: the same hint whether the two specs are in one slice or two. */
export const SITE_UNIQUE_NAME_HINT =
  'agent names must be unique across the specs of one site: each has a page and a chart of its name';

export interface SliceResult {
  readonly shares: AgentSiteFiles[];
  /** Problems, formatted as the CLI prints them. */
  readonly errors: string[];
  readonly warnings: string[];
  readonly names: { readonly name: string; readonly file: string; readonly line: number }[];
  /** Files written to the staging directory (relative to the site), when one was given. */
  readonly staged: string[];
}

/**
 * Builds a slice file by file — read, check, render, build the agent's pages and chart, and (with a staging
 * directory) write them there at once — so neither a file's parsed YAML nor an agent's finished files wait
 * for the rest of the slice. Problems come out as checking every file first would report them: unreadable
 * files, then check problems in file order, then names used twice in the slice, then render problems.
 */
export function buildSlice(files: readonly string[], options: SiteOptions, staging?: string): SliceResult {
  const result: SliceResult = { shares: [], errors: [], warnings: [], names: [], staged: [] };
  const readErrors: string[] = [];
  const checkErrors: SpecError[] = [];
  const renderErrors: string[] = [];
  const named: { file: string; agent: { metadata: { name: string } }; lineOf(pointer: string): number }[] =
    [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
      readErrors.push(formatSpecError({ file, line: 0, path: '/', message: `cannot read spec: ${reason}` }));
      continue;
    }
    const checked = checkSpecText(text, file);
    if (!checked.ok) {
      checkErrors.push(...checked.errors);
      continue;
    }
    for (const spec of checked.specs) {
      const line = spec.lineOf('/metadata/name');
      result.names.push({ name: spec.agent.metadata.name, file: spec.file, line });
      named.push({ file: spec.file, agent: spec.agent, lineOf: () => line });
      const outcome = renderSpec(spec);
      if (!outcome.ok) {
        renderErrors.push(...outcome.problems);
        continue;
      }
      const rendered = outcome.rendered;
      result.warnings.push(...outcome.warnings);
      // Once anything is wrong nothing is written: the rest is still checked and rendered, for its problems.
      if (readErrors.length + checkErrors.length + renderErrors.length > 0) continue;
      const share = agentSiteFiles(spec.file, rendered, options);
      if (staging === undefined) result.shares.push(share);
      else {
        result.staged.push(...StagingDirectory.writeSync(staging, share.files));
        result.shares.push({ ...share, files: [] });
      }
    }
  }
  const duplicates = duplicateNames(named).map((e) => formatSpecError({ ...e, hint: SITE_UNIQUE_NAME_HINT }));
  result.errors.push(
    ...readErrors,
    ...checkErrors.map((e) => formatSpecError(e)),
    ...duplicates,
    ...renderErrors,
  );
  return result;
}

/** A worker's share of the spec files, with what every share is built with. */
interface SiteSlice {
  readonly files: readonly string[];
  readonly options: SiteOptions;
  readonly staging: string | undefined;
}

// This module's own file, as source (ESM) or compiled (CommonJS, where import.meta is empty).
const SELF = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);

const siteRunner = workerSlices<SiteSlice, SliceResult>({
  name: 'site',
  module: SELF,
  thisThreadTakesFirstSlice: false,
  compute: (slice) => buildSlice(slice.files, slice.options, slice.staging),
});

/**
 * Every file's share, on up to `jobs` threads (this one included when `jobs` is 1); with `staging`, each
 * agent's files are written there as they are built instead of coming back in memory.
 */
export async function buildSlices(
  files: readonly string[],
  options: SiteOptions,
  jobs: number,
  staging?: string,
): Promise<SliceResult[]> {
  if (jobs <= 1) return [buildSlice(files, options, staging)];
  return siteRunner.run(moduloSlices(files, jobs).map((slice) => ({ files: slice, options, staging })));
}
