/**
 * Coreutils and friends that look at or adjust files: stat, file, du, df, chmod, ln, realpath and the checksum
 * tools. Every operand and path-valued option is a path confined to the workspace roots; options that read a
 * list of file names from a file (`du --files0-from`, `file -f`, `sha256sum -c`) are refused, since the names
 * in it are never checked.
 */
import { dirname } from 'node:path';
import {
  choice,
  described,
  flag,
  infoFlag,
  matching,
  opt,
  optional,
  path,
  pathOrStdio,
  refusal,
  refused,
  text,
} from '../options/build.ts';
import type { CommandSpec, OptionSpec } from '../options/spec.ts';
import { GETOPT_LONG } from '../options/syntaxes.ts';

const info: OptionSpec[] = [infoFlag('--help'), infoFlag('--version')];

function getopt(name: string, options: OptionSpec[], positionals: CommandSpec['positionals']): CommandSpec {
  return { name, syntax: GETOPT_LONG, options: [...options, ...info], positionals };
}

const listFromFile = (command: string, option: string, instead: string) =>
  refused(
    option.startsWith('--') ? option : [option],
    'path-outside-roots',
    `\`${command} ${option}\` reads file names from a file, which the policy cannot check.`,
    { value: path, instead },
  );

const MODE = matching(
  /^([0-7]{1,4}|[ugoa]*([-+=]([rwxXst]*|[ugo]))+(,[ugoa]*([-+=]([rwxXst]*|[ugo]))+)*)$/,
  'a mode such as 755, +x or u+rw,go-w',
);

const checksum = (name: string): CommandSpec =>
  getopt(
    name,
    [
      flag('-b', '--binary'),
      flag('-t', '--text'),
      flag('-z', '--zero'),
      flag('--tag'),
      refused(
        ['-c', '--check'],
        'path-outside-roots',
        `\`${name} --check\` reads the file names to check from a file, which the policy cannot check.`,
        {
          instead: `${name} FILE… and compare the sums`,
        },
      ),
    ],
    { rest: pathOrStdio },
  );

