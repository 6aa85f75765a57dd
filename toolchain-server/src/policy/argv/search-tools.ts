/**
 * jq and ripgrep. jq's filter language runs no programs and writes no files; its file operands are confined,
 * and module loading (`-L`, `import`/`include`, which also load JSON data from any path) is refused. ripgrep
 * searches like `grep -r`; what would run a program (`--pre`, `--search-zip`'s decompressors) or read a list of
 * patterns or ignore rules from outside the workspace is refused or confined.
 */
import {
  choice,
  flag,
  infoFlag,
  matching,
  number,
  opt,
  path,
  pathOrStdio,
  refusal,
  refused,
  text,
} from '../options/build.ts';
import type { CommandSpec, Syntax, ValueSpec } from '../options/spec.ts';
import { CLAP } from '../options/syntaxes.ts';

/** A jq filter: `import`/`include` would load `.jq` modules or `.json` data from any path (the config file). */
const jqFilter: ValueSpec = {
  kind: 'custom',
  describe: 'a jq filter',
  check: (value) =>
    /\b(import|include)\b/.test(value)
      ? refusal(
          'interpreter-preload',
          'a jq `import`/`include` loads modules or JSON data from a search path or any absolute path.',
          'the filter inline, or the data as an operand in the workspace',
        )
      : undefined,
};

/** jq's own parser: short letters may be clustered (`-rc`), exact long names, options anywhere. */
const JQ: Syntax = { ...CLAP, name: 'jq' };

const jq: CommandSpec = {
  name: 'jq',
  syntax: JQ,
  options: [
    flag('-r', '--raw-output'),
    flag('-j', '--join-output'),
    flag('-a', '--ascii-output'),
    flag('-c', '--compact-output'),
    flag('-s', '--slurp'),
    flag('-n', '--null-input'),
    flag('-e', '--exit-status'),
    flag('-S', '--sort-keys'),
    flag('-C', '--color-output'),
    flag('-M', '--monochrome-output'),
    flag('-R', '--raw-input'),
    flag('--tab'),
    opt('--indent', number),
    flag('--seq'),
    flag('--stream'),
    // jq reads the filter from the first operand's file when -f is given.
    flag('-f', '--from-file'),
    refused(
      ['-L', '--library-path'],
      'interpreter-preload',
      '`jq -L` loads modules from a library directory.',
      {
        value: text,
        instead: 'the filter inline, or jq -f filter.jq from the workspace',
      },
    ),
    infoFlag('-h', '--help'),
    infoFlag('-V', '--version'),
  ],
  positionals: (given) => (given.has('-f') ? { rest: pathOrStdio } : { each: [jqFilter], rest: pathOrStdio }),
};

/** ripgrep's clap parser. */
const RG: Syntax = { ...CLAP, name: 'ripgrep (clap)' };

const rg: CommandSpec = {
  name: 'rg',
  syntax: RG,
  options: [
    opt(['-e', '--regexp'], text),
    opt(['-f', '--file'], path),
    flag('-i', '--ignore-case'),
    flag('-S', '--smart-case'),
    flag('-s', '--case-sensitive'),
    flag('-v', '--invert-match'),
    flag('-w', '--word-regexp'),
    flag('-x', '--line-regexp'),
    flag('-F', '--fixed-strings'),
    flag('-P', '--pcre2'),
    flag('-U', '--multiline'),
    flag('-c', '--count'),
    flag('--count-matches'),
    flag('-l', '--files-with-matches'),
    flag('--files-without-match'),
    flag('--files'),
    flag('-n', '--line-number'),
    flag('-N', '--no-line-number'),
    flag('-H', '--with-filename'),
    flag('-I', '--no-filename'),
    flag('-o', '--only-matching'),
    flag('-q', '--quiet'),
    flag('--no-heading'),
    flag('--heading'),
    flag('--column'),
    flag('--vimgrep'),
    flag('--json'),
    flag('-0', '--null'),
    flag('--hidden'),
    flag('--no-ignore'),
    flag('--no-ignore-vcs'),
    flag('-u', '--unrestricted'),
    flag('-a', '--text'),
    flag('--sort-files'),
    opt('--sort', choice('path', 'modified', 'accessed', 'created', 'none')),
    opt('--sortr', choice('path', 'modified', 'accessed', 'created', 'none')),
    opt(['-A', '--after-context'], number),
    opt(['-B', '--before-context'], number),
    opt(['-C', '--context'], number),
    opt(['-m', '--max-count'], number),
    opt(['-d', '--max-depth'], number),
    opt('--max-filesize', matching(/^\d+[KMG]?$/, 'a size such as 1M')),
    opt(['-g', '--glob'], text),
    opt('--iglob', text),
    opt(['-t', '--type'], matching(/^[A-Za-z0-9_+-]+$/, 'a file type such as py')),
    opt(['-T', '--type-not'], matching(/^[A-Za-z0-9_+-]+$/, 'a file type such as py')),
    flag('--type-list'),
    opt(['-r', '--replace'], text),
    opt(['-M', '--max-columns'], number),
    opt(['-j', '--threads'], number),
    opt('--color', choice('never', 'auto', 'always', 'ansi')),
    opt('--ignore-file', path),
    flag('--no-config'),
    flag('--trim'),
    flag('--stats'),
    flag('-p', '--pretty'),
    refused('--pre', 'runs-command-option', '`rg --pre` runs a program on every file searched.', {
      value: text,
      instead: 'rg without --pre',
    }),
    refused('--pre-glob', 'runs-command-option', '`rg --pre-glob` selects files for a --pre program.', {
      value: text,
    }),
    refused(
      ['-z', '--search-zip'],
      'runs-command-option',
      '`rg -z` runs decompression programs found on PATH.',
    ),
    refused(
      ['-L', '--follow'],
      'path-outside-roots',
      '`rg -L` follows every symlink it meets, which can leave the workspace.',
    ),
    infoFlag('-h', '--help'),
    infoFlag('-V', '--version'),
  ],
  positionals: (given) =>
    given.has('-e') || given.has('-f') || given.has('--files') || given.has('--type-list')
      ? { rest: path }
      : { each: [text], rest: path },
};

export const SEARCH_TOOLS: Readonly<Record<string, CommandSpec>> = { jq, rg };
