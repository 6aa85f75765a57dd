/**
 * Argument policy for allowlisted commands. Allowing a binary must not allow everything it can be talked into:
 * interpreters evaluate code from flags, package runners fetch and run arbitrary packages, git runs commands
 * named in config, `find` and `make` run whatever their arguments say. Each rule below refuses one such escape.
 *
 * Pure: path checks go through the injected `isInsideRoots`, so the rules are table-testable without a disk.
 */
import { ToolError } from '../errors.ts';

export interface ArgvPolicyContext {
  /** The already-confined working directory of the call. */
  readonly cwd: string;
  /** True when `path` (relative to `cwd` or absolute) resolves, symlinks followed, inside a workspace root. */
  readonly isInsideRoots: (path: string, cwd: string) => boolean;
}

function deny(rule: string, message: string, allowed: string): never {
  throw new ToolError('TOOLYARD_POLICY_DENIED', message, { rule, allowed });
}

/** The family of a command name: `python3.12` is a python, `gmake` is a make. */
export function commandFamily(name: string): string {
  if (/^python(\d+(\.\d+)*)?$/.test(name) || name === 'pypy' || name === 'pypy3') return 'python';
  if (name === 'node' || name === 'nodejs' || name === 'bun' || name === 'deno') return 'node';
  if (['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox'].includes(name))
    return 'shell';
  if (/^perl(\d+(\.\d+)*)?$/.test(name)) return 'perl';
  if (['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk'].includes(name)) return 'awk';
  if (name === 'sed' || name === 'gsed') return 'sed';
  if (['vi', 'vim', 'nvim', 'ex', 'view', 'vimdiff', 'emacs', 'ed'].includes(name)) return 'editor';
  if (name === 'ssh' || name === 'scp' || name === 'sftp') return 'ssh';
  if (name === 'tar' || name === 'gtar' || name === 'bsdtar') return 'tar';
  if (/^ruby(\d+(\.\d+)*)?$/.test(name) || name === 'irb') return 'ruby';
  if (name === 'make' || name === 'gmake' || name === 'bmake') return 'make';
  if (name === 'find' || name === 'gfind') return 'find';
  return name;
}

/** Commands whose whole purpose is fetching or running an arbitrary package or command. */
const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'uvx']);
/** Commands that run their arguments as another command, bypassing the allowlist. */
const COMMAND_WRAPPERS = new Set([
  'env',
  'xargs',
  'timeout',
  'nice',
  'nohup',
  'stdbuf',
  'setsid',
  'time',
  'chroot',
  'sudo',
  'su',
  'doas',
  'runuser',
  'unshare',
  'nsenter',
  'flock',
  'watch',
  'script',
  'strace',
  'ltrace',
  'gdb',
]);
/** Subcommands of package managers that run an arbitrary (often freshly downloaded) command. */
const RUNNER_SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  npm: ['exec', 'x', 'explore', 'init', 'create', 'innit'],
  pnpm: ['dlx', 'exec', 'create'],
  yarn: ['dlx', 'exec', 'create'],
  bun: ['x', 'create'],
  pipx: ['run'],
  uv: ['run', 'tool'],
  poetry: ['run'],
  pdm: ['run'],
  hatch: ['run'],
  rye: ['run'],
  corepack: ['npx', 'pnpx'],
  cargo: ['install'],
  helm: ['plugin'],
};

const RUNNER_ALLOWED =
  'the structured tools (npm_test, npm_run, pytest, ...) or an allowlisted command invoked directly';

/**
 * Refuses argv the policy forbids; returns normally when allowed. `name` is the bare allowlisted name (never a
 * path), `args` the arguments after it.
 */
