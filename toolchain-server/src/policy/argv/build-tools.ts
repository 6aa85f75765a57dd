/** Build tools that can be talked into running other programs: find, make, go and cargo. */
import { type ArgvPolicyContext, deny, firstPositional } from './common.ts';

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

export function checkFind(args: readonly string[]): void {
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

export function checkMake(args: readonly string[], ctx: ArgvPolicyContext): void {
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

export function checkGo(args: readonly string[]): void {
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

export function checkCargo(args: readonly string[]): void {
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
