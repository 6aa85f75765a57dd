import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { formatSpecError, type SpecError } from '../../../schema/src/load.ts';
import { count } from '../counts.ts';
import { DIFF_FORMATS, type DiffFormat, formatDiff } from '../fleet/diff-format.ts';
import { diffFleets } from '../fleet/fleet-diff.ts';
import type { FleetAgent } from '../fleet/fleet-model.ts';
import { renderSidesInParallel } from '../fleet/parallel-render.ts';
import {
  type Revision,
  RevisionError,
  type RevisionSources,
  resolveRevision,
  revisionSources,
} from '../fleet/revision.ts';
import type { Io } from '../io.ts';
import type { SpecSource } from '../read-specs.ts';
import { agentCount, hasNearMissSpec } from '../spec-files.ts';
import { UsageError } from '../usage-error.ts';

/** From this many changed specs on, a diff renders on worker threads. */
const PARALLEL_FROM = 400;

export const diffUsage = `Usage: toolyard diff --base <git-ref|dir> [--head <git-ref|dir>] [--format text|markdown|json] [path…]

Reports what a change does to a fleet of specs, per agent: authority added and removed (RBAC grants per
ServiceAccount and namespace), egress destinations per pod, egress by name per container (routes and hosts
through the broker), credentials per container (and those moved into the broker), images, MCP servers per
backend, and objects added, removed and changed. Both sides are rendered with the same renderer as
"toolyard synth". A git ref is read with git itself (ls-tree, cat-file), never checked out; a path that is
an existing directory is taken as a directory instead. Paths (default ".") select the specs on both sides: a
directory stands for every *.yaml/*.yml file with "kind: Agent" below it; a path missing on one side holds
no agents there. An agent that changed name pairs with its old self when it stays in the same file.

Exit codes: 0 nothing widens, 3 authority, egress (a host or ecosystem added to a container included),
credentials or cache writers (a new read-write user of an existing claim) widen (a CI gate), 1 an error (an invalid
spec on either side, an unknown ref), 2 a usage error.

Options:
      --base REF|DIR   the revision before the change (e.g. origin/main, a commit, a checkout)
      --head REF|DIR   the revision after it (default: the files as they are in the current directory)
      --format FORMAT  text (default), markdown (a pull-request comment) or json
      --jobs N         threads that render changed agents (default: up to 4 of the machine's cores from
                       ${PARALLEL_FROM} changed specs on, else 1)`;

/** Agent names in a spec file, read without checking it (its text is the same on both sides). */
function agentNames(source: SpecSource): string[] {
  return parseAllDocuments(source.text)
    .map((d) => d.toJS() as { kind?: unknown; metadata?: { name?: unknown } } | null)
    .filter((d) => d?.kind === 'Agent')
    .map((d) => String(d?.metadata?.name ?? ''));
}

/**
 * Agents of the base whose file is still there on the head side but no longer read as a spec (its kind and
 * apiVersion changed beyond a near miss): diff never calls an agent "removed" while its file exists. A file
 * deleted, or a spec file that no longer holds one of its agents, is a removal.
 */
function vanishedAgents(base: RevisionSources, head: RevisionSources, headLabel: string): SpecError[] {
  const ignoredOnHead = new Set(head.ignored);
  return base.sources
    .filter((source) => ignoredOnHead.has(source.file) && agentCount(source.text) > 0)
    .map((source) => ({
      file: `${headLabel}: ${source.file}`,
      line: 0,
      path: '',
      message: `held agent${agentCount(source.text) > 1 ? 's' : ''} ${agentNames(source)
        .map((n) => `"${n}"`)
        .join(
          ', ',
        )} in the base, and no longer declares a toolyard Agent (apiVersion: toolyard.dev/v1alpha1, kind: Agent)`,
      hint: 'to remove the agent, delete the file (or its document); otherwise restore its apiVersion and kind',
    }));
}

