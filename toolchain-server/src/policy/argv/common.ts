/** What every argv rule shares: the call's context, the denial, and finding the first positional argument. */
import { ToolError } from '../../errors.ts';

export interface ArgvPolicyContext {
  /** The already-confined working directory of the call. */
  readonly cwd: string;
  /** True when `path` (relative to `cwd` or absolute) resolves, symlinks followed, inside a workspace root. */
  readonly isInsideRoots: (path: string, cwd: string) => boolean;
}

export function deny(rule: string, message: string, allowed: string): never {
  throw new ToolError('TOOLYARD_POLICY_DENIED', message, { rule, allowed });
}

export function firstPositional(args: readonly string[]): string | undefined {
  for (const arg of args) {
    if (arg === '--') return undefined;
    if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}