export function assertArgvAllowed(name: string, args: readonly string[], ctx: ArgvPolicyContext): void {
  if (PACKAGE_RUNNERS.has(name)) {
    deny('package-runner', `${name} fetches and runs arbitrary packages.`, RUNNER_ALLOWED);
  }
  if (COMMAND_WRAPPERS.has(name)) {
    deny(
      'command-wrapper',
      `${name} runs its arguments as another command, which would bypass the command allowlist.`,
      'call the allowlisted command directly; the server applies timeouts and the environment itself',
    );
  }
  const runnerSubcommands = RUNNER_SUBCOMMANDS[name];
  if (runnerSubcommands) {
    const subcommand = firstPositional(args);
    if (subcommand !== undefined && runnerSubcommands.includes(subcommand)) {
      deny(
        'package-runner',
        `\`${name} ${subcommand}\` runs an arbitrary command or package.`,
        RUNNER_ALLOWED,
      );
    }
  }
  switch (commandFamily(name)) {
    case 'python':
      checkPython(args);
      return;
    case 'node':
      checkNode(name, args);
      return;
    case 'shell':
      checkShell(name, args);
      return;
    case 'perl':
      checkClusteredEval(name, args, 'eEmM', 'perl -e/-E/-M evaluate code from the command line.');
      return;
    case 'ruby':
      checkClusteredEval(name, args, 'e', 'ruby -e evaluates code from the command line.');
      return;
    case 'git':
      checkGit(args, ctx);
      return;
    case 'find':
      checkFind(args);
      return;
    case 'make':
      checkMake(args, ctx);
      return;
    case 'go':
      checkGo(args);
      return;
    case 'awk':
      checkAwk(name, args);
      return;
    case 'sed':
      checkSed(args);
      return;
    case 'editor':
      deny(
        'interpreter-eval',
        `${name} runs editor commands given in its arguments (-c, +cmd, scripts).`,
        'read files with the structured tools or cat; edit files through the workspace',
      );
      return;
    case 'cargo':
      checkCargo(args);
      return;
    case 'helm':
    case 'tar':
    case 'ssh':
    case 'rsync':
      checkCommandOptions(name, args);
      return;
    default:
      return;
  }
}

function firstPositional(args: readonly string[]): string | undefined {
  for (const arg of args) {
    if (arg === '--') return undefined;
    if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

const SCRIPT_ALLOWED = 'run a script file that lives in the workspace, or a structured tool';

function checkPython(args: readonly string[]): void {
  if (args.length === 0)
    deny('interpreter-stdin', 'python without a script reads code from stdin.', SCRIPT_ALLOWED);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-') deny('interpreter-stdin', '`python -` reads a program from stdin.', SCRIPT_ALLOWED);
    if (arg === '--') {
      if (i + 1 >= args.length || args[i + 1] === '-')
        deny('interpreter-stdin', 'python without a script reads code from stdin.', SCRIPT_ALLOWED);
      return;
    }
    if (!arg.startsWith('-')) return; // the script; the rest are its arguments
    if (arg.startsWith('--')) {
      if (arg === '--command' || arg.startsWith('--command='))
        deny('interpreter-eval', 'python --command evaluates code.', SCRIPT_ALLOWED);
      continue;
    }
    // A cluster of short flags such as -Bc or -Wignore: letters until one that takes a value.
    for (let j = 1; j < arg.length; j++) {
      const letter = arg[j]!;
      if (letter === 'c')
        deny('interpreter-eval', '`python -c` evaluates code from the command line.', SCRIPT_ALLOWED);
      if (letter === 'm') return; // module mode: everything after belongs to the module
      if (letter === 'W' || letter === 'X') {
        if (j === arg.length - 1 && !args[i + 1]?.startsWith('-')) i++; // value is the next argument
        break;
      }
    }
  }
  deny('interpreter-stdin', 'python without a script reads code from stdin.', SCRIPT_ALLOWED);
}

const NODE_EVAL_FLAGS = new Set(['-e', '--eval', '-p', '--print']);
const NODE_PRELOAD_FLAGS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '--env-file',
  '--env-file-if-exists',
  '--experimental-config-file',
]);
/** Node options that consume the following argument, so it is not mistaken for the script. */
const NODE_VALUE_FLAGS = new Set([
  '-C',
  '--conditions',
  '--input-type',
  '--title',
  '--inspect-port',
  '--debug-port',
  '--redirect-warnings',
  '--diagnostic-dir',
  '--report-dir',
  '--report-directory',
  '--report-filename',
  '--report-signal',
  '--heapsnapshot-signal',
  '--cpu-prof-dir',
  '--cpu-prof-name',
  '--heap-prof-dir',
  '--heap-prof-name',
  '--icu-data-dir',
  '--openssl-config',
  '--tls-cipher-list',
  '--tls-keylog',
  '--unhandled-rejections',
  '--watch-path',
  '--disable-warning',
  '--trace-event-categories',
  '--trace-event-file-pattern',
  '--test-reporter',
  '--test-reporter-destination',
  '--test-name-pattern',
  '--test-skip-pattern',
  '--test-concurrency',
  '--test-timeout',
  '--test-shard',
  '--localstorage-file',
  '--snapshot-blob',
  '--run',
  '--stack-trace-limit',
]);

