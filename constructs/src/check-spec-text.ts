/** Spec text → checked agents: the schema and the semantic checks, every problem located at `file:line`. */
import { type LoadedSpec, loadSpecText, type SpecError } from '../../schema/src/load.ts';
import { planAgent } from './plan.ts';
import { checkAgentPlan } from './semantic-checks.ts';

export type CheckResult =
  | { readonly ok: true; readonly specs: readonly LoadedSpec[] }
  | { readonly ok: false; readonly errors: readonly SpecError[] };

export function checkSpecText(text: string, file: string): CheckResult {
  const loaded = loadSpecText(text, file);
  if (!loaded.ok) return loaded;
  const errors: SpecError[] = [];
  for (const spec of loaded.specs) {
    for (const problem of checkAgentPlan(planAgent(spec.agent))) {
      errors.push({ ...problem, file, line: spec.lineOf(problem.path) });
    }
  }
  if (errors.length > 0) return { ok: false, errors: errors.sort((a, b) => a.line - b.line) };
  return loaded;
}
