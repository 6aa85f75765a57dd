/** Reads, checks and renders spec files for commands that write output; reports problems and warnings. */
import { readFile } from 'node:fs/promises';
import { AgentSpecError } from '../../constructs/src/agent-spec-error.ts';
import { type CheckedSpec, checkSpecText } from '../../constructs/src/check-spec-text.ts';
import type { RenderWarning } from '../../constructs/src/effective-egress.ts';
import { type RenderResult, renderAgent } from '../../constructs/src/render.ts';
import {
  formatSpecError,
  type LoadedSpec,
  parseSpecDocuments,
  type SpecError,
} from '../../schema/src/load.ts';
import { count } from './counts.ts';
import type { Io } from './io.ts';
import { duplicateNames, type ReadSpecsResult, unreadable } from './read-specs.ts';
import { specFiles } from './spec-files.ts';

/** `warning: file:line: /path: message`, as every command prints a render warning. */
export function formatWarning(spec: LoadedSpec, warning: RenderWarning, shownAs = spec.file): string {
  return `warning: ${shownAs}:${spec.lineOf(warning.path)}: ${warning.path}: ${warning.message}`;
}

/**
 * Renders one checked spec: the result and its warnings as every command prints them, or, when the renderer
 * refuses it (AgentSpecError), its problems as printed. `shownAs` is the file as messages name it (`diff`
 * prefixes the side: `main: agents/x.yaml`). Any other error is a fault and is thrown.
 */
export function renderSpec(
  spec: CheckedSpec,
  shownAs = spec.file,
): { ok: true; rendered: RenderResult; warnings: string[] } | { ok: false; problems: string[] } {
  try {
    const rendered = renderAgent(spec.agent, spec.plan);
    return { ok: true, rendered, warnings: rendered.warnings.map((w) => formatWarning(spec, w, shownAs)) };
  } catch (error) {
    if (!(error instanceof AgentSpecError)) throw error;
    return {
      ok: false,
      problems: error.problems.map((p) =>
        formatSpecError({ ...p, file: shownAs, line: spec.lineOf(p.path) }),
      ),
    };
  }
}

export interface RenderedSpec {
  readonly spec: LoadedSpec;
  readonly rendered: RenderResult;
}

/**
 * A checked spec that no longer holds its file's parsed YAML: `lineOf` parses the text again when asked (the
 * same parser on the same text, so the same lines), which only a problem found later needs.
 */
function releasedSpec(spec: CheckedSpec, text: string, documentIndex: number): LoadedSpec {
  let lineOf: ((pointer: string) => number) | undefined;
  return {
    file: spec.file,
    agent: spec.agent,
    lineOf(pointer) {
      if (lineOf === undefined) {
        const parsed = parseSpecDocuments(text, spec.file);
        if (!parsed.ok) throw new Error(`${spec.file} parsed once and not again`);
        lineOf = parsed.documents[documentIndex]!.lineOf;
      }
      return lineOf(pointer);
    },
  };
}

/**
 * Every spec rendered, warnings printed to stderr, each rendered spec turned by `keep` into what the caller
 * needs (so a file's parsed YAML and its rendered objects are garbage as soon as that file is done); or
 * `undefined` after printing every error, in which case the caller must write nothing. Problems and warnings
 * are reported in the same order and words as checking every file first and rendering afterwards: read
 * errors, then check errors in file order, then names used twice; warnings only when every spec is valid.
 */
export async function renderSpecs<T = RenderedSpec>(
  paths: readonly string[],
  io: Io,
  keep: (rendered: RenderedSpec) => T = (rendered) => rendered as T,
): Promise<T[] | undefined> {
  const { files, errors: pathErrors } = await specFiles(paths);
  const readErrors: SpecError[] = [];
  const checkErrors: SpecError[] = [];
  const named: LoadedSpec[] = [];
  const kept: T[] = [];
  const warnings: string[] = [];
  let renderProblems: string[] | undefined;
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      readErrors.push(unreadable(file, error as NodeJS.ErrnoException));
      continue;
    }
    const checked = checkSpecText(text, file);
    if (!checked.ok) {
      checkErrors.push(...checked.errors);
      continue;
    }
    for (const [index, spec] of checked.specs.entries()) {
      const released = releasedSpec(spec, text, index);
      named.push(released);
      // Once anything is wrong nothing is written: later specs are still checked, no longer rendered.
      if (checkErrors.length > 0 || readErrors.length > 0 || renderProblems) continue;
      const result = renderSpec(spec);
      if (!result.ok) {
        renderProblems = result.problems;
        continue;
      }
      warnings.push(...result.warnings);
      kept.push(keep({ spec: released, rendered: result.rendered }));
    }
  }
  const errors = [...pathErrors, ...readErrors, ...checkErrors, ...duplicateNames(named)];
  if (errors.length > 0) {
    reportErrors(errors, io);
    return undefined;
  }
  for (const warning of warnings) io.stderr(warning);
  if (renderProblems) {
    for (const problem of renderProblems) io.stderr(problem);
    io.stderr('nothing was written.');
    return undefined;
  }
  return kept;
}

function reportErrors(errors: readonly SpecError[], io: Io, outcome = 'nothing was written.'): void {
  for (const error of errors) io.stderr(formatSpecError(error));
  io.stderr(`${count(errors.length, 'error')}; ${outcome}`);
}

/** The same, for specs already read and checked (e.g. from a git tree). */
export function renderCheckedSpecs(
  { specs, errors }: ReadSpecsResult,
  io: Io,
  outcome = 'nothing was written.',
): RenderedSpec[] | undefined {
  if (errors.length > 0) {
    reportErrors(errors, io, outcome);
    return undefined;
  }
  const results: RenderedSpec[] = [];
  for (const spec of specs) {
    const result = renderSpec(spec);
    if (!result.ok) {
      for (const problem of result.problems) io.stderr(problem);
      io.stderr(outcome);
      return undefined;
    }
    for (const warning of result.warnings) io.stderr(warning);
    results.push({ spec, rendered: result.rendered });
  }
  return results;
}