function checkNode(name: string, args: readonly string[]): void {
  const runtimeAllowed = `run a script file in the workspace (\`${name} path/to/script.js\`) or npm_run/npm_test`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-') deny('interpreter-stdin', `\`${name} -\` reads a program from stdin.`, runtimeAllowed);
    if (arg === '--') return;
    if (!arg.startsWith('-')) {
      if (name === 'deno' || name === 'bun') {
        // `deno eval`, `bun -e` and friends: subcommands that evaluate code.
        if (arg === 'eval' || arg === 'repl' || arg === 'x')
          deny('interpreter-eval', `\`${name} ${arg}\` evaluates code.`, runtimeAllowed);
      }
      return;
    }
    const flag = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (NODE_EVAL_FLAGS.has(flag))
      deny('interpreter-eval', `\`${name} ${flag}\` evaluates code from the command line.`, runtimeAllowed);
    if (NODE_PRELOAD_FLAGS.has(flag))
      deny('interpreter-preload', `\`${name} ${flag}\` loads code before the script.`, runtimeAllowed);
    if (!arg.startsWith('--') && arg.length > 2) {
      // Clustered short flags: -pe, -ep, -re.
      for (const letter of arg.slice(1)) {
        if (letter === 'e' || letter === 'p')
          deny(
            'interpreter-eval',
            `\`${name} ${arg}\` evaluates code from the command line.`,
            runtimeAllowed,
          );
        if (letter === 'r')
          deny('interpreter-preload', `\`${name} ${arg}\` loads code before the script.`, runtimeAllowed);
      }
    }
    if (!arg.includes('=') && NODE_VALUE_FLAGS.has(flag) && !args[i + 1]?.startsWith('-')) i++;
  }
}

function checkShell(name: string, args: readonly string[]): void {
  const allowed = `run a script file in the workspace (\`${name} path/to/script.sh\`)`;
  if (name === 'busybox')
    deny('command-wrapper', 'busybox runs any of its applets, including shells.', allowed);
  let maybeValue = false;
  for (const arg of args) {
    if (arg === '-' || arg === '--') {
      deny('interpreter-stdin', `\`${name} ${arg}\` reads commands from stdin.`, allowed);
    }
    if (arg.startsWith('--')) {
      if (arg === '--command' || arg.startsWith('--init-file') || arg.startsWith('--rcfile'))
        deny(
          'interpreter-eval',
          `\`${name} ${arg}\` runs commands from the command line or an rc file.`,
          allowed,
        );
      maybeValue = false;
      continue;
    }
    if (arg.startsWith('-') || arg.startsWith('+')) {
      if (arg.startsWith('-') && /[cs]/.test(arg.slice(1)))
        deny('interpreter-eval', `\`${name} ${arg}\` runs commands from the command line or stdin.`, allowed);
      // A bare option such as -o or -O may take the next argument as its value: keep scanning past it.
      maybeValue = arg.length === 2;
      continue;
    }
    if (maybeValue) {
      maybeValue = false;
      continue;
    }
    return; // the script
  }
  deny('interpreter-stdin', `${name} without a script reads commands from stdin.`, allowed);
}

function checkClusteredEval(name: string, args: readonly string[], letters: string, why: string): void {
  const allowed = `run a script file in the workspace (\`${name} path/to/script\`)`;
  if (args.length === 0)
    deny('interpreter-stdin', `${name} without a script reads code from stdin.`, allowed);
  let maybeValue = false;
  for (const arg of args) {
    if (arg === '-') deny('interpreter-stdin', `\`${name} -\` reads a program from stdin.`, allowed);
    if (arg === '--') return;
    if (arg.startsWith('--')) {
      if (arg === '--eval' || arg.startsWith('--eval=') || arg.startsWith('--require') || arg === '--execute')
        deny('interpreter-eval', why, allowed);
      maybeValue = false;
      continue;
    }
    if (!arg.startsWith('-')) {
      // After a bare option such as -I or -r the next word may be its value, not the script: keep scanning.
      if (maybeValue) {
        maybeValue = false;
        continue;
      }
      return;
    }
    for (const letter of arg.slice(1)) {
      if (letters.includes(letter)) deny('interpreter-eval', `\`${name} ${arg}\`: ${why}`, allowed);
    }
    maybeValue = arg.length === 2;
  }
}

