/** Options of generic tools (tar, rsync, ssh, helm) that name a program to run. */
import { deny } from './common.ts';

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

export function checkCommandOptions(name: string, family: string, args: readonly string[]): void {
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
