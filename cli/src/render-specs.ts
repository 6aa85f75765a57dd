/** Reads, checks and renders spec files for commands that write output; reports problems and warnings. */
import { AgentSpecError } from '../../constructs/src/agent-spec-error.ts';
import type { RenderWarning } from '../../constructs/src/effective-egress.ts';
import { type RenderResult, renderAgent } from '../../constructs/src/render.ts';
import { formatSpecError, type LoadedSpec } from '../../schema/src/load.ts';
import { count } from './counts.ts';
import type { Io } from './io.ts';
import { type ReadSpecsResult, readSpecs } from './read-specs.ts';

/** `warning: file:line: /path: message`, as every command prints a render warning. */
export function formatWarning(spec: LoadedSpec, warning: RenderWarning): string {
  return `warning: ${spec.file}:${spec.lineOf(warning.path)}: ${warning.path}: ${warning.message}`;
}

export interface RenderedSpec {
  readonly spec: LoadedSpec;
  readonly rendered: RenderResult;
}

/**
 * Every spec rendered in memory, warnings printed to stderr; or `undefined` after printing every error, in
 * which case the caller must write nothing.
 */
export async function renderSpecs(files: readonly string[], io: Io): Promise<RenderedSpec[] | undefined> {
  return renderCheckedSpecs(await readSpecs(files), io);
}

/** The same, for specs already read and checked (e.g. from a git tree). */
export function renderCheckedSpecs(
  { specs, errors }: ReadSpecsResult,
  io: Io,
  outcome = 'nothing was written.',
): RenderedSpec[] | undefined {
  if (errors.length > 0) {
    for (const error of errors) io.stderr(formatSpecError(error));
    io.stderr(`${count(errors.length, 'error')}; ${outcome}`);
    return undefined;
  }
  const results: RenderedSpec[] = [];
  for (const spec of specs) {
    let rendered: RenderResult;
    try {
      rendered = renderAgent(spec.agent, spec.plan);
    } catch (error) {
      if (!(error instanceof AgentSpecError)) throw error;
      for (const p of error.problems)
        io.stderr(formatSpecError({ ...p, file: spec.file, line: spec.lineOf(p.path) }));
      io.stderr(outcome);
      return undefined;
    }
    for (const warning of rendered.warnings) {
      io.stderr(formatWarning(spec, warning));
    }
    results.push({ spec, rendered });
  }
  return results;
}
