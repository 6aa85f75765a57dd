import type { SpecProblem } from '../../schema/src/validator.ts';

/** An Agent spec that the schema or the semantic checks reject; carries every problem, not just the first. */
export class AgentSpecError extends Error {
  readonly problems: readonly SpecProblem[];

  constructor(agent: string, problems: readonly SpecProblem[]) {
    const lines = problems.map((p) => `  ${p.path}: ${p.message}${p.hint ? ` (${p.hint})` : ''}`);
    super(`agent "${agent}" has ${problems.length} problem(s):\n${lines.join('\n')}`);
    this.name = 'AgentSpecError';
    this.problems = problems;
  }
}
