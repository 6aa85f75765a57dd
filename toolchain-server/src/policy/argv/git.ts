/** git: no configuration or programs from argv, no paths outside the roots, no ext:: transport. */
import { type ArgvPolicyContext, deny, firstPositional } from './common.ts';

/** git options that take a value as the next argument, before the subcommand. */
const GIT_GLOBAL_VALUE_OPTIONS = new Set([
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--list-cmds',
]);

export function checkGit(args: readonly string[], ctx: ArgvPolicyContext): void {
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
