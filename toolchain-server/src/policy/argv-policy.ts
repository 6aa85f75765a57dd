/**
 * The argv policy is positive: each allowed command has a table (`policy/argv/*.ts`, one file per tool family)
 * of the subcommands and options it may take and what each value is, and the shared option parser
 * (`policy/options/parse.ts`) reads argv the way that tool does. Anything the table does not list is refused
 * with the rule and what is allowed; a command with no table is refused whole.
 *
 * What comes back is the argv to run: options the caller abbreviated, clustered or wrote in old-style letters
 * come back in their full spelling, so the tool receives exactly what the policy approved.
 */
import { commandTable, refusedCommand, tabledCommands } from './argv/index.ts';
import { checkPaths, type PathConfinement } from './options/check.ts';
import { parseCommand, refuse } from './options/parse.ts';

export { commandEnvironment, commandTable, tabledCommands } from './argv/index.ts';

export interface ArgvPolicyContext {
  /** The call's working directory, already confined to the roots. */
  readonly cwd: string;
  /** Confinement of path-like values to the workspace roots. */
  readonly paths: PathConfinement;
  /** The child's environment sets POSIXLY_CORRECT, which stops getopt at the first operand. */
  readonly posixlyCorrect?: boolean;
}

/**
 * Returns the argv to run for `name args…` (without the name), or throws a TOOLYARD_POLICY_DENIED ToolError
 * naming the rule. `name` is the bare allowlisted command name.
 */
export function approveArgv(name: string, args: readonly string[], ctx: ArgvPolicyContext): string[] {
  const refusal = refusedCommand(name);
  if (refusal) refuse(refusal.rule, refusal.why, refusal.instead ?? 'an allowed command with an argv policy');
  const table = commandTable(name);
  if (!table)
    refuse(
      'no-argv-policy',
      `\`${name}\` has no argv policy, so none of its arguments can be checked.`,
      `commands with a policy: ${tabledCommands().join(', ')}`,
    );
  const parsed = parseCommand(table, args, { posixlyCorrect: ctx.posixlyCorrect ?? false });
  checkPaths(parsed, ctx.cwd, ctx.paths);
  // GNU sed compiles each -e/-f script as it reads it: a `--sandbox` after it comes too late. Put one first.
  return name === 'sed' && parsed.argv[0] !== '--sandbox' ? ['--sandbox', ...parsed.argv] : parsed.argv;
}
