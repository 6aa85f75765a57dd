/**
 * Builds agents' shares of a fleet site on worker threads: each worker reads, checks and renders a slice of the
 * spec files and builds their pages, manifests and charts (the chart generator and gzip are most of the cost),
 * so a fleet of a thousand agents uses every core. A slice runs in this thread when one is enough. Errors and
 * warnings come back as the text the CLI prints; names come back so duplicates across slices are found too.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { AgentSpecError } from '../../../../constructs/src/agent-spec-error.ts';
import { type RenderResult, renderAgent } from '../../../../constructs/src/render.ts';
import { formatSpecError, type SpecError } from '../../../../schema/src/load.ts';
import { checkSpecSources, type SpecSource } from '../../read-specs.ts';
import { type AgentSiteFiles, agentSiteFiles, type SiteOptions } from './build-site.ts';

export interface SliceResult {
  readonly shares: AgentSiteFiles[];
  /** Problems, formatted as the CLI prints them. */
  readonly errors: string[];
  readonly warnings: string[];
  readonly names: { readonly name: string; readonly file: string; readonly line: number }[];
}

export function buildSlice(files: readonly string[], options: SiteOptions): SliceResult {
  const result: SliceResult = { shares: [], errors: [], warnings: [], names: [] };
  const sources: SpecSource[] = [];
  for (const file of files) {
    try {
      sources.push({ file, text: readFileSync(file, 'utf8') });
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
      result.errors.push(
        formatSpecError({ file, line: 0, path: '/', message: `cannot read spec: ${reason}` }),
      );
    }
  }
  const { specs, errors } = checkSpecSources(sources);
  result.errors.push(...errors.map((e: SpecError) => formatSpecError(e)));
  for (const spec of specs) {
    result.names.push({
      name: spec.agent.metadata.name,
      file: spec.file,
      line: spec.lineOf('/metadata/name'),
    });
    let rendered: RenderResult;
    try {
      rendered = renderAgent(spec.agent, spec.plan);
    } catch (error) {
      if (!(error instanceof AgentSpecError)) throw error;
      for (const p of error.problems)
        result.errors.push(formatSpecError({ ...p, file: spec.file, line: spec.lineOf(p.path) }));
      continue;
    }
    for (const w of rendered.warnings)
      result.warnings.push(`warning: ${spec.file}:${spec.lineOf(w.path)}: ${w.path}: ${w.message}`);
    if (result.errors.length === 0) result.shares.push(agentSiteFiles(spec.file, rendered, options));
  }
  return result;
}

interface WorkerInput {
  readonly toolyardSiteSlice: true;
  readonly files: readonly string[];
  readonly options: SiteOptions;
}

// This module's own file, as source (ESM) or compiled (CommonJS, where import.meta is empty).
const SELF = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);

if (!isMainThread && (workerData as WorkerInput | undefined)?.toolyardSiteSlice) {
  const input = workerData as WorkerInput;
  parentPort!.postMessage(buildSlice(input.files, input.options));
}

/** Every file's share, on up to `jobs` threads (this one included when `jobs` is 1). */
export async function buildSlices(
  files: readonly string[],
  options: SiteOptions,
  jobs: number,
): Promise<SliceResult[]> {
  if (jobs <= 1) return [buildSlice(files, options)];
  const slices = Array.from({ length: jobs }, (_, i) => files.filter((_, j) => j % jobs === i));
  return Promise.all(
    slices.map(
      (slice) =>
        new Promise<SliceResult>((resolve, reject) => {
          const input: WorkerInput = { toolyardSiteSlice: true, files: slice, options };
          const worker = new Worker(SELF, { workerData: input });
          worker.once('message', (message: SliceResult) => resolve(message));
          worker.once('error', reject);
          worker.once('exit', (code) => {
            if (code !== 0) reject(new Error(`site worker exited with code ${code}`));
          });
        }),
    ),
  );
}
