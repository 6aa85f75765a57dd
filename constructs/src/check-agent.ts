/**
 * Every problem of one Agent document in one pass: the schema's, and the semantic checks' on the part the
 * schema accepted (see schema/src/accepted-part.ts), so a misspelt field does not hide a port clash.
 */
import { acceptedPart } from '../../schema/src/accepted-part.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { friendlyProblems, type SpecProblem, schemaErrors } from '../../schema/src/validator.ts';
import { type AgentPlan, planAgent } from './plan.ts';
import { rejectedEntries } from './rejected-entries.ts';
import { checkAgentPlan } from './semantic-checks.ts';

export type AgentCheck =
  | {
      readonly ok: true;
      readonly agent: ToolyardAgent;
      /** Its plan, checked: `renderAgent(agent, plan)` reuses it. */
      readonly plan: AgentPlan;
    }
  | { readonly ok: false; readonly problems: readonly SpecProblem[] };

export function checkAgentDocument(document: unknown): AgentCheck {
  const errors = schemaErrors(document);
  if (errors.length === 0) {
    const agent = document as ToolyardAgent;
    const plan = planAgent(agent);
    const problems = checkAgentPlan(plan);
    return problems.length > 0 ? { ok: false, problems } : { ok: true, agent, plan };
  }
  const problems = friendlyProblems(errors, document);
  const accepted = acceptedPart(document, errors);
  if (!accepted) return { ok: false, problems };
  const within = (path: string, removed: string) => path === removed || path.startsWith(`${removed}/`);
  const semantic = checkAgentPlan(planAgent(accepted.agent), rejectedEntries(document, accepted.removed))
    .map((problem) => ({ ...problem, path: accepted.originalPointer(problem.path) }))
    // A problem about a place a default filled in for a rejected value is not the spec's.
    .filter((problem) => !accepted.removed.some((removed) => within(problem.path, removed)));
  return { ok: false, problems: [...problems, ...semantic] };
}
