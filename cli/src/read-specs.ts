/** Reads spec files and checks them; the only place the CLI touches spec input. */
import { readFile } from 'node:fs/promises';
import { type CheckedSpec, checkSpecText } from '../../constructs/src/check-spec-text.ts';
import type { SpecError } from '../../schema/src/load.ts';
import { fleetCacheErrors } from './fleet/fleet-caches.ts';
import { specFiles } from './spec-files.ts';

export interface ReadSpecsResult {
  readonly specs: readonly CheckedSpec[];
  readonly errors: readonly SpecError[];
}

/** A spec file's text, wherever it came from (the file system, a git tree). */
export interface SpecSource {
  readonly file: string;
  readonly text: string;
}

/** Reads and checks the specs behind command-line paths (files, or directories searched for specs). */
export async function readSpecs(paths: readonly string[]): Promise<ReadSpecsResult> {
  const { files, errors: pathErrors } = await specFiles(paths);
  const errors: SpecError[] = [...pathErrors];
  const sources: SpecSource[] = [];
  for (const file of files) {
    try {
      sources.push({ file, text: await readFile(file, 'utf8') });
    } catch (error) {
      errors.push(unreadable(file, error as NodeJS.ErrnoException));
    }
  }
  const checked = checkSpecSources(sources);
  return { specs: checked.specs, errors: [...errors, ...checked.errors] };
}

/** A spec file that cannot be read, as a problem of the whole file that says why. */
export function unreadable(file: string, error: NodeJS.ErrnoException): SpecError {
  const reasons: Record<string, string> = {
    ENOENT: 'not found',
    EACCES: 'not readable (permission denied)',
    EISDIR: 'a directory',
    ENOTDIR: 'not found (a part of the path is a file)',
  };
  return {
    file,
    line: 0,
    path: '',
    message: reasons[error.code ?? ''] ?? `cannot be read: ${error.message}`,
  };
}

/**
 * Checks spec texts: each against the schema and semantic rules, agent names unique across them, and the cache
 * sharing rules across agents that mount the same claim.
 */
export function checkSpecSources(sources: readonly SpecSource[]): ReadSpecsResult {
  const specs: CheckedSpec[] = [];
  const errors: SpecError[] = [];
  for (const { file, text } of sources) {
    const result = checkSpecText(text, file);
    if (result.ok) specs.push(...result.specs);
    else errors.push(...result.errors);
  }
  errors.push(...duplicateNames(specs), ...fleetCacheErrors(specs));
  return { specs, errors };
}

/** Why an agent name must be unique (the hint of a name used twice). */
export const UNIQUE_NAME_HINT =
  'agent names must be unique across the specs of one synth: each renders to <name>.k8s.yaml';

/** Agent names used twice, each after its first use: two specs would render to the same output file. */
export function duplicateNames(
  specs: Iterable<
    { readonly file: string; readonly agent: { readonly metadata: { readonly name: string } } } & {
      lineOf(pointer: string): number;
    }
  >,
): SpecError[] {
  const errors: SpecError[] = [];
  const seen = new Map<string, string>();
  for (const spec of specs) {
    const name = spec.agent.metadata.name;
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      errors.push({
        file: spec.file,
        line: spec.lineOf('/metadata/name'),
        path: '/metadata/name',
        message: `agent "${name}" is also defined in ${earlier}`,
        hint: UNIQUE_NAME_HINT,
      });
    } else seen.set(name, spec.file);
  }
  return errors;
}
