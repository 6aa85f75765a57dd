import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { formatSpecError, type LoadedSpec, type SpecError } from '../../../schema/src/load.ts';
import { DIFF_FORMATS, type DiffFormat, formatDiff } from '../fleet/diff-format.ts';
import { diffFleets } from '../fleet/fleet-diff.ts';
import type { FleetAgent } from '../fleet/fleet-model.ts';
import { renderInParallel } from '../fleet/parallel-render.ts';
import {
  type Revision,
  RevisionError,
  type RevisionSources,
  resolveRevision,
  revisionSources,
} from '../fleet/revision.ts';
import type { Io } from '../io.ts';
import { checkSpecSources, type ReadSpecsResult, type SpecSource } from '../read-specs.ts';
import { agentCount } from '../spec-files.ts';
import { UsageError } from '../usage-error.ts';

/** From this many changed specs on, a diff renders on worker threads. */
const PARALLEL_FROM = 200;

export const diffUsage = `Usage: toolyard diff --base <git-ref|dir> [--head <git-ref|dir>] [--format text|markdown|json] [path…]

Reports what a change does to a fleet of specs, per agent: authority added and removed (RBAC grants per
ServiceAccount and namespace), egress destinations per pod, credentials per container, images, MCP servers
per backend, and objects added, removed and changed. Both sides are rendered with the same renderer as
"toolyard synth". A git ref is read with git itself (ls-tree, cat-file), never checked out; a path that is
an existing directory is taken as a directory instead. Paths (default ".") select the specs on both sides: a
directory stands for every *.yaml/*.yml file with "kind: Agent" below it; a path missing on one side holds
no agents there. An agent that changed name pairs with its old self when it stays in the same file.

Exit codes: 0 nothing widens, 3 authority, egress or credentials widen (a CI gate), 1 an error (an invalid
spec on either side, an unknown ref), 2 a usage error.

Options:
      --base REF|DIR   the revision before the change (e.g. origin/main, a commit, a checkout)
      --head REF|DIR   the revision after it (default: the files as they are in the current directory)
      --format FORMAT  text (default), markdown (a pull-request comment) or json
      --jobs N         threads that render changed agents (default: up to 4 of the machine's cores from
                       ${PARALLEL_FROM} changed specs on, else 1)`;

/** Renders what must be rendered, both sides at once; `undefined` after printing why a side cannot be. */
async function renderSides(
  sides: readonly { readonly specs: readonly LoadedSpec[]; readonly label: string }[],
  io: Io,
  jobs: number | undefined,
): Promise<FleetAgent[][] | undefined> {
  const items = sides.flatMap((side) => side.specs.map((spec) => ({ file: spec.file, agent: spec.agent })));
  const threads = jobs ?? (items.length >= PARALLEL_FROM ? Math.min(availableParallelism(), 4) : 1);
  const outcomes = await renderInParallel(items, threads);
  const out: FleetAgent[][] = [];
  let at = 0;
  let failed = false;
  for (const side of sides) {
    const agents: FleetAgent[] = [];
    for (const spec of side.specs) {
      const outcome = outcomes[at++]!;
      if ('agent' in outcome) {
        agents.push(outcome.agent);
        continue;
      }
      failed = true;
      for (const p of outcome.problems)
        io.stderr(formatSpecError({ ...p, file: `${side.label}: ${spec.file}`, line: spec.lineOf(p.path) }));
    }
    out.push(agents);
  }
  return failed ? undefined : out;
}

function reportErrors(read: ReadSpecsResult, label: string, io: Io): boolean {
  if (read.errors.length === 0) return false;
  for (const error of read.errors) io.stderr(formatSpecError(error));
  io.stderr(`${read.errors.length} error(s) in ${label}; no diff.`);
  return true;
}

/** Agent names in a spec file, read without checking it (its text is the same on both sides). */
function agentNames(source: SpecSource): string[] {
  return parseAllDocuments(source.text)
    .map((d) => d.toJS() as { kind?: unknown; metadata?: { name?: unknown } } | null)
    .filter((d) => d?.kind === 'Agent')
    .map((d) => String(d?.metadata?.name ?? ''));
}

