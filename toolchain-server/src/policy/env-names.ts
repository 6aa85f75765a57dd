/**
 * Which environment variables reach a child. Kept free of Node APIs: the config schema (which the renderer
 * bundles for the browser) checks `env.callerAllowed` against the refused names below.
 */

/** Passed through from the server's environment when the config has no `env.passthrough`: PATH and locale. */
export const DEFAULT_PASSTHROUGH: readonly string[] = [
  'PATH',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'TZ',
];

/**
 * Variables a caller of `exec_allowed` may set: ones that no tool reads as code, as a program to run, as a
 * place to load configuration or modules from, or as extra command-line options. Everything else is refused;
 * a deployment can add its own names with `env.callerAllowed`.
 */
export const CALLER_ENV_ALLOWED: readonly string[] = [
  'CI',
  'TZ',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'NO_COLOR',
  'FORCE_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'COLUMNS',
  'TERM',
  'SOURCE_DATE_EPOCH',
  'DEBUG',
  'RUST_BACKTRACE',
  'RUST_LOG',
  'RUST_TEST_THREADS',
  'RUST_MIN_STACK',
  'CARGO_TERM_COLOR',
  'CARGO_TERM_VERBOSE',
  'CARGO_TERM_QUIET',
  'CARGO_INCREMENTAL',
  'GOOS',
  'GOARCH',
  'GOAMD64',
  'GOARM',
  'CGO_ENABLED',
  'GOMAXPROCS',
  'GOGC',
  'NODE_ENV',
  'NODE_NO_WARNINGS',
  'NODE_DISABLE_COLORS',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONUNBUFFERED',
  'PYTHONHASHSEED',
  'PYTHONIOENCODING',
  'PYTHONUTF8',
  'PYTHONFAULTHANDLER',
  'PYTHONDEVMODE',
  'PYTEST_DISABLE_PLUGIN_AUTOLOAD',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'TF_IN_AUTOMATION',
  'TF_INPUT',
  'TF_LOG',
  'CHECKPOINT_DISABLE',
];

/**
 * Variables that are never settable by a caller, even when a deployment lists them in `env.callerAllowed`:
 * each loads code, names a program, adds options, or points a tool at configuration or modules elsewhere.
 * Compared case-insensitively (npm reads npm_config_* in any case).
 */
export const NEVER_CALLER_ENV: readonly string[] = [
  'PATH',
  'HOME',
  'SHELL',
  'ENV',
  'BASH_ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PROMPT_COMMAND',
  'PS4',
  'IFS',
  'POSIXLY_CORRECT',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_REPL_EXTERNAL_MODULE',
  'NODE_EXTRA_CA_CERTS',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONSTARTUP',
  'PYTHONINSPECT',
  'PYTHONUSERBASE',
  'PYTHONEXECUTABLE',
  'PYTHONBREAKPOINT',
  'PYTHONWARNINGS',
  'PYTHONSAFEPATH',
  'PYTEST_ADDOPTS',
  'PYTEST_PLUGINS',
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
  'MFLAGS',
  'RUSTC',
  'RUSTDOC',
  'RUSTFLAGS',
  'RUSTDOCFLAGS',
  'RUSTC_WRAPPER',
  'RUSTC_WORKSPACE_WRAPPER',
  'GOFLAGS',
  'GOTOOLCHAIN',
  'GOENV',
  'GOROOT',
  'GOPATH',
  'GOWORK',
  'GOPROXY',
  'GONOSUMDB',
  'GOINSECURE',
  'CC',
  'CXX',
  'CPP',
  'LD',
  'AR',
  'AS',
  'FC',
  'CFLAGS',
  'CXXFLAGS',
  'CPPFLAGS',
  'LDFLAGS',
  'TF_CLI_CONFIG_FILE',
  'TERRAFORM_CONFIG',
  'TF_PLUGIN_CACHE_DIR',
  'HELM_PLUGINS',
  'XDG_CONFIG_HOME',
  'XDG_CONFIG_DIRS',
  'XDG_DATA_HOME',
  'GCONV_PATH',
  'LOCPATH',
  'TERMINFO',
  'TERMINFO_DIRS',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'MANPAGER',
  'BROWSER',
  'LESSOPEN',
  'LESSCLOSE',
  'LESSKEY',
  'SSH_ASKPASS',
  'SSH_AUTH_SOCK',
  'TMPDIR',
  // The broker proxy (proxy-env.ts): a caller must not route around it or present another identity.
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'ALL_PROXY',
  'FTP_PROXY',
  'NO_PROXY',
];

/** Prefixes never settable by a caller (GIT_* covers GIT_SSH_COMMAND, GIT_CONFIG_*, GIT_EXEC_PATH, …). */
export const NEVER_CALLER_ENV_PREFIXES: readonly string[] = [
  'LD_',
  'DYLD_',
  'BASH_FUNC_',
  'GIT_',
  'NPM_CONFIG_',
  'YARN_',
  'PNPM_',
  'CARGO_',
  'CGO_',
  'RUSTUP_',
  'TF_CLI_ARGS',
  'TF_VAR_',
  'PIP_',
  'UV_',
  'HELM_',
];

/** Identity variables allowed despite the GIT_ prefix. */
const GIT_IDENTITY = /^GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)$/;
/** CARGO_ and CGO_ variables that only choose output style or a build switch. */
const HARMLESS_PREFIXED = new Set([
  'CARGO_TERM_COLOR',
  'CARGO_TERM_VERBOSE',
  'CARGO_TERM_QUIET',
  'CARGO_INCREMENTAL',
  'CGO_ENABLED',
]);

/** Why `name` may never be set by a caller, or undefined when it is not on the refused lists. */
export function neverCallerEnvReason(name: string): string | undefined {
  const upper = name.toUpperCase();
  if (GIT_IDENTITY.test(upper) || HARMLESS_PREFIXED.has(upper)) return undefined;
  if (NEVER_CALLER_ENV.includes(upper)) return 'it loads code, names a program or redirects configuration';
  const prefix = NEVER_CALLER_ENV_PREFIXES.find((p) => upper.startsWith(p));
  if (prefix) return `variables starting with ${prefix} configure programs or code the tools run`;
  return undefined;
}