/** git options that take a value as the next argument, before the subcommand. */
const GIT_GLOBAL_VALUE_OPTIONS = new Set([
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--list-cmds',
]);

function checkGit(args: readonly string[], ctx: ArgvPolicyContext): void {
  const gitAllowed =
    'plain git subcommands inside the workspace roots; configuration belongs in the repository, not in argv';
  let i = 0;
  // Global options up to the subcommand.
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) break;
    if (arg === '-c' || (arg.startsWith('-c') && !arg.startsWith('--')))
      deny('git-config', '`git -c` sets configuration that can name commands to run.', gitAllowed);
    if (arg === '--config-env' || arg.startsWith('--config-env='))
      deny('git-config', '`git --config-env` sets configuration that can name commands to run.', gitAllowed);
    if (arg === '--exec-path' || arg.startsWith('--exec-path='))
      deny('git-config', '`git --exec-path` points git at other helper binaries.', gitAllowed);
    if (arg === '-C') {
      const dir = args[i + 1];
      if (dir === undefined || !ctx.isInsideRoots(dir, ctx.cwd))
        deny('git-dir-outside-roots', `\`git -C ${dir ?? ''}\` leaves the workspace roots.`, gitAllowed);
      i++;
      continue;
    }
    const eq = arg.indexOf('=');
    const key = eq >= 0 ? arg.slice(0, eq) : arg;
    if (key === '--git-dir' || key === '--work-tree') {
      const dir = eq >= 0 ? arg.slice(eq + 1) : args[i + 1];
      if (dir === undefined || !ctx.isInsideRoots(dir, ctx.cwd))
        deny('git-dir-outside-roots', `\`git ${key}\` points outside the workspace roots.`, gitAllowed);
    }
    if (eq < 0 && GIT_GLOBAL_VALUE_OPTIONS.has(key) && !args[i + 1]?.startsWith('-')) i++;
  }
  const subcommand = args[i];
  for (let j = i + 1; j < args.length; j++) {
    const arg = args[j]!;
    const eq = arg.indexOf('=');
    const key = eq >= 0 ? arg.slice(0, eq) : arg;
    if (key === '--upload-pack' || key === '--receive-pack' || key === '--exec')
      deny('git-remote-command', `\`git ${subcommand} ${key}\` names a program to run.`, gitAllowed);
    if (
      (subcommand === 'clone' ||
        subcommand === 'fetch' ||
        subcommand === 'pull' ||
        subcommand === 'ls-remote') &&
      (arg === '-u' || (arg.startsWith('-u') && !arg.startsWith('--') && subcommand === 'clone'))
    )
      deny('git-remote-command', `\`git ${subcommand} -u\` names an upload-pack program to run.`, gitAllowed);
    if (
      (subcommand === 'clone' || subcommand === 'submodule') &&
      (arg === '-c' || key === '--config' || key === '--config-env')
    )
      deny(
        'git-config',
        `\`git ${subcommand} ${key}\` sets configuration that can name commands to run.`,
        gitAllowed,
      );
  }
  checkGitRunsCommand(subcommand, args.slice(i + 1), gitAllowed);
  for (let j = i + 1; j < args.length; j++) {
    const arg = args[j]!;
    if (arg === '--output' || arg.startsWith('--output=')) {
      const file = arg === '--output' ? args[j + 1] : arg.slice('--output='.length);
      if (file === undefined || !ctx.isInsideRoots(file, ctx.cwd))
        deny(
          'path-outside-roots',
          `\`git ${subcommand} --output\` writes outside the workspace roots.`,
          gitAllowed,
        );
    }
  }
  for (const arg of args) {
    if (/(^|[=\s])ext::/i.test(arg) || arg.toLowerCase().startsWith('ext::'))
      deny(
        'git-ext-transport',
        'the `ext::` transport runs an arbitrary command as a remote helper.',
        gitAllowed,
      );
  }
}

