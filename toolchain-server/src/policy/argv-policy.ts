/**
 * Argument policy for allowlisted commands. Allowing a binary must not allow everything it can be talked into:
 * interpreters evaluate code from flags, package runners fetch and run arbitrary packages, git runs commands
 * named in config, `find` and `make` run whatever their arguments say. Each rule refuses one such escape; the
 * rules live under `argv/` by family (interpreters, git, build tools, generic tools' command options).
 *
 * Pure: path checks go through the injected `isInsideRoots`, so the rules are table-testable without a disk.
 */
import { checkCargo, checkFind, checkGo, checkMake } from './argv/build-tools.ts';
import { checkCommandOptions } from './argv/command-options.ts';
import { type ArgvPolicyContext, deny, firstPositional } from './argv/common.ts';
import { checkGit } from './argv/git.ts';
import {
  checkAwk,
  checkClusteredEval,
  checkNode,
  checkPython,
  checkSed,
  checkShell,
} from './argv/interpreters.ts';

export type { ArgvPolicyContext } from './argv/common.ts';

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
      checkCommandOptions(name, commandFamily(name), args);
      return;
    default:
      return;
  }
}
