/**
 * How each tool family spells its options. Each entry says what that tool's own parser does; the shared
 * parser (`parse.ts`) reads these flags and nothing else, so two tools that parse alike share an entry.
 */
import type { Syntax } from './spec.ts';

/** glibc getopt_long: clusters, attached values, unique-prefix long names, permuted unless POSIXLY_CORRECT. */
export const GETOPT_LONG: Syntax = {
  name: 'getopt_long',
  clusters: true,
  abbreviations: true,
  permute: 'gnu',
  emit: { long: 'equals', short: 'attached' },
};

/** getopt with a leading `+` in its option string (gawk, mawk): options stop at the first operand. */
export const GETOPT_POSIX: Syntax = { ...GETOPT_LONG, name: 'getopt (POSIX order)', permute: 'first' };

/** GNU tar's argp: getopt_long plus old-style letters (`tar cfz a.tgz dir`). */
export const ARGP_TAR: Syntax = { ...GETOPT_LONG, name: 'argp (GNU tar)', oldStyleLetters: true };

/** GNU echo: `-n`, `-e`, `-E` only in front; any other word, dashed or not, is printed. */
export const GNU_ECHO: Syntax = {
  name: 'GNU echo',
  clusters: true,
  abbreviations: false,
  permute: 'first',
  unknownOptionsArePositional: true,
  emit: { long: 'equals', short: 'attached' },
};

/** git's own handling of options before the subcommand (git.c): exact names, stop at the subcommand. */
export const GIT_GLOBAL: Syntax = {
  name: 'git global options',
  clusters: false,
  abbreviations: false,
  permute: 'first',
  emit: { long: 'equals', short: 'separate' },
};

/** git's parse-options: clusters, unique-prefix long names, options anywhere before `--`. */
export const GIT_PARSE_OPTIONS: Syntax = {
  name: 'git parse-options',
  clusters: true,
  abbreviations: true,
  permute: 'anywhere',
  emit: { long: 'equals', short: 'attached' },
};

/** clap (cargo): clusters, no abbreviations, options anywhere before `--`. */
export const CLAP: Syntax = {
  name: 'clap',
  clusters: true,
  abbreviations: false,
  permute: 'anywhere',
  emit: { long: 'equals', short: 'separate' },
};

/** spf13/pflag (helm): like clap for our purposes. */
export const PFLAG: Syntax = { ...CLAP, name: 'pflag' };

/** nopt (npm): unique-prefix long names, `--flag true|false`, options anywhere before `--`. */
export const NOPT: Syntax = {
  name: 'nopt',
  clusters: true,
  abbreviations: true,
  permute: 'anywhere',
  booleanWords: true,
  emit: { long: 'equals', short: 'separate' },
};

/** Python's optparse (pip) and argparse (pytest, mypy): unique-prefix long names, interspersed operands. */
export const PY_ARGPARSE: Syntax = {
  name: 'argparse/optparse',
  clusters: true,
  abbreviations: true,
  permute: 'anywhere',
  emit: { long: 'equals', short: 'attached' },
};

/** CPython's command line: clusters, attached values, options stop at the script, no long abbreviations. */
export const CPYTHON: Syntax = {
  name: 'CPython',
  clusters: true,
  abbreviations: false,
  permute: 'first',
  emit: { long: 'separate', short: 'attached' },
};

/** perl and POSIX shells: like CPython (options up to the script, clusters). */
export const SCRIPT_RUNNER: Syntax = {
  ...CPYTHON,
  name: 'script runner',
  emit: { long: 'separate', short: 'separate' },
};

/** Node's option parser: exact names, `_` read as `-`, options stop at the script. */
export const NODE: Syntax = {
  name: 'node',
  clusters: false,
  abbreviations: false,
  permute: 'first',
  underscoreAsDash: true,
  emit: { long: 'equals', short: 'separate' },
};

/** TypeScript's tsc: case-insensitive names, `--flag false`, `@file` response files. */
export const TSC: Syntax = {
  name: 'tsc',
  clusters: false,
  abbreviations: false,
  permute: 'anywhere',
  caseInsensitive: true,
  booleanWords: true,
  responseFiles: true,
  emit: { long: 'separate', short: 'separate' },
};

/** rustc (getopts) and rustfmt: clusters, no abbreviations, `@file` response files. */
export const RUSTC: Syntax = {
  name: 'rustc getopts',
  clusters: true,
  abbreviations: false,
  permute: 'anywhere',
  responseFiles: true,
  emit: { long: 'equals', short: 'separate' },
};

/** Go's flag package (go, gofmt, terraform): one or two dashes, exact names, stop at the first operand. */
export const GO_FLAG: Syntax = {
  name: 'Go flag',
  clusters: false,
  singleDashLong: true,
  abbreviations: false,
  permute: 'first',
  flagEqualsBoolean: true,
  emit: { long: 'equals', short: 'separate' },
};

/** `go test`: Go flags, but flags and package patterns may be interleaved. */
export const GO_TEST_FLAG: Syntax = { ...GO_FLAG, name: 'go test flags', permute: 'anywhere' };

/** find: starting points, then an expression of single-dash primaries and operators. */
export const FIND: Syntax = {
  name: 'find',
  clusters: false,
  singleDashLong: true,
  abbreviations: false,
  permute: 'anywhere',
  operators: ['(', ')', '!', ','],
  emit: { long: 'separate', short: 'separate' },
};
