/**
 * The shared option parser on small synthetic tables, one syntax feature per case: what it accepts, how it
 * re-emits argv, and the rule each refusal names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolError } from '../../toolchain-server/src/errors.ts';
import { flag, opt, optional, refused, text } from '../../toolchain-server/src/policy/options/build.ts';
import { type ParseOptions, parseCommand } from '../../toolchain-server/src/policy/options/parse.ts';
import type { CommandSpec } from '../../toolchain-server/src/policy/options/spec.ts';
import {
  ARGP_TAR,
  CPYTHON,
  GETOPT_LONG,
  GNU_ECHO,
  GO_FLAG,
  NODE,
  NOPT,
  RUSTC,
  TSC,
} from '../../toolchain-server/src/policy/options/syntaxes.ts';

const getopt: CommandSpec = {
  name: 'tool',
  syntax: GETOPT_LONG,
  options: [
    flag('-k', '--keep-going'),
    flag('-v', '--verbose'),
    opt(['-f', '--file'], text),
    optional(['-j', '--jobs'], text),
    flag('--version'),
    flag('--verify'),
    refused(['-E', '--eval'], 'make-eval', 'evaluates code', { value: text }),
  ],
  positionals: { rest: text },
};

const gnu = { posixlyCorrect: false };

function run(spec: CommandSpec, args: string[], options: ParseOptions = gnu): string[] {
  return parseCommand(spec, args, options).argv;
}

function rule(spec: CommandSpec, args: string[], options: ParseOptions = gnu): string | undefined {
  try {
    parseCommand(spec, args, options);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ToolError, String(error));
    assert.equal(error.code, 'TOOLYARD_POLICY_DENIED');
    assert.ok(error.allowed, 'a refusal says what is allowed');
    return error.rule;
  }
}

describe('option parser: getopt_long', () => {
  it('keeps options written exactly as listed, word for word', () => {
    assert.deepEqual(run(getopt, ['-f', 'a', '--file=b', '--file', 'c', '-fd', 'x']), [
      '-f',
      'a',
      '--file=b',
      '--file',
      'c',
      '-fd',
      'x',
    ]);
  });

  it('expands unique abbreviations to the full name and refuses ambiguous ones', () => {
    assert.deepEqual(run(getopt, ['--keep', '--fi=x']), ['--keep-going', '--file=x']);
    assert.equal(rule(getopt, ['--ver']), 'option-ambiguous');
    assert.deepEqual(run(getopt, ['--vers']), ['--version']);
    assert.deepEqual(run(getopt, ['--verb']), ['--verbose']);
    // An exact name wins over being a prefix of a longer one.
    assert.deepEqual(run(getopt, ['--verify']), ['--verify']);
  });

  it('recognises abbreviations of refused options, so they are refused with their rule', () => {
    assert.equal(rule(getopt, ['--ev=x']), 'make-eval');
    assert.equal(rule(getopt, ['--e', 'x']), 'make-eval');
    assert.equal(rule(getopt, ['-kE', 'x']), 'make-eval');
    assert.equal(rule(getopt, ['-kvEx']), 'make-eval');
  });

  it('splits clusters; a value-taking letter takes the rest of the word or the next word', () => {
    assert.deepEqual(run(getopt, ['-kvfname']), ['--keep-going', '--verbose', '--file=name']);
    assert.deepEqual(run(getopt, ['-kvf', '-E']), ['--keep-going', '--verbose', '--file=-E']);
    assert.deepEqual(run(getopt, ['-kj4', 't']), ['--keep-going', '--jobs=4', 't']);
    // An optional value is only ever attached: the next word stays an operand.
    assert.deepEqual(run(getopt, ['-j', '4']), ['-j', '4']);
  });

  it('refuses unknown options, values on flags, and missing values', () => {
    assert.equal(rule(getopt, ['-x']), 'option-not-allowed');
    assert.equal(rule(getopt, ['-kx']), 'option-not-allowed');
    assert.equal(rule(getopt, ['--nope']), 'option-not-allowed');
    assert.equal(rule(getopt, ['--keep-going=yes']), 'option-value');
    assert.equal(rule(getopt, ['-f']), 'option-value');
  });

  it('permutes: options after operands are options, until `--`', () => {
    assert.equal(rule(getopt, ['a', '-E', 'x']), 'make-eval');
    assert.deepEqual(run(getopt, ['a', '--', '-E', 'x']), ['a', '--', '-E', 'x']);
  });

  it('with POSIXLY_CORRECT stops at the first operand', () => {
    // What follows the first operand is an operand for the tool, even when it looks like a refused option.
    assert.deepEqual(run(getopt, ['a', '-E', 'x'], { posixlyCorrect: true }), ['a', '-E', 'x']);
    const files: CommandSpec = { ...getopt, positionals: { rest: { kind: 'path' } } };
    // Where operands are paths, one that starts with - must come after -- (the tool would read it as a file).
    assert.equal(rule(files, ['a', '-k'], { posixlyCorrect: true }), 'positional-not-allowed');
  });
});

describe('option parser: other syntaxes', () => {
  it('old-style tar letters take their values from the following words in order', () => {
    const tar: CommandSpec = {
      name: 'tar',
      syntax: ARGP_TAR,
      options: [
        flag('--create', '-c'),
        flag('--gzip', '-z'),
        opt(['--file', '-f'], text),
        opt(['--directory', '-C'], text),
        refused(['--use-compress-program', '-I'], 'runs-command-option', 'runs a program', { value: text }),
      ],
      positionals: { rest: text },
    };
    assert.deepEqual(run(tar, ['czfC', 'a.tgz', 'dir', 'src']), [
      '--create',
      '--gzip',
      '--file=a.tgz',
      '--directory=dir',
      'src',
    ]);
    assert.equal(rule(tar, ['cfI', 'a.tar', 'prog']), 'runs-command-option');
    assert.equal(rule(tar, ['-cI', 'prog']), 'runs-command-option');
    assert.equal(rule(tar, ['--use=prog']), 'runs-command-option');
  });

  it('node: `_` spells `-`, values consume the next word even when it starts with -', () => {
    const node: CommandSpec = {
      name: 'node',
      syntax: NODE,
      options: [
        opt('--title', text),
        refused(['--eval', '-e'], 'interpreter-eval', 'evaluates code', { value: text }),
        refused('--experimental-loader', 'interpreter-preload', 'loads code', { value: text }),
      ],
      positionals: { each: [text], rest: text },
    };
    assert.equal(rule(node, ['--experimental_loader', 'x', 'a.js']), 'interpreter-preload');
    assert.deepEqual(run(node, ['--title', '-e', 'a.js']), ['--title', '-e', 'a.js']);
    assert.equal(rule(node, ['--title', 'x', '-e', 'code']), 'interpreter-eval');
    // After the script, everything is the script's.
    assert.deepEqual(run(node, ['a.js', '-e', 'x']), ['a.js', '-e', 'x']);
    // No abbreviations in node.
    assert.equal(rule(node, ['--tit', 'x']), 'option-not-allowed');
  });

  it('CPython: clusters with attached values, options stop at the script', () => {
    const python: CommandSpec = {
      name: 'python',
      syntax: CPYTHON,
      options: [
        flag('-B'),
        flag('-u'),
        opt('-W', text),
        refused('-c', 'interpreter-eval', 'code', { value: text }),
      ],
      positionals: { each: [text], rest: text },
    };
    assert.equal(rule(python, ['-Bc', 'x']), 'interpreter-eval');
    assert.equal(rule(python, ['-W', 'ignore', '-c', 'x']), 'interpreter-eval');
    assert.deepEqual(run(python, ['-BWignore', 's.py', '-c', 'x']), ['-B', '-Wignore', 's.py', '-c', 'x']);
    assert.deepEqual(run(python, ['-BW', 'ignore', 's.py']), ['-B', '-Wignore', 's.py']);
  });

  it("Go's flag package: one or two dashes, =true/false on flags, no clusters", () => {
    const go: CommandSpec = {
      name: 'go',
      syntax: GO_FLAG,
      options: [
        flag('-v'),
        opt('-run', text),
        refused('-toolexec', 'runs-command-option', 'runs', { value: text }),
      ],
      positionals: { rest: text },
    };
    assert.deepEqual(run(go, ['--run=x', '-v=false', './...']), ['-run=x', '-v=false', './...']);
    assert.equal(rule(go, ['--toolexec', 'sh']), 'runs-command-option');
    assert.equal(rule(go, ['-v=maybe']), 'option-value');
  });

  it('nopt: abbreviations, `--flag true`, whole-word multi-letter shorthands', () => {
    const npm: CommandSpec = {
      name: 'npm',
      syntax: NOPT,
      options: [flag('--json'), opt(['--prefix', '-C'], text), flag('--workspaces', '-ws')],
      positionals: { rest: text },
    };
    assert.deepEqual(run(npm, ['--pref', '.', 'test']), ['--prefix=.', 'test']);
    assert.deepEqual(run(npm, ['--json', 'true', 'test']), ['--json', 'true', 'test']);
    assert.deepEqual(run(npm, ['-ws', 'test']), ['-ws', 'test']);
  });

  it('tsc: case-insensitive names re-emitted in their listed spelling', () => {
    const tsc: CommandSpec = {
      name: 'tsc',
      syntax: TSC,
      options: [flag('--noEmit'), flag('--pretty')],
      positionals: {},
    };
    assert.deepEqual(run(tsc, ['--NOEMIT', '--pretty', 'false']), ['--noEmit', '--pretty', 'false']);
  });

  it('response files are refused: the policy cannot see their arguments', () => {
    const rustc: CommandSpec = { name: 'rustc', syntax: RUSTC, options: [], positionals: { rest: text } };
    assert.equal(rule(rustc, ['@args.txt']), 'response-file');
  });

  it('GNU echo prints words that are not all its option letters', () => {
    const echo: CommandSpec = {
      name: 'echo',
      syntax: GNU_ECHO,
      options: [flag('-n'), flag('-e')],
      positionals: { rest: text },
    };
    assert.deepEqual(run(echo, ['-n', '-x', '-ne', 'hi']), ['-n', '-x', '-ne', 'hi']);
  });

  it('subcommands switch tables; a refused subcommand names its rule', () => {
    const tool: CommandSpec = {
      name: 'tool',
      syntax: GETOPT_LONG,
      options: [flag('-q')],
      resolveSubcommand: (w) => (w === 't' ? 'test' : w),
      subcommands: {
        test: { name: 'tool test', options: [flag('--fast')], positionals: { rest: text } },
        exec: { rule: 'package-runner', why: 'runs anything' },
      },
    };
    assert.deepEqual(run(tool, ['-q', 't', '--fast', 'x']), ['-q', 'test', '--fast', 'x']);
    assert.equal(rule(tool, ['exec', 'x']), 'package-runner');
    assert.equal(rule(tool, ['nope']), 'subcommand-not-allowed');
    assert.equal(rule(tool, ['test', '-q']), 'option-not-allowed');
  });

  it("a command operand hands the rest of argv to that program's table (uv run pytest -x)", () => {
    const pytest: CommandSpec = {
      name: 'pytest',
      syntax: GETOPT_LONG,
      options: [flag('-x')],
      positionals: { rest: text },
    };
    const script: CommandSpec = { name: 'script', options: [], positionals: { each: [text], rest: text } };
    const runner: CommandSpec = {
      name: 'run',
      syntax: { ...GETOPT_LONG, permute: 'first' },
      options: [flag('-q'), flag('-m')],
      commandOperand: (word, given) =>
        word === 'pytest' && !given.has('-m')
          ? { table: pytest }
          : word.endsWith('.py')
            ? { table: script, operand: true }
            : { rule: 'command-wrapper', why: 'runs any program', instead: 'pytest' },
    };
    // The program's name passes as written; its own options are read by its table, not the runner's.
    assert.deepEqual(run(runner, ['-q', 'pytest', '-x', 'a']), ['-q', 'pytest', '-x', 'a']);
    assert.equal(rule(runner, ['pytest', '-q']), 'option-not-allowed');
    assert.deepEqual(run(runner, ['--', 'pytest', '-x']), ['--', 'pytest', '-x']);
    // A script is the target's first operand; options seen before decide (here -m makes pytest a refusal).
    assert.deepEqual(run(runner, ['t.py', '-q']), ['t.py', '-q']);
    assert.equal(rule(runner, ['-m', 'pytest']), 'command-wrapper');
    assert.equal(rule(runner, ['sh', '-c', 'x']), 'command-wrapper');
    assert.deepEqual(run(runner, ['-q']), ['-q']);
  });

  it('requirements and operand counts', () => {
    const sed: CommandSpec = {
      name: 'sed',
      syntax: GETOPT_LONG,
      options: [flag('--sandbox')],
      positionals: { each: [text, text], min: 1 },
      requires: [{ option: '--sandbox', refusal: { rule: 'interpreter-eval', why: 'needs a sandbox' } }],
    };
    assert.equal(rule(sed, ['s/a/b/']), 'interpreter-eval');
    assert.equal(rule(sed, ['s/a/b/', '--sandbox'], { posixlyCorrect: true }), 'interpreter-eval');
    assert.deepEqual(run(sed, ['s/a/b/', 'f', '--sandbox']), ['s/a/b/', 'f', '--sandbox']);
    assert.equal(rule(sed, ['--sandbox']), 'positional-not-allowed');
    assert.equal(rule(sed, ['--sandbox', 'a', 'b', 'c']), 'positional-not-allowed');
  });
});
