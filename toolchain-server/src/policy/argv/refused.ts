/**
 * Commands the policy refuses outright, with the reason: wrappers that run another command (and so would
 * bypass the allowlist), package runners, editors and pagers, remote shells, compiler drivers whose options
 * name programs, and the dynamic loader. Any other command without a table is refused as `no-argv-policy`.
 */
import { refusal } from '../options/build.ts';
import type { Refusal } from '../options/spec.ts';

const WRAPPER = 'call the allowed command directly; the server applies timeouts and the environment itself';

const wrapper = (name: string) =>
  refusal(
    'command-wrapper',
    `${name} runs its arguments as another command, which would bypass the allowlist.`,
    WRAPPER,
  );
const runner = (name: string) =>
  refusal(
    'package-runner',
    `${name} fetches and runs arbitrary packages.`,
    'the structured tools (npm_test, npm_run, pytest, …)',
  );
const editor = (name: string) =>
  refusal(
    'interpreter-eval',
    `${name} runs commands given in its arguments or typed into it (:!cmd, !cmd).`,
    'read files with cat; edit files through the workspace',
  );
const remote = (name: string) =>
  refusal(
    'runs-command-option',
    `${name} opens network connections and can run remote or local commands (-e, ProxyCommand, LocalCommand, config files).`,
    'git over https for repositories; registries through the package managers',
  );
const compiler = (name: string) =>
  refusal(
    'runs-command-option',
    `${name} runs programs named by -wrapper, -B, -fplugin, -specs or @file.`,
    'build through make, cargo or go',
  );

const LOADERS = /^(ld\.so|ld-linux(-[\w-]+)?\.so(\.\d+)*|ld64\.so(\.\d+)*)$/;

export const REFUSED_COMMANDS: Readonly<Record<string, Refusal>> = {
  ...Object.fromEntries(
    [
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
      'busybox',
      'parallel',
      'exec',
      'command',
      'builtin',
    ].map((n) => [n, wrapper(n)]),
  ),
  ...Object.fromEntries(
    ['npx', 'pnpx', 'bunx', 'pipx', 'pnpm', 'yarn', 'bun', 'deno', 'corepack'].map((n) => [n, runner(n)]),
  ),
  ...Object.fromEntries(
    [
      'vi',
      'vim',
      'nvim',
      'ex',
      'view',
      'vimdiff',
      'emacs',
      'ed',
      'nano',
      'less',
      'more',
      'most',
      'man',
      'pager',
    ].map((n) => [n, editor(n)]),
  ),
  ...Object.fromEntries(
    ['ssh', 'scp', 'sftp', 'rsync', 'telnet', 'nc', 'ncat', 'socat', 'curl', 'wget'].map((n) => [
      n,
      remote(n),
    ]),
  ),
  ...Object.fromEntries(
    ['gcc', 'cc', 'g++', 'c++', 'clang', 'clang++', 'cpp', 'ld', 'as'].map((n) => [n, compiler(n)]),
  ),
  uvx: refusal(
    'package-runner',
    "uvx (uv tool run) fetches and runs packages that are not the project's dependencies.",
    "the project's own dev dependencies: uv add --dev <tool>, then uv run <tool>; ruff_check and pytest",
  ),
  zip: refusal('runs-command-option', 'zip -TT names a program to test the archive with.', 'tar -czf'),
};

/** Why `name` is refused outright, if it is. */
export function refusedCommand(name: string): Refusal | undefined {
  if (Object.hasOwn(REFUSED_COMMANDS, name)) return REFUSED_COMMANDS[name];
  if (LOADERS.test(name))
    return refusal(
      'command-wrapper',
      `${name} (the dynamic loader) runs any program given as its argument.`,
      WRAPPER,
    );
  return undefined;
}
