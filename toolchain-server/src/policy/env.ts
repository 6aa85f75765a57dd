/**
 * The child environment, built from nothing: the configured passthrough names copied from the server's own
 * environment, the configured fixed values, then the caller's variables — each of which must be on the
 * allowlist (`CALLER_ENV_ALLOWED` plus the deployment's `env.callerAllowed`). Nothing else of the server's
 * environment reaches a child; `main.ts` also re-executes the server with only the passthrough names, so a
 * child reading /proc/<server pid>/environ finds nothing more either.
 */
import { ToolError } from '../errors.ts';
import { CALLER_ENV_ALLOWED, neverCallerEnvReason } from './env-names.ts';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const MAX_CALLER_ENV_ENTRIES = 64;
export const MAX_CALLER_ENV_VALUE_BYTES = 32 * 1024;

/** Why a caller may not set `name`, or undefined when it may. */
export function refusedEnvReason(name: string, extraAllowed: readonly string[] = []): string | undefined {
  if (!ENV_NAME.test(name)) return 'not a valid variable name';
  const never = neverCallerEnvReason(name);
  if (never) return never;
  if (CALLER_ENV_ALLOWED.includes(name) || extraAllowed.includes(name)) return undefined;
  return 'it is not on the caller allowlist';
}

export interface EnvPolicy {
  readonly passthrough: readonly string[];
  readonly set: Readonly<Record<string, string>>;
}

/** The environment every child starts from: passthrough names from `serverEnv`, then the fixed values. */
export function buildBaseEnv(
  policy: EnvPolicy,
  serverEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return { ...serverEnvironment(policy.passthrough, serverEnv), ...policy.set };
}

function allowedText(extraAllowed: readonly string[]): string {
  return [...CALLER_ENV_ALLOWED, ...extraAllowed].join(', ');
}

/** Merges a caller's variables over the base environment, refusing any name not on the allowlist. */
export function applyCallerEnv(
  base: Readonly<Record<string, string>>,
  callerEnv: Readonly<Record<string, string>> | undefined,
  extraAllowed: readonly string[] = [],
): Record<string, string> {
  const env = { ...base };
  if (!callerEnv) return env;
  const entries = Object.entries(callerEnv);
  if (entries.length > MAX_CALLER_ENV_ENTRIES)
    throw new ToolError('TOOLYARD_ENV_REFUSED', `at most ${MAX_CALLER_ENV_ENTRIES} variables may be set.`, {
      rule: 'env-allowlist',
    });
  for (const [name, value] of entries) {
    const reason = refusedEnvReason(name, extraAllowed);
    if (reason !== undefined)
      throw new ToolError('TOOLYARD_ENV_REFUSED', `${JSON.stringify(name)} is refused: ${reason}.`, {
        rule: 'env-allowlist',
        allowed: allowedText(extraAllowed),
      });
    if (
      typeof value !== 'string' ||
      value.includes('\0') ||
      Buffer.byteLength(value) > MAX_CALLER_ENV_VALUE_BYTES
    )
      throw new ToolError(
        'TOOLYARD_ENV_REFUSED',
        `${name}: value must be a string without NUL, at most 32 KiB.`,
        {
          rule: 'env-allowlist',
        },
      );
    env[name] = value;
  }
  return env;
}

/** The names the server process itself keeps when it re-executes with a scrubbed environment. */
export function serverEnvironment(
  passthrough: readonly string[],
  serverEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of passthrough) {
    const value = serverEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * What the server sets on itself when it re-executes, never on a child (a child's environment is built from the
 * passthrough names alone). glibc raises its trim threshold after the first large block is freed, so the ~8 MB
 * V8's compiler frees once start-up is done would stay in the process for good; pinning the threshold at glibc's
 * own default (128 KiB) hands them back (idle RSS 77.8 → 69.7 MB, docs/benchmarks.md). Ignored by other libcs.
 */
export const SERVER_OWN_ENV: Readonly<Record<string, string>> = {
  GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=131072',
};

/** The environment the server re-executes with: the passthrough names, then its own settings where not passed through. */
export function serverProcessEnvironment(
  passthrough: readonly string[],
  serverEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const env = serverEnvironment(passthrough, serverEnv);
  for (const [name, value] of Object.entries(SERVER_OWN_ENV))
    if (!passthrough.includes(name)) env[name] = value;
  return env;
}
