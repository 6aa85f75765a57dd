/** Interpreters: no code from argv or stdin — only script files, which live in the workspace. */
import { deny } from './common.ts';

const SCRIPT_ALLOWED = 'run a script file that lives in the workspace, or a structured tool';

export function checkPython(args: readonly string[]): void {
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

export function checkNode(name: string, args: readonly string[]): void {
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

export function checkShell(name: string, args: readonly string[]): void {
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

export function checkClusteredEval(
  name: string,
  args: readonly string[],
  letters: string,
  why: string,
): void {
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

const AWK_ALLOWED = 'an awk program in a workspace file (`awk -f prog.awk`)';

/** awk's program text is code (`system()`, pipes): only a program file in the workspace is accepted. */
export function checkAwk(name: string, args: readonly string[]): void {
  for (const arg of args) {
    if (arg === '-f' || arg.startsWith('--file') || (arg.startsWith('-f') && arg.length > 2)) return;
    if (arg === '--') break;
  }
  deny('interpreter-eval', `${name} evaluates the program given in its arguments.`, AWK_ALLOWED);
}

/** GNU sed scripts can run commands (`e`) and write files (`w`); --sandbox turns both off. */
export function checkSed(args: readonly string[]): void {
  if (!args.includes('--sandbox'))
    deny(
      'interpreter-eval',
      'sed scripts can run commands (`e`) and write files (`w`) unless sandboxed.',
      'sed --sandbox …',
    );
}
