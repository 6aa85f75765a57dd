/**
 * sed, awk and grep. sed and awk programs are code, so the server makes the tool protect itself: GNU sed always
 * runs with `--sandbox` put first (no `e`, `r`, `w` commands, whatever the option order or POSIXLY_CORRECT),
 * and gawk always with `--sandbox` first (no system(), pipes, redirections, extensions, no new files in ARGV).
 * An awk that is not gawk (Debian's default mawk has no sandbox) runs only a program file from the workspace.
 * grep searches, and its paths are confined.
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
import type { CommandSpec, OptionSpec, Positionals, Requirement, ValueSpec } from '../options/spec.ts';
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
  // First, so no script is compiled before it (`sed -e '1e cmd' --sandbox` under POSIXLY_CORRECT).
  prepend: ['--sandbox'],
};

const awkProgramFile: Requirement = {
  option: '-f',
  refusal: refusal(
    'interpreter-eval',
    "this server's awk is not gawk (Debian's default, mawk, has no --sandbox), and awk program text is code (system(), pipes, redirections); only a program file is accepted.",
    'awk -f prog.awk [files] with the program in the workspace; or have gawk installed, which the server runs with --sandbox',
  ),
};

/** gawk program text: sandboxed, but `@include`/`@load` would read (and quote in errors) any file. */
const gawkProgram: ValueSpec = {
  kind: 'custom',
  describe: 'awk program text',
  check: (value) =>
    /@\s*(include|load)\b/.test(value)
      ? refusal(
          'interpreter-preload',
          'gawk `@include`/`@load` read source files or extensions named in the program.',
          'the program inline, or gawk -f prog.awk with the program in the workspace',
        )
      : undefined,
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

const awkCommon: OptionSpec[] = [
  opt(['-f', '--file'], path),
  opt(['-v', '--assign'], matching(/^[A-Za-z_][A-Za-z0-9_]*=/, 'var=value')),
  opt(['-F', '--field-separator'], text),
];

function awkRefused(name: string): OptionSpec[] {
  return [
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
  ];
}

/** An awk without a sandbox (mawk, nawk, busybox): a program file from the workspace only. */
function awk(name: string): CommandSpec {
  return {
    name,
    syntax: GETOPT_POSIX,
    options: [
      ...awkCommon,
      refused(['-e', '--source'], 'interpreter-eval', `\`${name} -e\` takes program text, which is code.`, {
        value: text,
        instead: `${name} -f prog.awk [files]`,
      }),
      ...awkRefused(name),
    ],
    positionals: { rest: fileOrAssignment },
    requires: [awkProgramFile],
  };
}

/** gawk (also when `awk` resolves to it): program text allowed, always run with `--sandbox` first. */
function gawk(name: string): CommandSpec {
  return {
    name,
    syntax: GETOPT_POSIX,
    options: [flag('--sandbox'), ...awkCommon, opt(['-e', '--source'], gawkProgram), ...awkRefused(name)],
    positionals: (given) =>
      given.has('-f') || given.has('-e')
        ? { rest: fileOrAssignment }
        : {
            each: [gawkProgram],
            rest: fileOrAssignment,
            min: 1,
            missing: refusal(
              'positional-not-allowed',
              `\`${name}\` needs a program.`,
              `${name} 'program' [files]`,
            ),
          },
    prepend: ['--sandbox'],
  };
}

const AWK_NAMES = ['awk', 'gawk', 'mawk', 'nawk'] as const;

/**
 * The awk table for `name` as resolved at start: `program` is the real file name of the binary (`awk` is an
 * alternatives link to gawk or mawk on Debian). Undefined for other names.
 */
export function awkTable(name: string, program: string | undefined): CommandSpec | undefined {
  if (!(AWK_NAMES as readonly string[]).includes(name)) return undefined;
  return /^gawk(-[\d.]+)?$/.test(program ?? name) ? gawk(name) : awk(name);
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
};
