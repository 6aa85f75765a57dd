/**
 * GNU make. The Makefile is repository code and runs by design; argv may not add code (`--eval`) or override
 * what recipes run: command-line variable assignments are refused unless their value is a number or a
 * yes/no word, because any variable (CC, SHELL, or one a recipe uses as a command) can name a program.
 */
import { isAbsolute } from 'node:path';
import {
  choice,
  flag,
  infoFlag,
  matching,
  opt,
  optional,
  path,
  refusal,
  refused,
  text,
} from '../options/build.ts';
import type { CommandSpec, ValueSpec } from '../options/spec.ts';
import { GETOPT_LONG } from '../options/syntaxes.ts';

/** Values that cannot name a program or carry flags. */
const PLAIN_VALUE = /^(\d+|true|false|yes|no|on|off|y|n|)$/i;

const target: ValueSpec = {
  kind: 'custom',
  describe: 'a target, or VAR=value with a number or yes/no value',
  check(value, inside) {
    const eq = value.indexOf('=');
    if (eq >= 0) {
      if (value.slice(0, eq).endsWith('!'))
        return refusal('make-eval', `\`${value}\` runs a shell command while the makefile is read.`);
      if (!PLAIN_VALUE.test(value.slice(eq + 1)))
        return refusal(
          'make-assignment',
          `\`${value}\` overrides a variable from argv; a recipe may run its value as a program (CC, SHELL, ...).`,
          'assignments with a number or yes/no/true/false value (V=1), or set variables in the Makefile',
        );
      return undefined;
    }
    // A target written as a path names the file make builds: it must stay inside the roots.
    if ((isAbsolute(value) || value.split('/').includes('..')) && !inside(value))
      return refusal(
        'path-outside-roots',
        `the target ${JSON.stringify(value)} lies outside the workspace roots.`,
      );
    return undefined;
  },
};

export const MAKE: CommandSpec = {
  name: 'make',
  syntax: GETOPT_LONG,
  options: [
    opt(['-C', '--directory'], path, { changesDirectory: true }),
    opt(['-f', '--file', '--makefile'], path),
    opt(['-I', '--include-dir'], path),
    {
      names: ['-j', '--jobs'],
      value: matching(/^\d+$/, 'a number of jobs'),
      optionalValue: true,
      optionalValueNextNumber: true,
    },
    optional(['-l', '--load-average', '--max-load'], matching(/^\d+(\.\d+)?$/, 'a load such as 2.5')),
    flag('-k', '--keep-going'),
    flag('-S', '--no-keep-going', '--stop'),
    flag('-s', '--silent', '--quiet'),
    flag('--no-silent'),
    flag('-n', '--just-print', '--dry-run', '--recon'),
    flag('-B', '--always-make'),
    flag('-i', '--ignore-errors'),
    flag('-r', '--no-builtin-rules'),
    flag('-R', '--no-builtin-variables'),
    flag('-w', '--print-directory'),
    flag('--no-print-directory'),
    flag('-t', '--touch'),
    flag('-q', '--question'),
    flag('-p', '--print-data-base'),
    flag('-e', '--environment-overrides'),
    flag('-L', '--check-symlink-times'),
    flag('--trace'),
    flag('--warn-undefined-variables'),
    flag('-d'),
    optional('--debug', matching(/^[abvijmnpw,]*$/, 'debug flags such as b,v')),
    optional(['-O', '--output-sync'], choice('none', 'line', 'target', 'recurse')),
    opt(['-o', '--old-file', '--assume-old'], path),
    opt(['-W', '--what-if', '--new-file', '--assume-new'], path),
    infoFlag('-v', '--version'),
    infoFlag('-h', '--help'),
    refused(['-E', '--eval'], 'make-eval', '`make --eval` evaluates makefile code from the command line.', {
      value: text,
      instead: 'targets and -C/-f/-j/-k; the Makefile is where rules live',
    }),
  ],
  positionals: { rest: target },
};

export const MAKES: Readonly<Record<string, CommandSpec>> = { make: MAKE, gmake: { ...MAKE, name: 'gmake' } };
