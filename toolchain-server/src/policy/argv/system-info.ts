/**
 * Small commands that print facts or format text: date, uname, whoami, id, hostname, nproc, which, seq, printf,
 * test, and env alone. None runs another program (`env COMMAND` is refused: it is a wrapper) and none writes;
 * file operands are confined like any path.
 */
import {
  choice,
  described,
  flag,
  infoFlag,
  matching,
  opt,
  optional,
  path,
  pathspec,
  refusal,
  refused,
  text,
} from '../options/build.ts';
import type { CommandSpec, OptionSpec, Positionals, Syntax } from '../options/spec.ts';
import { FIND, GETOPT_LONG, GETOPT_POSIX, GNU_ECHO } from '../options/syntaxes.ts';

const info: OptionSpec[] = [infoFlag('--help'), infoFlag('--version')];

function getopt(name: string, options: OptionSpec[], positionals: Positionals = {}): CommandSpec {
  return { name, syntax: GETOPT_LONG, options: [...options, ...info], positionals };
}

const NUMBER = matching(/^-?\d+(\.\d+)?$/, 'a number');

/** test's expression: unary file tests take a path, string tests text; the rest are operands and operators. */
const TEST_SYNTAX: Syntax = {
  ...FIND,
  name: 'test expression',
  operators: ['(', ')', '!', '=', '==', '!='],
};

const WRAPPER =
  'call the allowed command directly; the server sets the environment itself (env.set, and the call’s env field for allowed names)';

export const SYSTEM_INFO: Readonly<Record<string, CommandSpec>> = {
  date: getopt(
    'date',
    [
      opt(['-d', '--date'], text),
      opt(['-r', '--reference'], path),
      flag('-u', '--utc', '--universal'),
      flag('-R', '--rfc-email'),
      optional(['-I', '--iso-8601'], choice('date', 'hours', 'minutes', 'seconds', 'ns')),
      opt('--rfc-3339', choice('date', 'seconds', 'ns')),
      opt(['-f', '--file'], path),
    ],
    // Only `+FORMAT`: an operand without `+` sets the clock.
    {
      each: [
        matching(
          /^\+/,
          'a format such as +%Y-%m-%d',
          refusal('positional-not-allowed', '`date MMDDhhmm` sets the clock.', 'date +FORMAT'),
        ),
      ],
    },
  ),
  uname: getopt('uname', [
    flag('-a', '--all'),
    flag('-s', '--kernel-name'),
    flag('-n', '--nodename'),
    flag('-r', '--kernel-release'),
    flag('-v', '--kernel-version'),
    flag('-m', '--machine'),
    flag('-p', '--processor'),
    flag('-i', '--hardware-platform'),
    flag('-o', '--operating-system'),
  ]),
  whoami: getopt('whoami', []),
  id: getopt(
    'id',
    [
      flag('-u', '--user'),
      flag('-g', '--group'),
      flag('-G', '--groups'),
      flag('-n', '--name'),
      flag('-r', '--real'),
      flag('-z', '--zero'),
    ],
    { each: [matching(/^[A-Za-z0-9._-]+$/, 'a user name')] },
  ),
  hostname: getopt('hostname', [
    flag('-s', '--short'),
    flag('-f', '--fqdn', '--long'),
    flag('-i', '--ip-address'),
    flag('-d', '--domain'),
  ]),
  nproc: getopt('nproc', [flag('--all'), opt('--ignore', matching(/^\d+$/, 'a number'))]),
  // debianutils' which: names only, looked up on the call's PATH.
  which: {
    name: 'which',
    syntax: GETOPT_LONG,
    options: [flag('-a'), flag('-s')],
    positionals: { rest: matching(/^[A-Za-z0-9._+-]+$/, 'a command name'), min: 1 },
  },
  seq: getopt(
    'seq',
    [
      opt(['-f', '--format'], described('a format such as %g')),
      opt(['-s', '--separator'], text),
      flag('-w', '--equal-width'),
    ],
    { rest: NUMBER, min: 1 },
  ),
  // coreutils printf: a format and its arguments, nothing else (no -v as in bash).
  printf: { name: 'printf', syntax: GNU_ECHO, options: [], positionals: { rest: text, min: 1 } },
  test: {
    name: 'test',
    syntax: TEST_SYNTAX,
    options: [
      ...[
        '-b',
        '-c',
        '-d',
        '-e',
        '-f',
        '-g',
        '-G',
        '-h',
        '-k',
        '-L',
        '-N',
        '-O',
        '-p',
        '-r',
        '-s',
        '-S',
        '-u',
        '-w',
        '-x',
      ].map((name) => opt(name, path)),
      opt('-n', text),
      opt('-z', text),
      opt('-t', matching(/^\d+$/, 'a file descriptor')),
      ...['-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-nt', '-ot', '-ef', '-a', '-o'].map((name) =>
        flag(name),
      ),
    ],
    // Operands are strings or numbers; one that names an existing file or looks like a path is confined.
    positionals: { rest: pathspec },
  },
  // env alone prints the environment the call gets: the server's env policy (passthrough, env.set, allowed caller
  // variables; never the server's own secrets). With a command it is a wrapper, refused like the others.
  env: {
    name: 'env',
    // env's getopt stops at the first operand (`+` in its option string): `env sh -c id` is a command.
    syntax: GETOPT_POSIX,
    options: [
      flag('-0', '--null'),
      ...info,
      refused(
        ['-i', '--ignore-environment'],
        'command-wrapper',
        '`env -i` only matters for a command to run.',
        { instead: WRAPPER },
      ),
      refused(['-u', '--unset'], 'command-wrapper', '`env -u` only matters for a command to run.', {
        value: text,
        instead: WRAPPER,
      }),
      refused(
        ['-S', '--split-string'],
        'command-wrapper',
        '`env -S` splits a string into a command to run.',
        { value: text, instead: WRAPPER },
      ),
      refused(['-C', '--chdir'], 'command-wrapper', '`env -C` changes directory for a command to run.', {
        value: text,
        instead: WRAPPER,
      }),
    ],
    positionals: {
      extra: refusal(
        'command-wrapper',
        '`env COMMAND` runs its arguments as another command, which would bypass the allowlist.',
        WRAPPER,
      ),
    },
  },
};