export const FILE_INFO: Readonly<Record<string, CommandSpec>> = {
  stat: getopt(
    'stat',
    [
      flag('-L', '--dereference'),
      flag('-f', '--file-system'),
      flag('-t', '--terse'),
      opt(['-c', '--format'], described('a format such as %s %n')),
      opt('--printf', described('a format such as %s\\n')),
      optional('--cached', choice('always', 'never', 'default')),
    ],
    { rest: path, min: 1 },
  ),
  file: {
    ...getopt(
      'file',
      [
        flag('-b', '--brief'),
        flag('-i', '--mime'),
        flag('--mime-type'),
        flag('--mime-encoding'),
        flag('--extension'),
        flag('-L', '--dereference'),
        flag('-h', '--no-dereference'),
        flag('-k', '--keep-going'),
        flag('-r', '--raw'),
        flag('-N', '--no-pad'),
        flag('-0', '--print0'),
        flag('-E'),
        flag('-p', '--preserve-date'),
        flag('-s', '--special-files'),
        opt(['-F', '--separator'], text),
        opt(
          ['-e', '--exclude'],
          choice(
            'apptype',
            'ascii',
            'cdf',
            'compress',
            'csv',
            'elf',
            'encoding',
            'json',
            'soft',
            'tar',
            'text',
            'tokens',
          ),
        ),
        opt(['-m', '--magic-file'], path),
        listFromFile('file', '-f', 'file FILE…'),
        refused(
          ['-z', '--uncompress', '-Z', '--uncompress-noreport'],
          'runs-command-option',
          '`file -z` runs decompressors on the file.',
        ),
        refused(['-C', '--compile'], 'config-write', '`file -C` writes a compiled magic file.'),
      ],
      { rest: path, min: 1 },
    ),
  },
  du: getopt(
    'du',
    [
      flag('-s', '--summarize'),
      flag('-h', '--human-readable'),
      flag('-a', '--all'),
      flag('-c', '--total'),
      opt(['-d', '--max-depth'], matching(/^\d+$/, 'a depth')),
      flag('-k'),
      flag('-m'),
      flag('-b', '--bytes'),
      flag('--apparent-size'),
      flag('-x', '--one-file-system'),
      flag('--si'),
      flag('-0', '--null'),
      flag('-S', '--separate-dirs'),
      flag('-l', '--count-links'),
      flag('-P', '--no-dereference'),
      flag('-D', '-H', '--dereference-args'),
      opt(['-B', '--block-size'], matching(/^\d*[KMGT]?i?B?$/, 'a size such as K or 1M')),
      opt('--exclude', text),
      opt(['-X', '--exclude-from'], path),
      opt(['-t', '--threshold'], matching(/^-?\d+[KMGT]?$/, 'a size such as 1M')),
      flag('--inodes'),
      optional('--time', choice('atime', 'access', 'use', 'ctime', 'status')),
      refused(
        ['-L', '--dereference'],
        'path-outside-roots',
        '`du -L` follows every symlink it meets, which can leave the workspace.',
      ),
      listFromFile('du', '--files0-from', 'du PATH…'),
    ],
    { rest: path },
  ),
  // df prints mount points and usage, which every process in the container may see (/proc/mounts).
  df: getopt(
    'df',
    [
      flag('-h', '--human-readable'),
      flag('-H', '--si'),
      flag('-k'),
      flag('-T', '--print-type'),
      flag('-i', '--inodes'),
      flag('-a', '--all'),
      flag('-l', '--local'),
      flag('-P', '--portability'),
      flag('--total'),
      optional('--output', matching(/^[a-z,]+$/, 'fields such as source,size,used')),
      opt(['-t', '--type'], text),
      opt(['-x', '--exclude-type'], text),
      opt(['-B', '--block-size'], matching(/^\d*[KMGT]?i?B?$/, 'a size such as K or 1M')),
    ],
    { rest: path },
  ),
  chmod: getopt(
    'chmod',
    [
      flag('-R', '--recursive'),
      flag('-v', '--verbose'),
      flag('-c', '--changes'),
      flag('-f', '--silent', '--quiet'),
      flag('--preserve-root'),
      opt('--reference', path),
    ],
    (given: ReadonlySet<string>) =>
      given.has('--reference') ? { rest: path, min: 1 } : { each: [MODE], rest: path, min: 2 },
  ),
  // A symbolic link's target is resolved from the link's directory, so it is checked from there
  // (`ln -s ../README.md docs/readme`); the link itself, and a hard link's target, from the working directory.
  ln: {
    ...getopt(
      'ln',
      [
        flag('-s', '--symbolic'),
        flag('-f', '--force'),
        flag('-n', '--no-dereference'),
        flag('-r', '--relative'),
        flag('-v', '--verbose'),
        flag('-T', '--no-target-directory'),
        flag('-L', '--logical'),
        flag('-P', '--physical'),
      ],
      (given: ReadonlySet<string>) =>
        given.has('-s')
          ? { rest: described('a link target, then the link'), min: 1 }
          : { rest: path, min: 1 },
    ),
    checkOperands: (operands, given, fs) => {
      if (!given.has('-s')) return undefined;
      const link = operands.length > 1 ? operands[operands.length - 1]! : '.';
      const targets = operands.length > 1 ? operands.slice(0, -1) : operands;
      const linkDir =
        operands.length === 1 || (!given.has('-T') && fs.isDirectory(link)) ? link : dirname(link);
      if (!fs.inside(link))
        return refusal(
          'path-outside-roots',
          `the link ${JSON.stringify(link)} resolves outside the workspace roots.`,
        );
      // -r makes ln compute the target relative to the link itself, from a target named from the working directory.
      for (const target of targets)
        if (!fs.inside(target, given.has('-r') ? '.' : linkDir))
          return refusal(
            'path-outside-roots',
            `the link target ${JSON.stringify(target)} resolves outside the workspace roots (from ${JSON.stringify(linkDir)}).`,
            'link targets inside the workspace roots, relative to the directory the link is made in',
          );
      return undefined;
    },
  },
  realpath: getopt(
    'realpath',
    [
      flag('-e', '--canonicalize-existing'),
      flag('-m', '--canonicalize-missing'),
      flag('-L', '--logical'),
      flag('-P', '--physical'),
      flag('-q', '--quiet'),
      flag('-s', '--strip', '--no-symlinks'),
      flag('-z', '--zero'),
      opt('--relative-to', path),
      opt('--relative-base', path),
    ],
    { rest: path, min: 1 },
  ),
  readlink: getopt(
    'readlink',
    [
      flag('-f', '--canonicalize'),
      flag('-e', '--canonicalize-existing'),
      flag('-m', '--canonicalize-missing'),
      flag('-n', '--no-newline'),
      flag('-q', '--quiet'),
      flag('-s', '--silent'),
      flag('-v', '--verbose'),
      flag('-z', '--zero'),
    ],
    { rest: path, min: 1 },
  ),
  sha256sum: checksum('sha256sum'),
  sha1sum: checksum('sha1sum'),
  sha512sum: checksum('sha512sum'),
  sha224sum: checksum('sha224sum'),
  sha384sum: checksum('sha384sum'),
  md5sum: checksum('md5sum'),
  b2sum: checksum('b2sum'),
};