/** Checks one side's changed files. */
function checkSide(side: RevisionSources, unchanged: ReadonlySet<string>, label: string): ReadSpecsResult {
  const checked = checkSpecSources(side.sources.filter((s) => !unchanged.has(s.file)));
  const errors: SpecError[] = [
    ...side.errors,
    ...checked.errors.map((e) => ({ ...e, file: `${label}: ${e.file}` })),
  ];
  return { specs: checked.specs, errors };
}

const withoutName = (spec: LoadedSpec) =>
  JSON.stringify({ ...spec.agent, metadata: { ...spec.agent.metadata, name: '' } });

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
  // A file with the same text on both sides holds the same agents, rendered the same (the renderer is pure):
  // it is neither checked nor rendered. Its agents are counted, and a file is read for names only when it
  // mentions the name of an agent in a changed file (a new file must not reuse a name).
  const headText = new Map(headFiles.sources.map((s) => [s.file, s.text]));
  const unchanged = baseFiles.sources.filter((s) => headText.get(s.file) === s.text);
  const unchangedFiles = new Set(unchanged.map((s) => s.file));
  const before = checkSide(baseFiles, unchangedFiles, base.label);
  const after = checkSide(headFiles, unchangedFiles, head.label);
  const changedNames = new Set([...before.specs, ...after.specs].map((s) => s.agent.metadata.name));
  const unchangedNames = unchanged
    .filter((s) => [...changedNames].some((name) => s.text.includes(name)))
    .flatMap((s) => agentNames(s));
  for (const [side, label] of [
    [after, head.label],
    [before, base.label],
  ] as const) {
    for (const spec of side.specs) {
      if (!unchangedNames.includes(spec.agent.metadata.name)) continue;
      (side.errors as SpecError[]).push({
        file: `${label}: ${spec.file}`,
        line: spec.lineOf('/metadata/name'),
        path: '/metadata/name',
        message: `agent "${spec.agent.metadata.name}" is also defined in an unchanged file`,
        hint: 'agent names must be unique across a fleet: each renders to objects of its name',
      });
    }
  }
  const unchangedAgents = unchanged.reduce((sum, s) => sum + agentCount(s.text), 0);
  if (reportErrors(before, base.label, io) || reportErrors(after, head.label, io)) return 1;

  // Agents whose spec is equal on both sides (a file reformatted, or split) render the same too.
  const afterByName = new Map(after.specs.map((s) => [s.agent.metadata.name, s]));
  const same = new Set<string>();
  for (const spec of before.specs) {
    const other = afterByName.get(spec.agent.metadata.name);
    if (other && other.file === spec.file && JSON.stringify(other.agent) === JSON.stringify(spec.agent))
      same.add(spec.agent.metadata.name);
  }
  const changed = (s: LoadedSpec) => !same.has(s.agent.metadata.name);
  const rendered = await renderSides(
    [
      { specs: before.specs.filter(changed), label: base.label },
      { specs: after.specs.filter(changed), label: head.label },
    ],
    io,
    jobs,
  );
  if (!rendered) return 1;
  const [baseAgents = [], headAgents = []] = rendered;
  const fingerprints = new Map<FleetAgent, string>();
  for (const [specs, agents] of [
    [before.specs.filter(changed), baseAgents],
    [after.specs.filter(changed), headAgents],
  ] as const) {
    for (const [i, s] of specs.entries()) fingerprints.set(agents[i]!, withoutName(s));
  }
  const diff = diffFleets(
    baseAgents,
    headAgents,
    { base: base.label, head: head.label },
    (a) => fingerprints.get(a) ?? '',
  );
  const result = { ...diff, unchanged: diff.unchanged + same.size + unchangedAgents };
  io.stdout(formatDiff(result, values.format as DiffFormat));
  return result.widens ? 3 : 0;
}
