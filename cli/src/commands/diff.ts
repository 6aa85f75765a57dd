import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { AgentSpecError } from '../../../constructs/src/agent-spec-error.ts';
import { renderAgent } from '../../../constructs/src/render.ts';
import { formatSpecError, type LoadedSpec, type SpecError } from '../../../schema/src/load.ts';
import { DIFF_FORMATS, type DiffFormat, formatDiff } from '../fleet/diff-format.ts';
import { diffFleets } from '../fleet/fleet-diff.ts';
import { type FleetAgent, fleetAgent } from '../fleet/fleet-model.ts';
import {
  type Revision,
  RevisionError,
  type RevisionSources,
  resolveRevision,
  revisionSources,
} from '../fleet/revision.ts';
import type { Io } from '../io.ts';
import { checkSpecSources, type ReadSpecsResult, type SpecSource } from '../read-specs.ts';
import { UsageError } from '../usage-error.ts';

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
      --format FORMAT  text (default), markdown (a pull-request comment) or json`;

/** Renders what must be rendered; `undefined` after printing why a side cannot be. */
function renderSide(specs: readonly LoadedSpec[], io: Io, label: string): FleetAgent[] | undefined {
  const out: FleetAgent[] = [];
  for (const spec of specs) {
    try {
      out.push(fleetAgent(spec.file, renderAgent(spec.agent)));
    } catch (error) {
      if (!(error instanceof AgentSpecError)) throw error;
      for (const p of error.problems)
        io.stderr(formatSpecError({ ...p, file: `${label}: ${spec.file}`, line: spec.lineOf(p.path) }));
      return undefined;
    }
  }
  return out;
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

/** Checks one side's changed files; names from unchanged files still count for duplicates. */
function checkSide(
  side: RevisionSources,
  unchanged: ReadonlySet<string>,
  unchangedNames: readonly string[],
  label: string,
): ReadSpecsResult {
  const checked = checkSpecSources(side.sources.filter((s) => !unchanged.has(s.file)));
  const errors: SpecError[] = [
    ...side.errors,
    ...checked.errors.map((e) => ({ ...e, file: `${label}: ${e.file}` })),
  ];
  const taken = new Set(unchangedNames);
  for (const spec of checked.specs) {
    const name = spec.agent.metadata.name;
    if (taken.has(name))
      errors.push({
        file: `${label}: ${spec.file}`,
        line: spec.lineOf('/metadata/name'),
        path: '/metadata/name',
        message: `agent "${name}" is also defined in an unchanged file`,
        hint: 'agent names must be unique across a fleet: each renders to objects of its name',
      });
  }
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
    },
  });
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
  // it is neither checked nor rendered, only its agents' names are read (for duplicates across files).
  const headText = new Map(headFiles.sources.map((s) => [s.file, s.text]));
  const unchangedFiles = new Set(
    baseFiles.sources.filter((s) => headText.get(s.file) === s.text).map((s) => s.file),
  );
  const unchangedNames = baseFiles.sources
    .filter((s) => unchangedFiles.has(s.file))
    .flatMap((s) => agentNames(s));
  const before = checkSide(baseFiles, unchangedFiles, unchangedNames, base.label);
  const after = checkSide(headFiles, unchangedFiles, unchangedNames, head.label);
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
  const baseAgents = renderSide(before.specs.filter(changed), io, base.label);
  const headAgents = baseAgents && renderSide(after.specs.filter(changed), io, head.label);
  if (!baseAgents || !headAgents) return 1;
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
  const result = { ...diff, unchanged: diff.unchanged + same.size + unchangedNames.length };
  io.stdout(formatDiff(result, values.format as DiffFormat));
  return result.widens ? 3 : 0;
}