const FIND_ACTIONS = new Set([
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-delete',
  '-fprint',
  '-fprint0',
  '-fprintf',
  '-fls',
]);

function checkFind(args: readonly string[]): void {
  for (const arg of args) {
    if (FIND_ACTIONS.has(arg))
      deny(
        'find-exec',
        `\`find ${arg}\` runs commands or deletes/writes files.`,
        'find with tests and -print/-print0/-printf; act on the results with an allowlisted command',
      );
  }
}

/** make options naming a directory or makefile, which must stay inside the workspace roots. */
const MAKE_PATH_OPTIONS: Readonly<Record<string, string>> = {
  '-C': 'directory',
  '--directory': 'directory',
  '-f': 'makefile',
  '--file': 'makefile',
  '--makefile': 'makefile',
  '-I': 'include directory',
  '--include-dir': 'include directory',
};

function checkMakePaths(args: readonly string[], ctx: ArgvPolicyContext, allowed: string): void {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return;
    const eq = arg.indexOf('=');
    const long = arg.startsWith('--') ? (eq >= 0 ? arg.slice(0, eq) : arg) : undefined;
    const short = !arg.startsWith('--') && arg.length >= 2 ? arg.slice(0, 2) : undefined;
    const option =
      long && MAKE_PATH_OPTIONS[long] ? long : short && MAKE_PATH_OPTIONS[short] ? short : undefined;
    if (!option) continue;
    const value = long
      ? eq >= 0
        ? arg.slice(eq + 1)
        : args[i + 1]
      : arg.length > 2
        ? arg.slice(2)
        : args[i + 1];
    if (value === undefined || !ctx.isInsideRoots(value, ctx.cwd))
      deny(
        'path-outside-roots',
        `\`make ${option} ${value ?? ''}\` names a ${MAKE_PATH_OPTIONS[option]} outside the workspace roots.`,
        allowed,
      );
  }
}

function checkMake(args: readonly string[], ctx: ArgvPolicyContext): void {
  const allowed = 'make with targets, -C/-j/-k and plain VAR=value assignments without `$`';
  checkMakePaths(args, ctx, allowed);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return;
    if (arg === '--eval' || arg.startsWith('--eval=') || arg.startsWith('--eva'))
      deny('make-eval', '`make --eval` evaluates makefile code from the command line.', allowed);
    if (arg.startsWith('-') && !arg.startsWith('--')) {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j]!;
        if (letter === 'E')
          deny('make-eval', '`make -E` evaluates makefile code from the command line.', allowed);
        // Options whose value follows: the rest of the cluster (or the next argument) is not flags.
        if ('CfIojlOW'.includes(letter)) {
          if (j === arg.length - 1 && 'CfIoW'.includes(letter) && !args[i + 1]?.startsWith('-')) i++;
          break;
        }
      }
      continue;
    }
    const assignment = /^([^=\s:!?+]+)\s*(::?=|:::=|!=|\?=|\+=|=)(.*)$/s.exec(arg);
    if (assignment) {
      const [, variable, operator, value] = assignment;
      if (operator === '!=') deny('make-eval', `\`${arg}\` runs a shell command at parse time.`, allowed);
      if (value?.includes('$'))
        deny('make-eval', `\`${arg}\` expands make functions such as $(shell ...) at parse time.`, allowed);
      if (
        variable === 'SHELL' ||
        variable === '.SHELLFLAGS' ||
        variable === 'MAKEFLAGS' ||
        variable === 'MAKEFILES'
      )
        deny('make-eval', `overriding ${variable} changes how make runs recipes.`, allowed);
    }
  }
}

function checkGo(args: readonly string[]): void {
  const subcommand = firstPositional(args);
  const rest = subcommand === undefined ? [] : args.slice(args.indexOf(subcommand) + 1);
  for (const arg of rest) {
    if (arg === '-toolexec' || arg.startsWith('-toolexec=') || arg.startsWith('--toolexec'))
      deny(
        'go-toolexec',
        '`go -toolexec` runs an arbitrary program around every tool.',
        'go build/test/vet without -toolexec',
      );
    if (arg === '-exec' || arg.startsWith('-exec=') || arg.startsWith('--exec'))
      deny(
        'go-toolexec',
        '`go -exec` runs binaries through an arbitrary program.',
        'go test/run without -exec',
      );
  }
  if (subcommand === 'run' || subcommand === 'install' || subcommand === 'get') {
    for (const arg of rest) {
      if (!arg.startsWith('-') && arg.includes('@'))
        deny(
          'package-runner',
          `\`go ${subcommand} ${arg}\` downloads and runs a module version from outside the workspace.`,
          'go run/build of packages inside the workspace',
        );
    }
  }
}

