/**
 * The catalogue of coded errors the toolchain server returns. Every denial or tool failure carries one of these
 * codes in its text and in `structuredContent.error.code`; `docs/toolchain-server.md` lists them and a test keeps
 * the two in sync.
 */

export interface ErrorCodeInfo {
  /** What happened, in one sentence, as the docs print it. */
  readonly summary: string;
  /** Whether the call reached a policy decision (`denied`) or failed around it (`error`). */
  readonly decision: 'denied' | 'error';
}

export const ERROR_CODES = {
  TOOLYARD_POLICY_DENIED: {
    summary:
      'An argument policy rule refused the argv (interpreter eval flags, package runners, git config, find -exec, make --eval, ...).',
    decision: 'denied',
  },
  TOOLYARD_COMMAND_NOT_ALLOWED: {
    summary: 'The command is not in `tools.allowedCommands` (or `exec_allowed` is not enabled in this mode).',
    decision: 'denied',
  },
  TOOLYARD_COMMAND_PATH_REFUSED: {
    summary:
      'The command was given as a path; only bare names from the allowlist are accepted, resolved by the server at start.',
    decision: 'denied',
  },
  TOOLYARD_COMMAND_UNAVAILABLE: {
    summary: 'The command is allowed but its binary was not found on the server PATH at start.',
    decision: 'error',
  },
  TOOLYARD_CWD_OUTSIDE_ROOTS: {
    summary:
      'The working directory (after resolving symlinks) or a path argument lies outside `workspaceRoots`.',
    decision: 'denied',
  },
  TOOLYARD_CWD_NOT_FOUND: {
    summary: 'The working directory or path argument does not exist or is not of the expected kind.',
    decision: 'error',
  },
  TOOLYARD_ENV_REFUSED: {
    summary:
      'A caller-supplied environment variable is refused (loader, interpreter, shell or git hook variables).',
    decision: 'denied',
  },
  TOOLYARD_FLAG_INJECTION: {
    summary: 'A positional value of a structured tool starts with `-` and would be read as a flag.',
    decision: 'denied',
  },
  TOOLYARD_INVALID_ARGUMENTS: {
    summary: 'The tool arguments do not match the tool input schema.',
    decision: 'error',
  },
  TOOLYARD_TIMEOUT_EXCEEDS_MAX: {
    summary: 'The requested timeout is above `limits.maxTimeoutSeconds`.',
    decision: 'denied',
  },
  TOOLYARD_SCRIPT_NOT_FOUND: {
    summary: 'npm_run named a script that package.json in the working directory does not define.',
    decision: 'error',
  },
  TOOLYARD_BUSY: {
    summary: 'All `limits.maxConcurrency` slots and `limits.maxQueue` queue places are taken; retry later.',
    decision: 'error',
  },
  TOOLYARD_SHUTTING_DOWN: {
    summary: 'The server received SIGTERM and accepts no new calls.',
    decision: 'error',
  },
  TOOLYARD_SPAWN_FAILED: {
    summary: 'The operating system refused to start the process.',
    decision: 'error',
  },
  TOOLYARD_CANCELLED: {
    summary: 'The client cancelled the call or disconnected; the process group was killed.',
    decision: 'error',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** A refusal or failure that becomes an `isError: true` tool result, never a JSON-RPC error. */
export class ToolError extends Error {
  readonly code: ErrorCode;
  /** The policy rule that refused the call, when a rule did. */
  readonly rule: string | undefined;
  /** What the caller may do instead. */
  readonly allowed: string | undefined;

  constructor(code: ErrorCode, message: string, details: { rule?: string; allowed?: string } = {}) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
    this.rule = details.rule;
    this.allowed = details.allowed;
  }

  get decision(): 'denied' | 'error' {
    return ERROR_CODES[this.code].decision;
  }

  /** The text a model reads: code, rule, reason and the way forward. */
  describe(): string {
    const rule = this.rule ? ` [rule ${this.rule}]` : '';
    const allowed = this.allowed ? ` Allowed instead: ${this.allowed}` : '';
    return `${this.code}${rule}: ${this.message}${allowed}`;
  }
}

export function isToolError(value: unknown): value is ToolError {
  return value instanceof ToolError;
}

/** Every policy rule a denial can name, with what it refuses; the docs list them and a test keeps both in sync. */
export const POLICY_RULES = {
  'command-allowlist':
    'Commands are bare names from tools.allowedCommands (or a preset), resolved at start from the server PATH.',
  'interpreter-eval':
    'Interpreters may not evaluate code from argv: python -c, node -e/-p, sh -c, perl -e/-E/-M, ruby -e, deno eval, inline awk programs, sed without --sandbox, editors.',
  'interpreter-stdin': 'Interpreters may not read a program from stdin (`-`, or no script at all).',
  'interpreter-preload':
    'node -r/--require/--import/--loader/--env-file may not load code before the script.',
  'package-runner':
    'npx, bunx, uvx, npm exec/x/explore/init, pnpm/yarn dlx/exec, pipx run, uv run, go run pkg@version, cargo install and helm plugin are refused.',
  'command-wrapper': 'env, xargs, timeout, nice, sudo, busybox and similar would run an unlisted command.',
  'git-config':
    'git -c, --config-env, --exec-path and clone/submodule --config may not set configuration from argv.',
  'git-remote-command': 'git --upload-pack, --receive-pack, --exec and clone -u name programs to run.',
  'git-ext-transport': 'The ext:: transport runs an arbitrary command.',
  'git-dir-outside-roots': 'git -C, --git-dir and --work-tree must stay inside the workspace roots.',
  'git-runs-command':
    'git submodule foreach, bisect run, rebase -x, difftool/mergetool -x/--extcmd and filter-branch run commands from argv.',
  'path-outside-roots': 'git --output and make -C/-f/-I must name paths inside the workspace roots.',
  'cargo-config':
    'cargo --config and -Z config flags may not set configuration (runners, wrappers) from argv.',
  'runs-command-option':
    'tar --to-command/-I, rsync -e/--rsync-path, ssh -o ProxyCommand/LocalCommand, helm --post-renderer name programs to run.',
  'find-exec': 'find -exec, -execdir, -ok, -okdir, -delete and -fprint* are refused.',
  'make-eval':
    'make --eval/-E, `VAR!=cmd`, `$` in command-line assignments and SHELL/MAKEFLAGS overrides are refused.',
  'go-toolexec': 'go -toolexec and -exec would run an arbitrary program around the build.',
  'flag-injection': 'Positional values of structured tools may not start with `-`.',
  'cwd-confinement': 'cwd and path arguments must resolve (realpath) inside workspaceRoots.',
  'env-allowlist':
    'Callers may not set loader, interpreter, shell, git, compiler/linker, tool-configuration or build-hook variables (LD_*, NODE_OPTIONS, PYTHONPATH, GIT_*, CC, RUSTFLAGS, CARGO_HOME, HOME, GOTOOLCHAIN, ...).',
  'timeout-limit': 'timeoutSeconds may not exceed limits.maxTimeoutSeconds.',
} as const;

export type PolicyRule = keyof typeof POLICY_RULES;
