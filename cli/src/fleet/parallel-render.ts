/**
 * Checks and renders one side of a diff into fleet views (`fleetAgent`), on worker threads when a change
 * touches hundreds of agents: each worker checks and renders a slice of the changed spec files. Problems come
 * back as the text the CLI prints; names and fingerprints (a spec's hash but for its name, to recognise a
 * renamed agent) come back with each agent.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { checkSpecText } from '../../../constructs/src/check-spec-text.ts';
import { formatSpecError, type SpecError } from '../../../schema/src/load.ts';
import { duplicateNames, type SpecSource, UNIQUE_NAME_HINT } from '../read-specs.ts';
import { renderSpec } from '../render-specs.ts';
import { workerSlices } from '../worker-slices.ts';
import { type FleetAgent, fleetAgent } from './fleet-model.ts';

export interface RenderedSide {
  readonly agents: FleetAgent[];
  readonly fingerprints: string[];
  readonly names: { readonly name: string; readonly file: string; readonly line: number }[];
  /** Problems, formatted as the CLI prints them. */
  readonly errors: string[];
}

/**
 * Checks and renders spec files; `label` names the side in problems (`main: agents/x.yaml:3: …`). File by file
 * (a file's parsed YAML is garbage once its agents are rendered), with the problems in `checkSpecSources`'s
 * order: each file's, then names used twice.
 */
export function renderSources(sources: readonly SpecSource[], label: string): RenderedSide {
  const side: RenderedSide = { agents: [], fingerprints: [], names: [], errors: [] };
  const located = (e: SpecError) => formatSpecError({ ...e, file: `${label}: ${e.file}` });
  const renderErrors: string[] = [];
  const named: { file: string; agent: { metadata: { name: string } }; lineOf(pointer: string): number }[] =
    [];
  for (const source of sources) {
    const checked = checkSpecText(source.text, source.file);
    if (!checked.ok) {
      side.errors.push(...checked.errors.map(located));
      continue;
    }
    for (const spec of checked.specs) {
      const name = spec.agent.metadata.name;
      const line = spec.lineOf('/metadata/name');
      side.names.push({ name, file: spec.file, line });
      named.push({ file: spec.file, agent: { metadata: { name } }, lineOf: () => line });
      const outcome = renderSpec(spec, `${label}: ${spec.file}`);
      if (!outcome.ok) {
        renderErrors.push(...outcome.problems);
        continue;
      }
      side.agents.push(fleetAgent(spec.file, outcome.rendered));
      const anonymous = JSON.stringify({ ...spec.agent, metadata: { ...spec.agent.metadata, name: '' } });
      side.fingerprints.push(createHash('sha256').update(anonymous).digest('hex'));
    }
  }
  side.errors.push(...duplicateNames(named).map(located), ...renderErrors);
  return side;
}

/** Each side's spec sources (all of them, or a worker's slice) and the label naming the side. */
type Sides = readonly { readonly sources: readonly SpecSource[]; readonly label: string }[];

// This module's own file, as source (ESM) or compiled (CommonJS, where import.meta is empty).
const SELF = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);

// This thread renders the first slice while `jobs - 1` workers render the others: one module load and one
// copy of results fewer than a worker per slice, and no thread idles.
const diffRunner = workerSlices<Sides, RenderedSide[]>({
  name: 'diff',
  module: SELF,
  thisThreadTakesFirstSlice: true,
  compute: (slice) => slice.map((side) => renderSources(side.sources, side.label)),
});

/** Both sides, on `jobs` threads (each takes a slice of both); names are checked across slices here. */
export async function renderSidesInParallel(sides: Sides, jobs: number): Promise<RenderedSide[]> {
  if (jobs <= 1) return sides.map((s) => renderSources(s.sources, s.label));
  const slice = <T>(items: readonly T[], i: number) => {
    const size = Math.ceil(items.length / jobs);
    return items.slice(i * size, (i + 1) * size);
  };
  const part = (i: number) => sides.map((side) => ({ sources: slice(side.sources, i), label: side.label }));
  const outputs = await diffRunner.run(Array.from({ length: jobs }, (_, i) => part(i)));
  return sides.map((side, index) => {
    const merged: RenderedSide = { agents: [], fingerprints: [], names: [], errors: [] };
    for (const output of outputs) {
      const part = output[index]!;
      merged.agents.push(...part.agents);
      merged.fingerprints.push(...part.fingerprints);
      merged.names.push(...part.names);
      merged.errors.push(...part.errors);
    }
    const seen = new Map<string, string>();
    for (const { name, file, line } of merged.names) {
      const earlier = seen.get(name);
      if (earlier === undefined) seen.set(name, file);
      else if (!merged.errors.some((e) => e.includes(`agent "${name}" is also defined in`)))
        merged.errors.push(
          formatSpecError({
            file: `${side.label}: ${file}`,
            line,
            path: '/metadata/name',
            message: `agent "${name}" is also defined in ${earlier}`,
            hint: UNIQUE_NAME_HINT, // as in one thread (checkSpecSources)
          }),
        );
    }
    return merged;
  });
}
