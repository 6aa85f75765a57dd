/**
 * sed, awk and grep. sed and awk programs are code: sed runs only in `--sandbox` (no `e`, `r` or `w`
 * commands), awk only from a program file in the workspace. grep searches, and its paths are confined.
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
  refusal,
  refused,
  text,
} from '../options/build.ts';
import type { CommandSpec, Positionals, Requirement, ValueSpec } from '../options/spec.ts';
import { GETOPT_LONG, GETOPT_POSIX } from '../options/syntaxes.ts';

const info = [infoFlag('--help'), infoFlag('--version')];

/** With -e or -f the script is given; otherwise the first operand is the script and the rest are files. */
function scriptThenFiles(script: readonly string[]): (given: ReadonlySet<string>) => Positionals {
  return (given) =>
    script.some((name) => given.has(name)) ? { rest: pathOrStdio } : { each: [text], rest: pathOrStdio };
}

const sed: CommandSpec = {
  name: 'sed',
  syntax: GETOPT_LONG,
  options: [
    flag('--sandbox'),
    flag('-n', '--quiet', '--silent'),
    opt(['-e', '--expression'], text),
    opt(['-f', '--file'], path),
    flag('-E', '-r', '--regexp-extended'),
    // A suffix with a slash would put the backup in another directory.
    optional(['-i', '--in-place'], matching(/^[A-Za-z0-9._~*-]*$/, 'a backup suffix such as .bak')),
    flag('-s', '--separate'),
    flag('-z', '--null-data'),
    flag('-u', '--unbuffered'),
    opt(['-l', '--line-length'], number),
    flag('--posix'),
    flag('--debug'),
    flag('--follow-symlinks'),
    flag('-b', '--binary'),
    ...info,
  ],
  positionals: scriptThenFiles(['-e', '-f']),
  requires: [
    {
      option: '--sandbox',
      refusal: {
        rule: 'interpreter-eval',
        why: 'sed scripts can run commands (`e`) and read or write any file (`r`, `w`) unless sandboxed.',
        instead: 'sed --sandbox ... (before the first file operand)',
      },
    },
  ],
};

const awkProgramFile: Requirement = {
  option: '-f',
  refusal: refusal(
    'interpreter-eval',
    "awk's program text is code (system(), pipes, redirections); only a program file is accepted.",
    'awk -f prog.awk [files], with the program in the workspace',
  ),
};

/** awk operands are files or `var=value` assignments. */
const fileOrAssignment: ValueSpec = {
  kind: 'custom',
  describe: 'a file in the workspace or var=value',
  check: (value, inside) =>
    /^[A-Za-z_][A-Za-z0-9_]*=/.test(value) || value === '-' || inside(value)
      ? undefined
      : refusal('path-outside-roots', `${JSON.stringify(value)} resolves outside the workspace roots.`),
};

function awk(name: string): CommandSpec {
  return {
    name,
    syntax: GETOPT_POSIX,
    options: [
      opt(['-f', '--file'], path),
      opt(['-v', '--assign'], matching(/^[A-Za-z_][A-Za-z0-9_]*=/, 'var=value')),
      opt(['-F', '--field-separator'], text),
      refused(['-e', '--source'], 'interpreter-eval', `\`${name} -e\` takes program text, which is code.`, {
        value: text,
      }),
      refused(['-E', '--exec'], 'interpreter-eval', `\`${name} -E\` ends option processing for a script.`, {
        value: text,
      }),
      refused(
        ['-i', '--include'],
        'interpreter-preload',
        `\`${name} -i\` loads awk source from a library path.`,
        {
          value: text,
        },
      ),
      refused(['-l', '--load'], 'interpreter-preload', `\`${name} -l\` loads a shared-object extension.`, {
        value: text,
      }),
      refused(
        '-W',
        'interpreter-eval',
        `\`${name} -W\` selects implementation options (mawk -W exec runs a program).`,
        {
          value: text,
        },
      ),
      infoFlag('--version'),
    ],
    positionals: { rest: fileOrAssignment },
    requires: [awkProgramFile],
  };
}

const grep: CommandSpec = {
  name: 'grep',
  syntax: GETOPT_LONG,
  options: [
    opt(['-e', '--regexp'], text),
    opt(['-f', '--file'], path),
    flag('-i', '--ignore-case'),
    flag('-y'),
    flag('-v', '--invert-match'),
    flag('-w', '--word-regexp'),
    flag('-x', '--line-regexp'),
    flag('-c', '--count'),
    flag('-l', '--files-with-matches'),
    flag('-L', '--files-without-match'),
    flag('-n', '--line-number'),
    flag('-b', '--byte-offset'),
    flag('-h', '--no-filename'),
    flag('-H', '--with-filename'),
    flag('-o', '--only-matching'),
    flag('-q', '--quiet', '--silent'),
    flag('-s', '--no-messages'),
    flag('-r', '--recursive'),
    refused(
      ['-R', '--dereference-recursive'],
      'path-outside-roots',
      '`grep -R` follows every symlink it meets, which can leave the workspace.',
      { instead: 'grep -r (follows symlinks only on the command line, where they are checked)' },
    ),
    flag('-E', '--extended-regexp'),
    flag('-F', '--fixed-strings'),
    flag('-G', '--basic-regexp'),
    flag('-P', '--perl-regexp'),
    opt(['-A', '--after-context'], number),
    opt(['-B', '--before-context'], number),
    opt(['-C', '--context'], number),
    opt(['-m', '--max-count'], number),
    flag('-a', '--text'),
    flag('-I'),
    flag('-z', '--null-data'),
    flag('-Z', '--null'),
    flag('--line-buffered'),
    optional(['--color', '--colour'], choice('never', 'auto', 'always')),
    opt('--include', text),
    opt('--exclude', text),
    opt('--exclude-dir', text),
    opt('--binary-files', choice('binary', 'text', 'without-match')),
    opt('--label', text),
    ...info,
  ],
  positionals: scriptThenFiles(['-e', '-f']),
};

export const TEXT_TOOLS: Readonly<Record<string, CommandSpec>> = {
  sed,
  gsed: { ...sed, name: 'gsed' },
  grep,
  awk: awk('awk'),
  gawk: awk('gawk'),
  mawk: awk('mawk'),
  nawk: awk('nawk'),
};
