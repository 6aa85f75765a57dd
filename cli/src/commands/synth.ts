import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { toYamlDocuments } from '../../../constructs/src/render.ts';
import { formatSpecError, type SpecError } from '../../../schema/src/load.ts';
import { count } from '../counts.ts';
import type { Io } from '../io.ts';
import { duplicateNames } from '../read-specs.ts';
import { renderSpecs } from '../render-specs.ts';
import { specFiles } from '../spec-files.ts';
import { type FileReport, synthSlices } from '../synth-slices.ts';
import { UsageError } from '../usage-error.ts';
import { StagingDirectory } from '../write-files.ts';

/** From this many spec files on, synth renders on worker threads too. */
const PARALLEL_FROM = 64;

export const synthUsage = `Usage: toolyard synth <spec|directory…> [-o DIR] [--stdout]

Renders each Agent to DIR/<metadata.name>.k8s.yaml (default DIR: dist), one multi-document file per agent,
byte-for-byte deterministic. A directory stands for every *.yaml/*.yml file with "kind: Agent" below it.
On any invalid input nothing is written and the exit code is 1. Warnings (e.g. a toolchain sharing more
egress than it asked for) go to stderr, unless the spec acknowledges them (spec.acknowledgedWarnings).

Options:
  -o, --output DIR   output directory (default: dist)
      --stdout       print the YAML to stdout instead of writing files
      --jobs N       threads that render (default: up to 4 of the machine's cores from ${PARALLEL_FROM} specs on,
                     else 1)`;

export async function synthCommand(argv: readonly string[], io: Io): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o', default: 'dist' },
      stdout: { type: 'boolean', default: false },
      jobs: { type: 'string' },
    },
  });
  if (positionals.length === 0) throw new UsageError('synth needs at least one spec file or directory');
  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 1 && jobs <= 64))
    throw new UsageError(`--jobs "${values.jobs}" is not a whole number from 1 to 64`);
  if (values.stdout) {
    const outputs = await renderSpecs(positionals, io, ({ rendered }) => toYamlDocuments(rendered.objects));
    if (!outputs) return 1;
    io.stdout(outputs.join('---\n'));
    return 0;
  }
  const { files, errors: pathErrors } = await specFiles(positionals);
  // Manifests go to a staging directory as they are made and move into the output once every spec is valid.
  const staging = new StagingDirectory(values.output);
  try {
    const reports = await synthSlices(
      files,
      jobs ?? (files.length >= PARALLEL_FROM ? Math.min(availableParallelism(), 4) : 1),
      staging.path,
    );
    const written = reportInOrder(pathErrors, reports, io);
    if (!written) return 1;
    staging.add(written);
    await staging.commit();
    for (const file of written) io.stderr(`wrote ${join(values.output, file)}`);
    return 0;
  } finally {
    await staging.discard();
  }
}

/**
 * Prints what one thread checking every file and then rendering them would print: every problem (read, check,
 * names used twice) and the count; else each agent's warnings in file order up to a render problem, if any.
 * Returns the staged files to move into place, or `undefined` when nothing may be written.
 */
function reportInOrder(
  pathErrors: readonly SpecError[],
  reports: readonly FileReport[],
  io: Io,
): string[] | undefined {
  const agents = reports.flatMap((r) => r.agents ?? []);
  const errors = [
    ...pathErrors,
    ...reports.flatMap((r) => (r.readError ? [r.readError] : [])),
    ...reports.flatMap((r) => r.checkErrors ?? []),
    ...duplicateNames(
      agents.map((a) => ({ file: a.file, agent: { metadata: { name: a.name } }, lineOf: () => a.nameLine })),
    ),
  ];
  if (errors.length > 0) {
    for (const error of errors) io.stderr(formatSpecError(error));
    io.stderr(`${count(errors.length, 'error')}; nothing was written.`);
    return undefined;
  }
  const staged: string[] = [];
  for (const agent of agents) {
    if (agent.renderProblems) {
      for (const problem of agent.renderProblems) io.stderr(problem);
      io.stderr('nothing was written.');
      return undefined;
    }
    for (const warning of agent.warnings) io.stderr(warning);
    staged.push(agent.staged!);
  }
  return staged;
}
