/**
 * GNU tar and gzip. No option may name a program (`-I`, `--to-command`, `--checkpoint-action`, …), an archive
 * name with a colon (a remote archive reached through rsh) is refused, and nothing lets tar write or read
 * outside the roots: `-P` (absolute and `..` member names), `-h` (following symlinks out), and
 * `--keep-directory-symlink` are refused; `-f`, `-C`, `-T` and operands are confined paths.
 */
import {
  choice,
  flag,
  infoFlag,
  matching,
  number,
  opt,
  optional,
  path,
  pathOrStdio,
  pathspec,
  refused,
  text,
} from '../options/build.ts';
import type { CommandSpec, OptionSpec, ValueSpec } from '../options/spec.ts';
import { ARGP_TAR, GETOPT_LONG } from '../options/syntaxes.ts';

const RUNS = 'runs-command-option';

const archive: ValueSpec = {
  kind: 'custom',
  describe: 'an archive file in the workspace, or - for stdin/stdout',
  check(value, inside) {
    if (value === '-') return undefined;
    if (value.includes(':'))
      return {
        rule: RUNS,
        why: `${JSON.stringify(value)} has a colon, which tar reads as host:file and reaches through rsh.`,
        instead: 'a local archive name without a colon',
      };
    return inside(value)
      ? undefined
      : { rule: 'path-outside-roots', why: `${JSON.stringify(value)} resolves outside the workspace roots.` };
  },
};

const program = (name: string | string[], why: string): OptionSpec =>
  refused(name, RUNS, why, { value: text });

export const TAR: CommandSpec = {
  name: 'tar',
  syntax: ARGP_TAR,
  options: [
    flag('--create', '-c'),
    flag('--extract', '--get', '-x'),
    flag('--list', '-t'),
    flag('--append', '-r'),
    flag('--update', '-u'),
    flag('--diff', '--compare', '-d'),
    flag('--delete'),
    opt(['--file', '-f'], archive),
    opt(['--directory', '-C'], path, { changesDirectory: true }),
    flag('--gzip', '--gunzip', '--ungzip', '-z'),
    flag('--bzip2', '-j'),
    flag('--xz', '-J'),
    flag('--lzma'),
    flag('--zstd'),
    flag('--auto-compress', '-a'),
    flag('--verbose', '-v'),
    flag('--to-stdout', '-O'),
    flag('--keep-old-files', '-k'),
    flag('--skip-old-files'),
    flag('--keep-newer-files'),
    flag('--no-same-owner'),
    flag('--no-same-permissions'),
    flag('--preserve-permissions', '--same-permissions', '-p'),
    opt('--exclude', text),
    flag('--exclude-vcs'),
    flag('--exclude-vcs-ignores'),
    opt('--strip-components', number),
    opt('--mtime', text),
    opt('--sort', choice('none', 'name', 'inode')),
    opt('--owner', text),
    opt('--group', text),
    flag('--numeric-owner'),
    opt('--mode', text),
    opt(['--files-from', '-T'], path),
    opt(['--exclude-from', '-X'], path),
    flag('--wildcards'),
    flag('--no-wildcards'),
    flag('--anchored'),
    flag('--totals'),
    optional('--checkpoint', number),
    opt('--warning', text),
    flag('--null'),
    flag('--no-recursion'),
    flag('--recursion'),
    flag('--one-file-system'),
    opt(['--blocking-factor', '-b'], number),
    opt(['--format', '-H'], choice('gnu', 'oldgnu', 'pax', 'posix', 'ustar', 'v7')),
    opt(['--label', '-V'], text),
    flag('--force-local'),
    flag('--ignore-zeros', '-i'),
    infoFlag('--help'),
    flag('--usage'),
    infoFlag('--version'),
    program(['--use-compress-program', '-I'], '`tar --use-compress-program` names a program to run.'),
    program('--to-command', '`tar --to-command` runs a program for every member.'),
    program('--checkpoint-action', '`tar --checkpoint-action` can run a program (exec=…).'),
    program(
      ['--info-script', '--new-volume-script', '-F'],
      '`tar --info-script` runs a program at each volume.',
    ),
    program('--rsh-command', '`tar --rsh-command` names the remote shell to run.'),
    program('--rmt-command', '`tar --rmt-command` names the remote tape program to run.'),
    refused(['--multi-volume', '-M'], RUNS, '`tar --multi-volume` prompts for and runs volume scripts.'),
    refused(
      ['--absolute-names', '-P'],
      'path-outside-roots',
      '`tar -P` keeps absolute and `..` member names, so extraction writes anywhere.',
    ),
    refused(
      ['--dereference', '-h'],
      'path-outside-roots',
      '`tar -h` archives what symlinks point to, wherever that is.',
    ),
    refused(
      '--hard-dereference',
      'path-outside-roots',
      '`tar --hard-dereference` archives what links point to.',
    ),
    refused(
      '--keep-directory-symlink',
      'path-outside-roots',
      '`tar --keep-directory-symlink` extracts through symlinks, wherever they point.',
    ),
  ],
  positionals: { rest: pathspec },
};

const gzipLevels = ['-1', '-2', '-3', '-4', '-5', '-6', '-7', '-8', '-9'].map((n) => flag(n));

export const GZIP: CommandSpec = {
  name: 'gzip',
  syntax: GETOPT_LONG,
  options: [
    flag('-c', '--stdout', '--to-stdout'),
    flag('-d', '--decompress', '--uncompress'),
    flag('-f', '--force'),
    flag('-k', '--keep'),
    flag('-l', '--list'),
    flag('-n', '--no-name'),
    flag('-N', '--name'),
    flag('-q', '--quiet'),
    flag('-r', '--recursive'),
    flag('-t', '--test'),
    flag('-v', '--verbose'),
    flag('--fast'),
    flag('--best'),
    ...gzipLevels,
    opt(['-S', '--suffix'], matching(/^[A-Za-z0-9._-]+$/, 'a suffix such as .gz')),
    infoFlag('-h', '--help'),
    infoFlag('-V', '--version'),
  ],
  positionals: { rest: pathOrStdio },
};

export const ARCHIVES: Readonly<Record<string, CommandSpec>> = {
  tar: TAR,
  gtar: { ...TAR, name: 'gtar' },
  gzip: GZIP,
  gunzip: { ...GZIP, name: 'gunzip' },
};
