/**
 * `toolyard synth` over many files: slices of the spec files (every `jobs`-th file) are read, checked, rendered
 * and serialised on worker threads and on this one, each manifest written to a staging directory as soon as it
 * is made. What comes back is small: per file, its problems, its agents' names and lines, their warnings. The
 * caller merges the reports in file order, so problems and warnings read exactly as one thread would print
 * them, and moves the staged files into place only when every spec is valid.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { toYamlDocuments } from '../../constructs/src/render.ts';
import type { SpecError } from '../../schema/src/load.ts';
import { unreadable } from './read-specs.ts';
import { renderSpec } from './render-specs.ts';
import { moduloSlices, workerSlices } from './worker-slices.ts';
import { StagingDirectory } from './write-files.ts';

/** One agent of a valid file: what the merge needs to find names used twice and to report in order. */
export interface AgentReport {
  readonly name: string;
  readonly file: string;
  readonly nameLine: number;
  readonly warnings: readonly string[];
  /** Problems rendering found after the check passed, formatted; the agent was not written. */
  readonly renderProblems?: readonly string[];
  /** The staged manifest, relative to the output directory. */
  readonly staged?: string;
}

/** One spec file, by its index among all files. */
export interface FileReport {
  readonly index: number;
  readonly readError?: SpecError;
  readonly checkErrors?: readonly SpecError[];
  readonly agents?: readonly AgentReport[];
}

/** Reads, checks, renders and stages the files at `indexes` of `files`. */
export function synthSlice(
  files: readonly string[],
  indexes: readonly number[],
  staging: string,
): FileReport[] {
  const reports: FileReport[] = [];
  for (const index of indexes) {
    const file = files[index]!;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      reports.push({ index, readError: unreadable(file, error as NodeJS.ErrnoException) });
      continue;
    }
    const checked = checkSpecText(text, file);
    if (!checked.ok) {
      reports.push({ index, checkErrors: checked.errors });
      continue;
    }
    const agents: AgentReport[] = [];
    for (const spec of checked.specs) {
      const name = spec.agent.metadata.name;
      const base = { name, file, nameLine: spec.lineOf('/metadata/name') };
      const result = renderSpec(spec);
      if (!result.ok) {
        agents.push({ ...base, warnings: [], renderProblems: result.problems });
        continue;
      }
      const output = `${name}.k8s.yaml`;
      StagingDirectory.writeSync(staging, [
        { path: output, content: toYamlDocuments(result.rendered.objects) },
      ]);
      agents.push({ ...base, warnings: result.warnings, staged: output });
    }
    reports.push({ index, agents });
  }
  return reports;
}

/** A worker's share: the files at `indexes` of `files`. */
interface SynthSlice {
  readonly files: readonly string[];
  readonly indexes: readonly number[];
  readonly staging: string;
}

// This module's own file, as source (ESM) or compiled (CommonJS, where import.meta is empty).
const SELF = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);

const synthRunner = workerSlices<SynthSlice, FileReport[]>({
  name: 'synth',
  module: SELF,
  thisThreadTakesFirstSlice: true,
  compute: (slice) => synthSlice(slice.files, slice.indexes, slice.staging),
});

/** Every file's report, in file order, from `jobs` threads (this one takes the first slice). */
export async function synthSlices(
  files: readonly string[],
  jobs: number,
  staging: string,
): Promise<FileReport[]> {
  const threads = Math.max(1, Math.min(jobs, files.length));
  const slices = moduloSlices(
    files.map((_, index) => index),
    threads,
  );
  const reports = await synthRunner.run(slices.map((indexes) => ({ files, indexes, staging })));
  return reports.flat().sort((a, b) => a.index - b.index);
}
