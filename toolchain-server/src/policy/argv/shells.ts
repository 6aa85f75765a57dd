/**
 * POSIX shells and perl run a script file from the workspace — which is code the repository carries, like
 * a Makefile — never a command string (`sh -c`), stdin (`sh -s`, no script), an rc/profile file, or perl code
 * from argv (`-e`, `-E`, `-M`).
 */
import { choice, flag, infoFlag, opt, path, programArgs, refusal, refused, text } from '../options/build.ts';
import type { CommandSpec, Positionals, Refusal, ValueSpec } from '../options/spec.ts';
import { SCRIPT_RUNNER } from '../options/syntaxes.ts';

/** The script: a file inside the roots; not stdin, and not a `+option` word the shell would parse. */
function script(interpreter: string): ValueSpec {
  return {
    kind: 'custom',
    describe: 'a script file in the workspace',
    check(value, inside): Refusal | undefined {
      if (value === '-')
        return refusal('interpreter-stdin', `\`${interpreter} -\` reads commands from stdin.`);
      if (value.startsWith('+'))
        return refusal(
          'option-not-allowed',
          `\`${interpreter} ${value}\`: options written with + are not allowed.`,
        );
      return inside(value)
        ? undefined
        : refusal(
            'path-outside-roots',
            `the script ${JSON.stringify(value)} resolves outside the workspace roots.`,
          );
    },
  };
}

function scriptAndArgs(interpreter: string): Positionals {
  return {
    each: [script(interpreter)],
    rest: programArgs,
    min: 1,
    missing: refusal(
      'interpreter-stdin',
      `${interpreter} without a script reads commands from stdin.`,
      `a script file in the workspace (${interpreter} path/to/script)`,
    ),
  };
}

function shell(name: string): CommandSpec {
  const instead = `a script file in the workspace (${name} path/to/script.sh)`;
  return {
    name,
    syntax: SCRIPT_RUNNER,
    options: [
      flag('-e'),
      flag('-u'),
      flag('-x'),
      flag('-v'),
      flag('-n'),
      flag('-f'),
      opt(
        '-o',
        choice(
          'errexit',
          'nounset',
          'pipefail',
          'xtrace',
          'verbose',
          'noglob',
          'noexec',
          'noclobber',
          'posix',
        ),
      ),
      flag('--norc'),
      flag('--noprofile'),
      flag('--posix'),
      infoFlag('--version'),
      refused('-c', 'interpreter-eval', `\`${name} -c\` runs a command string given in argv.`, { instead }),
      refused('-s', 'interpreter-stdin', `\`${name} -s\` reads commands from stdin.`, { instead }),
      refused('-i', 'interpreter-stdin', `\`${name} -i\` is an interactive shell reading stdin.`, {
        instead,
      }),
      refused(
        ['--rcfile', '--init-file'],
        'interpreter-preload',
        `\`${name} --rcfile\` runs another file first.`,
        {
          value: text,
          instead,
        },
      ),
      refused(
        ['-l', '--login'],
        'interpreter-preload',
        `\`${name} -l\` runs profile files from HOME first.`,
        { instead },
      ),
    ],
    positionals: scriptAndArgs(name),
  };
}

function perl(name: string): CommandSpec {
  const instead = `a script file in the workspace (${name} path/to/script.pl)`;
  return {
    name,
    syntax: SCRIPT_RUNNER,
    options: [
      flag('-w'),
      flag('-W'),
      flag('-X'),
      flag('-T'),
      flag('-t'),
      flag('-c'),
      opt('-I', path),
      flag('-v'),
      refused(['-e', '-E'], 'interpreter-eval', `\`${name} -e\` evaluates code from the command line.`, {
        value: text,
        instead,
      }),
      refused(
        ['-M', '-m'],
        'interpreter-preload',
        `\`${name} -M\` imports a module with arguments, which is code.`,
        {
          value: text,
          instead,
        },
      ),
      refused('-d', 'interpreter-preload', `\`${name} -d\` loads a debugger module (PERL5DB).`, {
        value: text,
        optionalValue: true,
      }),
    ],
    positionals: scriptAndArgs(name),
  };
}

export const SHELLS: Readonly<Record<string, CommandSpec>> = {
  sh: shell('sh'),
  bash: shell('bash'),
  dash: shell('dash'),
  perl: perl('perl'),
};
