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
      'The argv policy refused the call: a subcommand, option or value the command table does not list, or one it refuses by rule.',
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
    summary: 'A caller-supplied environment variable is not on the allowlist.',
    decision: 'denied',
  },
  TOOLYARD_FLAG_INJECTION: {
    summary: 'A positional value of a structured tool starts with `-` and would be read as a flag.',
    decision: 'denied',
  },
  TOOLYARD_CONFINEMENT_FAILED: {
    summary:
      'The confinement helper could not set up the Landlock ruleset for the call (`limits.confinement`); nothing ran.',
    decision: 'error',
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
  TOOLYARD_CODE_MODE_UNAVAILABLE: {
    summary:
      'run_code cannot run here: the kernel does not confine calls (Landlock), the image lacks the interpreter or toolyard-codebox, or the language is not enabled.',
    decision: 'error',
  },
  TOOLYARD_FILE_TOO_LARGE: {
    summary:
      'A sandbox file transfer (read_file, write_file) is above `sandbox.maxFileBytes`; nothing was read or written.',
    decision: 'denied',
  },
  TOOLYARD_FILE_REFUSED: {
    summary:
      'A sandbox file tool was pointed at something that is not a regular file (a directory, a device, a FIFO, a symbolic link to write through).',
    decision: 'denied',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** A refusal or failure that becomes an `isError: true` tool result, never a JSON-RPC error. */
export class ToolError extends Error {
  readonly code: ErrorCode;
  /** The policy rule that refused the call, when a rule did. */
  readonly rule: PolicyRule | undefined;
  /** What the caller may do instead. */
  readonly allowed: string | undefined;

  constructor(code: ErrorCode, message: string, details: { rule?: PolicyRule; allowed?: string } = {}) {
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

/**
 * Every policy rule a denial can name, with what it refuses. Tables and refusals are typed against this list
 * (`PolicyRule`), so code cannot name a rule the catalogue lacks; the docs list them and a test keeps both in
 * sync.
 */
export const POLICY_RULES = {
  'command-allowlist':
    'Commands are bare names from tools.allowedCommands (or a preset), resolved at start from the server PATH.',
  'no-argv-policy':
    'The command has no argv table and calls are not confined in the kernel here: it is refused whole (with Landlock enforced it runs on the generic confined path instead).',
  'subcommand-not-allowed':
    "The subcommand is not in the command's table; the refusal lists the allowed ones.",
  'option-not-allowed':
    'The option is not in the table of that command or subcommand; the refusal lists the allowed ones.',
  'option-ambiguous': 'An abbreviated long option matches several options.',
  'option-value':
    "An option's value is missing, not allowed, or not of the listed kind (number, choice, pattern).",
  'positional-not-allowed':
    'Too many operands, or an operand starting with - where the tool would read an option (put it after --).',
  'response-file':
    'An @file argument (rustc, tsc) would read more arguments from a file the policy cannot see.',
  'path-outside-roots':
    'A path-like operand or option value resolves, symlinks followed, outside workspaceRoots; or an option would follow symlinks out of them (ls -L, grep -R, tar -h/-P, find -L).',
  'interpreter-eval':
    'Code from argv: python -c, node -e/-p/--entry-url/--inspect, sh -c, perl -e, inline programs of an awk without a sandbox (mawk), terraform console, editors.',
  'interpreter-stdin': 'A program from stdin: python, node or sh without a script, `-`, python -i, sh -s.',
  'interpreter-preload':
    'Code loaded before the program: node -r/--import/--loader/--env-file or a --test-reporter module, python -W with a module category, pytest -p <plugin>, perl -M, awk -i/-l, npm --node-options, sh --rcfile/-l.',
  'python-module':
    'python -m with a module outside the list (pytest, pip, mypy, unittest, venv, ruff, json.tool, py_compile).',
  'package-runner':
    'Fetching and running packages: npx, npm exec/x/init/explore, pnpm, yarn, bun, uvx, uv tool, uv run --with, uv format/check, cargo install, go run pkg@version, helm plugin, mypy --install-types.',
  'package-source':
    'npm install, pip install or uv from git, a URL or a tarball (name @ URL too), or an index other than PyPI, instead of the registry or a local path in the workspace.',
  'command-wrapper':
    'env COMMAND, xargs, timeout, nice, sudo, busybox, ld.so, uv run of a program other than python, pytest, mypy or ruff, and similar would run an unlisted command.',
  'runs-command-option':
    'Options and commands that name a program: tar -I/--to-command/--checkpoint-action, git --upload-pack/--exec/rebase -x/grep -O, find -exec, sort --compress-program, go -toolexec/-exec, rustc -C linker, helm --post-renderer, npm --script-shell, gpg signing, ssh/rsync/curl, compiler drivers.',
  'config-override':
    'Configuration from argv: git -c/--config-env, cargo --config/-Z, rustc -Z, pytest -o, npm --userconfig, git clone --config.',
  'config-write':
    'Subcommands that write configuration later commands obey: git config (other than reading), git remote add/set-url, npm config set, npm pkg set, pip config set, go env -w/-u.',
  'remote-helper': 'git remote URLs that name a transport helper program (ext::, fd::, unknown schemes).',
  'make-eval': 'make --eval and VAR!=command assignments evaluate makefile code or shell commands from argv.',
  'make-assignment':
    'make command-line assignments whose value could name a program or flags (only numbers and yes/no/true/false values).',
  'flag-injection': 'Positional values of structured tools may not start with `-`.',
  'fetch-runs-no-code':
    'A fetch tool refuses inputs that would make it run code: git dependencies in package-lock.json, requirements lines that are not pinned name==version (options, paths, URLs).',
  'cwd-confinement': 'cwd and path arguments must resolve (realpath) inside workspaceRoots.',
  'env-allowlist':
    'Callers may set only allowlisted variables (CI, RUST_BACKTRACE, GOOS, NODE_ENV, GIT_AUTHOR_*, … plus env.callerAllowed); loader, interpreter, shell, compiler and tool-configuration variables are never allowed.',
  'timeout-limit': 'timeoutSeconds may not exceed limits.maxTimeoutSeconds.',
} as const;

export type PolicyRule = keyof typeof POLICY_RULES;