/** git subcommands and options that run a command given in argv. */
function checkGitRunsCommand(subcommand: string | undefined, rest: readonly string[], allowed: string): void {
  const refuse = (what: string) =>
    deny('git-runs-command', `\`git ${what}\` runs a command given in argv.`, allowed);
  const first = firstPositional(rest);
  if (subcommand === 'filter-branch') refuse('filter-branch');
  if (subcommand === 'submodule' && first === 'foreach') refuse('submodule foreach');
  if (subcommand === 'bisect' && first === 'run') refuse('bisect run');
  for (const arg of rest) {
    if (arg === '--') break;
    const key = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (subcommand === 'rebase' && (arg === '-x' || (arg.startsWith('-x') && !arg.startsWith('--'))))
      refuse('rebase -x');
    if ((subcommand === 'difftool' || subcommand === 'mergetool') && (arg === '-x' || key === '--extcmd'))
      refuse(`${subcommand} ${key}`);
  }
}

const AWK_ALLOWED = 'an awk program in a workspace file (`awk -f prog.awk`)';

/** awk's program text is code (`system()`, pipes): only a program file in the workspace is accepted. */
function checkAwk(name: string, args: readonly string[]): void {
  for (const arg of args) {
    if (arg === '-f' || arg.startsWith('--file') || (arg.startsWith('-f') && arg.length > 2)) return;
    if (arg === '--') break;
  }
  deny('interpreter-eval', `${name} evaluates the program given in its arguments.`, AWK_ALLOWED);
}

/** GNU sed scripts can run commands (`e`) and write files (`w`); --sandbox turns both off. */
function checkSed(args: readonly string[]): void {
  if (!args.includes('--sandbox'))
    deny(
      'interpreter-eval',
      'sed scripts can run commands (`e`) and write files (`w`) unless sandboxed.',
      'sed --sandbox …',
    );
}

function checkCargo(args: readonly string[]): void {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return;
    if (arg === '--config' || arg.startsWith('--config='))
      deny(
        'cargo-config',
        '`cargo --config` sets configuration from argv, which can name a runner or compiler wrapper to run.',
        "cargo subcommands without --config; configuration belongs in the repository's .cargo/config.toml",
      );
    if (arg === '-Z' || (arg.startsWith('-Z') && arg.includes('config')))
      deny('cargo-config', '`cargo -Z` unstable flags can load configuration from argv.', 'cargo without -Z');
  }
}

/** Options of generic tools that name a program to run. */
const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  tar: [
    '--to-command',
    '-I',
    '--use-compress-program',
    '--rsh-command',
    '--checkpoint-action',
    '--info-script',
    '--new-volume-script',
    '-F',
  ],
  rsync: ['-e', '--rsh', '--rsync-path'],
  ssh: [
    '-S',
    '-oProxyCommand',
    '-oLocalCommand',
    '-oKnownHostsCommand',
    '-oPermitLocalCommand',
    '-oProxyUseFdpass',
  ],
  helm: ['--post-renderer'],
};
const SSH_COMMAND_KEYS = /^(proxycommand|localcommand|knownhostscommand|permitlocalcommand)\b/i;

function checkCommandOptions(name: string, args: readonly string[]): void {
  const family = commandFamily(name);
  const options = COMMAND_OPTIONS[family] ?? [];
  const refuse = (option: string) =>
    deny('runs-command-option', `\`${name} ${option}\` names a program to run.`, `${name} without ${option}`);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return;
    const key = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    for (const option of options) {
      const short = option.length === 2;
      if (key === option || (short && arg.startsWith(option) && !arg.startsWith('--'))) refuse(option);
      if (option.startsWith('-o') && arg.toLowerCase().startsWith(option.toLowerCase())) refuse(option);
    }
    if (family === 'ssh' && arg === '-o' && SSH_COMMAND_KEYS.test(args[i + 1] ?? ''))
      refuse(`-o ${args[i + 1]}`);
  }
}