export async function diffCommand(argv: readonly string[], io: Io, cwd = process.cwd()): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      base: { type: 'string' },
      head: { type: 'string' },
      format: { type: 'string', default: 'text' },
      jobs: { type: 'string' },
    },
  });
  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 1 && jobs <= 64))
    throw new UsageError(`--jobs "${values.jobs}" is not a whole number from 1 to 64`);
  if (values.base === undefined) throw new UsageError('diff needs --base (a git ref or a directory)');
  if (!DIFF_FORMATS.includes(values.format as DiffFormat))
    throw new UsageError(`--format "${values.format}" is not one of ${DIFF_FORMATS.join(', ')}`);
  let base: Revision;
  let head: Revision;
  try {
    base = await resolveRevision(values.base, cwd);
    head =
      values.head === undefined
        ? { kind: 'directory', root: cwd, label: 'working tree' }
        : await resolveRevision(values.head, cwd);
  } catch (error) {
    if (!(error instanceof RevisionError)) throw error;
    io.stderr(`toolyard diff: ${error.message}`);
    return 1;
  }
  const [baseFiles, headFiles] = await Promise.all([
    revisionSources(base, positionals, cwd),
    revisionSources(head, positionals, cwd),
  ]);
  const vanished = vanishedAgents(baseFiles, headFiles, head.label);
  if (vanished.length > 0) {
    for (const error of vanished) io.stderr(formatSpecError(error));
    io.stderr(`${count(vanished.length, 'error')} in ${head.label}; no diff.`);
    return 1;
  }
  // A file with the same text on both sides holds the same agents, rendered the same (the renderer is pure):
  // it is neither checked nor rendered. Its agents are counted, and a file is read for names only when it
  // mentions the name of an agent in a changed file (a new file must not reuse a name).
  const headText = new Map(headFiles.sources.map((s) => [s.file, s.text]));
  // A near miss (a misspelt kind or apiVersion) is checked even unchanged: it is an error on both sides.
  const unchanged = baseFiles.sources.filter(
    (s) => headText.get(s.file) === s.text && !hasNearMissSpec(s.text),
  );
  const unchangedFiles = new Set(unchanged.map((s) => s.file));
  const sides = [
    { files: baseFiles, label: base.label },
    { files: headFiles, label: head.label },
  ].map(({ files, label }) => ({ sources: files.sources.filter((s) => !unchangedFiles.has(s.file)), label }));
  const changedCount = sides[0]!.sources.length + sides[1]!.sources.length;
  const [before, after] = await renderSidesInParallel(
    sides,
    jobs ?? (changedCount >= PARALLEL_FROM ? Math.min(availableParallelism(), 4) : 1),
  );
  const changedNames = new Set([...before!.names, ...after!.names].map((n) => n.name));
  const unchangedNames = new Set(
    unchanged
      .filter((s) => [...changedNames].some((name) => s.text.includes(name)))
      .flatMap((s) => agentNames(s)),
  );
  for (const [side, label] of [
    [before!, base.label],
    [after!, head.label],
  ] as const) {
    for (const { name, file, line } of side.names) {
      if (!unchangedNames.has(name)) continue;
      side.errors.push(
        formatSpecError({
          file: `${label}: ${file}`,
          line,
          path: '/metadata/name',
          message: `agent "${name}" is also defined in an unchanged file`,
          hint: 'agent names must be unique across a fleet: each renders to objects of its name',
        }),
      );
    }
  }
  for (const [files, side, label] of [
    [baseFiles, before!, base.label],
    [headFiles, after!, head.label],
  ] as const) {
    const errors = [...files.errors.map((e) => formatSpecError(e)), ...side.errors];
    if (errors.length === 0) continue;
    for (const error of errors) io.stderr(error);
    io.stderr(`${count(errors.length, 'error')} in ${label}; no diff.`);
    return 1;
  }
  const unchangedAgents = unchanged.reduce((sum, s) => sum + agentCount(s.text), 0);
  const fingerprints = new Map<FleetAgent, string>();
  for (const side of [before!, after!])
    for (const [i, agent] of side.agents.entries()) fingerprints.set(agent, side.fingerprints[i]!);
  const diff = diffFleets(
    before!.agents,
    after!.agents,
    { base: base.label, head: head.label },
    (a) => fingerprints.get(a) ?? '',
  );
  const result = { ...diff, unchanged: diff.unchanged + unchangedAgents };
  io.stdout(formatDiff(result, values.format as DiffFormat));
  return result.widens ? 3 : 0;
}
