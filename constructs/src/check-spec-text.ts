/** Spec text → checked agents: the schema and the semantic checks, every problem located at `file:line`. */
import {
  type LoadedSpec,
  locate,
  parseSpecDocuments,
  type SpecError,
  sortByLine,
} from '../../schema/src/load.ts';
import { checkAgentDocument } from './check-agent.ts';
import type { AgentPlan } from './plan.ts';

/** A valid Agent document and the plan its check made (`renderAgent(agent, plan)` skips checking it again). */
export interface CheckedSpec extends LoadedSpec {
  readonly plan: AgentPlan;
}

export type CheckResult =
  | { readonly ok: true; readonly specs: readonly CheckedSpec[] }
  | { readonly ok: false; readonly errors: readonly SpecError[] };

export function checkSpecText(text: string, file: string): CheckResult {
  const parsed = parseSpecDocuments(text, file);
  if (!parsed.ok) return parsed;
  const errors: SpecError[] = [];
  const specs: CheckedSpec[] = [];
  for (const doc of parsed.documents) {
    const checked = checkAgentDocument(doc.value);
    if (checked.ok) specs.push({ file, agent: checked.agent, plan: checked.plan, lineOf: doc.lineOf });
    else errors.push(...checked.problems.map((problem) => locate(problem, doc, file)));
  }
  if (errors.length > 0) return { ok: false, errors: sortByLine(errors) };
  return { ok: true, specs };
}
