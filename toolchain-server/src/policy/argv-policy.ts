/**
 * The argv policy is positive: each allowed command has a table (`policy/argv/*.ts`, one file per tool family)
 * of the subcommands and options it may take and what each value is, and the shared option parser
 * (`policy/options/parse.ts`) reads argv the way that tool does. Anything the table does not list is refused
 * with the rule and what is allowed. A command with no table runs on the generic confined path when every call is
 * confined in the kernel (its path-like words still checked), and is refused whole otherwise.
 *
 * What comes back is the argv to run: options the caller abbreviated, clustered or wrote in old-style letters
 * come back in their full spelling, so the tool receives exactly what the policy approved.
 */
import { commandTable, refusedCommand, tabledCommands } from './argv/index.ts';
import { path, pathspec } from './options/build.ts';
import { checkPaths, type PathConfinement } from './options/check.ts';
import { type ParsedCommand, parseCommand, refuse } from './options/parse.ts';
import type { CommandSpec } from './options/spec.ts';

export { commandEnvironment, commandTable, tabledCommands } from './argv/index.ts';

export interface ArgvPolicyContext {
  /** The call's working directory, already confined to the roots. */
  readonly cwd: string;
  /** Confinement of path-like values to the workspace roots. */
  readonly paths: PathConfinement;
  /** The child's environment sets POSIXLY_CORRECT, which stops getopt at the first operand. */
  readonly posixlyCorrect?: boolean;
  /** The real file name of the resolved binary (`awk` → `gawk` or `mawk`): some tables depend on it. */
  readonly program?: string;
  /**
   * Every call runs under kernel confinement (Landlock enforced): a listed command without a table then takes
   * the generic confined path instead of being refused. Otherwise, why not (for the refusal).
   */
  readonly confinement?: { readonly enforced: true } | { readonly enforced: false; readonly status: string };
}

const GENERIC: CommandSpec = { name: 'generic', options: [] };

/**
 * The generic confined path: every word that names a path — the word, the value after `=` in `--opt=value`, or
 * an attached value such as `-I/usr/include` — must resolve inside the roots when it looks like one (a slash,
 * `~`, or an existing file). The argv is run as given; the kernel confinement of the call is
 * what bounds the rest (docs/confinement.md#commands-without-a-table).
 */
function genericArgv(name: string, args: readonly string[], ctx: ArgvPolicyContext): string[] {
  const deferred: ParsedCommand['deferred'] = [];
  for (const word of args) {
    const candidates = new Set([word]);
    if (word.startsWith('-')) {
      const eq = word.indexOf('=');
      if (eq > 0) candidates.add(word.slice(eq + 1));
      const attached = /^-{1,2}[A-Za-z0-9]+([/.~].*)$/.exec(word)?.[1];
      if (attached) candidates.add(attached);
      candidates.delete(word);
    }
    // A word with a slash is judged as a path (through its nearest existing ancestor, so a workspace symlink
    // that leads out is caught even when the file behind it does not exist); others only when they look like one.
    for (const value of candidates)
      deferred.push({
        value,
        spec: value.includes('/') ? path : pathspec,
        what: `argument ${JSON.stringify(word)} of \`${name}\``,
        table: GENERIC,
      });
  }
  checkPaths(
    { argv: [...args], deferred, directories: [], tables: [], options: [], operands: [] },
    ctx.cwd,
    ctx.paths,
  );
  return [...args];
}

/**
 * Returns the argv to run for `name args…` (without the name), or throws a TOOLYARD_POLICY_DENIED ToolError
 * naming the rule. `name` is the bare allowlisted command name.
 */
export function approveArgv(name: string, args: readonly string[], ctx: ArgvPolicyContext): string[] {
  const refusal = refusedCommand(name);
  if (refusal) refuse(refusal.rule, refusal.why, refusal.instead ?? 'an allowed command with an argv policy');
  const table = commandTable(name, ctx.program);
  if (!table) {
    if (ctx.confinement?.enforced) return genericArgv(name, args, ctx);
    refuse(
      'no-argv-policy',
      `\`${name}\` has no argv policy, so none of its arguments can be checked; a command without one runs only under kernel confinement, which is ${ctx.confinement?.status ?? 'off'} on this server.`,
      `commands with a policy: ${tabledCommands().join(', ')}; or run the server where Landlock is available with limits.confinement best-effort or required (docs/confinement.md)`,
    );
  }
  const parsed = parseCommand(table, args, { posixlyCorrect: ctx.posixlyCorrect ?? false });
  checkPaths(parsed, ctx.cwd, ctx.paths);
  // sed's and gawk's tables prepend `--sandbox` (text-tools.ts): no script is compiled before it.
  return parsed.argv;
}
