/**
 * The child environment. Built from nothing: the configured passthrough names copied from the server's own
 * environment, the configured fixed values, then the caller's variables minus the refused ones. Nothing else
 * of the server's environment (tokens, cloud keys) reaches a child.
 */
import { ToolError } from '../errors.ts';

/** Variables a caller may never set: they load code into, or run commands from, the tools they configure. */
export const REFUSED_ENV_NAMES: readonly string[] = [
  'LD_PRELOAD',
  'LD_AUDIT',
  'LD_LIBRARY_PATH',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_REPL_EXTERNAL_MODULE',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONSTARTUP',
  'PYTHONINSPECT',
  'PYTHONUSERBASE',
  'PYTHONEXECUTABLE',
  'PYTHONBREAKPOINT',
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PROMPT_COMMAND',
  'PS4',
  'IFS',
  'PATH',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'PERL5DB',
  'RUBYOPT',
  'RUBYLIB',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'MAKEFLAGS',
  'MAKEFILES',
  'GNUMAKEFLAGS',
  'RUSTC_WRAPPER',
  'RUSTC_WORKSPACE_WRAPPER',
  'CARGO_BUILD_RUSTC_WRAPPER',
  'CARGO_TARGET_DIR_RUNNER',
  'GOFLAGS',
  // Names of the compilers and linkers that build tools run, and their plugin-capable flags.
  'RUSTC',
  'RUSTDOC',
  'CC',
  'CXX',
  'CPP',
  'LD',
  'AR',
  'FC',
  'CGO_CFLAGS',
  'CGO_CPPFLAGS',
  'CGO_CXXFLAGS',
  'CGO_LDFLAGS',
  'CGO_FFLAGS',
  'RUSTFLAGS',
  'RUSTDOCFLAGS',
  'CARGO_ENCODED_RUSTFLAGS',
  // Where tools look for per-user configuration (.gitconfig, .npmrc, ...), which can name programs to run.
  'HOME',
  'XDG_CONFIG_HOME',
  'XDG_CONFIG_DIRS',
  // Where tools read configuration that can name programs: cargo's config, terraform's CLI config and
  // injected arguments, helm's plugin directory, Go's toolchain switch (which downloads and runs a toolchain).
  'CARGO_HOME',
  'TF_CLI_CONFIG_FILE',
  'TERRAFORM_CONFIG',
  'TF_PLUGIN_CACHE_DIR',
  'HELM_PLUGINS',
  'GOTOOLCHAIN',
  'GOENV',
  'SHELL',
  // glibc loads code from these (iconv modules, locale data).
  'GCONV_PATH',
  'LOCPATH',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'SSH_ASKPASS',
];

/** Prefixes a caller may never set. `GIT_*` covers GIT_SSH_COMMAND, GIT_EXEC_PATH, GIT_CONFIG_*, hooks... */
export const REFUSED_ENV_PREFIXES: readonly string[] = [
  'LD_',
  'DYLD_',
  'BASH_FUNC_',
  'GIT_',
  'NPM_CONFIG_',
  'YARN_',
  'PNPM_',
  'CARGO_TARGET_',
  'CARGO_BUILD_',
  'TF_CLI_ARGS',
];

/** GIT_* variables that only carry identity or dates, allowed despite the GIT_ prefix rule. */
export const ALLOWED_GIT_ENV: readonly string[] = [
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const MAX_CALLER_ENV_ENTRIES = 64;
export const MAX_CALLER_ENV_VALUE_BYTES = 32 * 1024;

/** Why `name` may not be set by a caller, or undefined when it may. */
export function refusedEnvReason(name: string): string | undefined {
  if (!ENV_NAME.test(name)) return 'not a valid variable name';
  const upper = name.toUpperCase();
  if (ALLOWED_GIT_ENV.includes(upper)) return undefined;
  if (REFUSED_ENV_NAMES.includes(upper)) return 'it loads code or commands into the tools';
  const prefix = REFUSED_ENV_PREFIXES.find((p) => upper.startsWith(p));
  if (prefix) return `variables starting with ${prefix} configure commands or code the tools run`;
  return undefined;
}

export interface EnvPolicy {
  readonly passthrough: readonly string[];
  readonly set: Readonly<Record<string, string>>;
}

/**
 * Builds the base environment once at start. Names listed in `secretNames` (e.g. the bearer token's variable)
 * are never copied even if passthrough lists them.
 */
export function buildBaseEnv(
  policy: EnvPolicy,
  serverEnv: Readonly<Record<string, string | undefined>>,
  secretNames: readonly string[] = [],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of policy.passthrough) {
    if (secretNames.includes(name)) continue;
    const value = serverEnv[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(policy.set)) env[name] = value;
  return env;
}

/** Merges a caller's variables over the base environment, refusing what the policy forbids. */
export function applyCallerEnv(
  base: Readonly<Record<string, string>>,
  callerEnv: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const env = { ...base };
  if (!callerEnv) return env;
  const entries = Object.entries(callerEnv);
  if (entries.length > MAX_CALLER_ENV_ENTRIES)
    throw new ToolError('TOOLYARD_ENV_REFUSED', `at most ${MAX_CALLER_ENV_ENTRIES} variables may be set.`, {
      rule: 'env-allowlist',
    });
  for (const [name, value] of entries) {
    const reason = refusedEnvReason(name);
    if (reason !== undefined)
      throw new ToolError('TOOLYARD_ENV_REFUSED', `${JSON.stringify(name)} is refused: ${reason}.`, {
        rule: 'env-allowlist',
        allowed: 'ordinary variables such as CI, RUST_BACKTRACE, GOOS or test settings',
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
