/**
 * Python: the interpreter runs a script file from the workspace or one of the listed modules (`-m pytest`,
 * `pip`, `mypy`, `unittest`, `venv`, `ruff`, `json.tool`, `py_compile`), never code from argv (`-c`), stdin, or a module that evaluates
 * its arguments (`-m timeit`, `-m pdb`). A `-W` filter may not name a warning category by module path
 * (importing it is code: the `PYTHONWARNINGS=…:antigravity.…` trick). pip installs registry requirements or
 * local paths and never writes configuration.
 */
import {
  choice,
  flag,
  infoFlag,
  matching,
  number,
  opt,
  path,
  pathspec,
  programArgs,
  refusal,
  refused,
  text,
} from '../options/build.ts';
import type { CommandSpec, OptionSpec, ValueSpec } from '../options/spec.ts';
import { CLAP, CPYTHON, PY_ARGPARSE } from '../options/syntaxes.ts';
import { scriptFile } from './node.ts';

/** action[:message[:category[:module[:lineno]]]] with a built-in category (no dotted module path). */
const warningFilter = matching(
  /^(default|error|ignore|always|all|module|once|[deiaom])(:[^:]*(:[A-Za-z_]*(:[^:]*(:\d*)?)?)?)?$/,
  'a warning filter such as ignore::DeprecationWarning',
  refusal(
    'interpreter-preload',
    'a -W filter whose category is a module path (pkg.Class) imports that module, which is code.',
    'a filter with a built-in category, e.g. ignore::DeprecationWarning',
  ),
);

const xOption = matching(
  /^(dev|utf8(=[01])?|faulthandler|importtime(=2)?|tracemalloc(=\d+)?|warn_default_encoding|no_debug_ranges|int_max_str_digits=\d+|frozen_modules=(on|off)|showrefcount|perf|cpu_count=(\d+|default))$/,
  'an -X option such as dev, utf8 or importtime',
);

/**
 * A requirement pip (or uv) may install: name[extras][specifier], or a local path inside the roots. A URL, a VCS
 * source or a PEP 508 direct reference (`name @ https://…`) fetches code from outside the index.
 */
export const requirement: ValueSpec = {
  kind: 'custom',
  describe: 'a requirement such as requests>=2 or a local path in the workspace',
  check(value, inside) {
    if (
      /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?\s*((===?|>=|<=|~=|!=|<|>)\s*[A-Za-z0-9.*+!-]+\s*,?\s*)*$/.test(
        value,
      )
    )
      return undefined;
    // `name @ target` is a direct reference: the target is read like a requirement of its own.
    const target = /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[^\]]*\])?\s*@\s*(.*)$/s.exec(value)?.[2] ?? value;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('file:'))
      return refusal(
        'package-source',
        `${JSON.stringify(value)} is a VCS or URL source; those run git or fetch code from outside the index.`,
        'requirements from the package index, or local paths in the workspace',
      );
    return inside(target.replace(/^file:(\/\/)?/, ''))
      ? undefined
      : refusal('path-outside-roots', `${JSON.stringify(value)} resolves outside the workspace roots.`);
  },
};

const indexUrl = matching(/^https?:\/\/\S+$/, 'an http(s) index URL');

export const PYTEST_OPTIONS: OptionSpec[] = [
  opt('-k', text),
  opt('-m', text),
  flag('-x', '--exitfirst'),
  opt('--maxfail', number),
  flag('-v', '--verbose'),
  flag('-q', '--quiet'),
  flag('-s'),
  opt('--capture', choice('fd', 'sys', 'no', 'tee-sys')),
  opt('--tb', choice('auto', 'long', 'short', 'line', 'native', 'no')),
  opt('-r', matching(/^[fEsxXpPaAN]+$/, 'report characters such as fE')),
  flag('-l', '--showlocals'),
  flag('--lf', '--last-failed'),
  flag('--ff', '--failed-first'),
  flag('--nf', '--new-first'),
  flag('--sw', '--stepwise'),
  opt('--durations', number),
  opt('--color', choice('yes', 'no', 'auto')),
  flag('--co', '--collect-only'),
  flag('--strict-markers'),
  flag('--strict-config'),
  opt('--rootdir', path),
  opt('-c', path),
  opt('--basetemp', path),
  opt(['--junitxml', '--junit-xml'], path),
  opt('--import-mode', choice('prepend', 'append', 'importlib')),
  flag('--no-header'),
  flag('--no-summary'),
  opt('-W', warningFilter),
  flag('--runxfail'),
  flag('--setup-show'),
  opt('--deselect', text),
  opt('--ignore', path),
  opt('--ignore-glob', text),
  flag('--doctest-modules'),
  flag('--disable-warnings', '--disable-pytest-warnings'),
  infoFlag('-V', '--version'),
  infoFlag('-h', '--help'),
  opt(
    '-p',
    matching(
      /^no:[\w.-]+$/,
      'no:<plugin>',
      refusal(
        'interpreter-preload',
        '`pytest -p` loads a plugin module by name; only `-p no:<plugin>` (disabling one) is allowed.',
      ),
    ),
  ),
  refused(
    ['-o', '--override-ini'],
    'config-override',
    '`pytest -o` overrides ini settings such as addopts, which add options the policy never sees.',
    {
      value: text,
    },
  ),
  refused('--pdb', 'interpreter-stdin', '`pytest --pdb` reads debugger commands from stdin.'),
];

const pytestPositionals = {
  rest: { kind: 'path', strip: /::.*$/s, describe: 'a test path or node id' } as const,
};

export function pytest(name: string): CommandSpec {
  return { name, syntax: PY_ARGPARSE, options: PYTEST_OPTIONS, positionals: pytestPositionals };
}

const pipGeneral: OptionSpec[] = [
  flag('-q', '--quiet'),
  flag('-v', '--verbose'),
  flag('--no-input'),
  flag('--disable-pip-version-check'),
  flag('--no-cache-dir'),
  flag('--isolated'),
  opt('--cache-dir', path),
  flag('--no-color'),
  opt('--progress-bar', choice('on', 'off')),
  infoFlag('-V', '--version'),
  infoFlag('-h', '--help'),
  refused('--python', 'runs-command-option', '`pip --python` runs pip under another interpreter.', {
    value: text,
  }),
];

const pipInstallish: OptionSpec[] = [
  opt(['-r', '--requirement'], path),
  opt(['-c', '--constraint'], path),
  flag('--no-deps'),
  flag('--pre'),
  opt(['-i', '--index-url'], indexUrl),
  opt('--extra-index-url', indexUrl),
  flag('--no-index'),
  opt(['-f', '--find-links'], path),
  opt('--only-binary', text),
  opt('--no-binary', text),
  flag('--require-hashes'),
  flag('--no-build-isolation'),
];

function pipSub(
  name: string,
  options: OptionSpec[],
  positionals: CommandSpec['positionals'] = {},
): CommandSpec {
  return { name: `pip ${name}`, options: [...options, ...pipGeneral], positionals };
}

const pipConfigWrite = (what: string) =>
  refusal(
    'config-write',
    `\`pip config ${what}\` writes pip configuration (index URLs, options) that later installs obey.`,
  );

function pip(name: string): CommandSpec {
  return {
    name,
    syntax: PY_ARGPARSE,
    options: pipGeneral,
    subcommands: {
      install: pipSub(
        'install',
        [
          ...pipInstallish,
          opt(['-e', '--editable'], path),
          opt(['-t', '--target'], path),
          opt('--prefix', path),
          opt('--root', path),
          flag('--user'),
          flag('-U', '--upgrade'),
          opt('--upgrade-strategy', choice('eager', 'only-if-needed')),
          flag('--force-reinstall'),
          flag('-I', '--ignore-installed'),
          flag('--dry-run'),
          flag('--break-system-packages'),
          opt('--report', path),
        ],
        { rest: requirement },
      ),
      download: pipSub('download', [...pipInstallish, opt(['-d', '--dest'], path)], { rest: requirement }),
      wheel: pipSub('wheel', [...pipInstallish, opt(['-w', '--wheel-dir'], path)], { rest: requirement }),
      uninstall: pipSub('uninstall', [flag('-y', '--yes'), opt(['-r', '--requirement'], path)], {
        rest: text,
      }),
      list: pipSub('list', [
        flag('-o', '--outdated'),
        flag('-u', '--uptodate'),
        flag('-e', '--editable'),
        flag('-l', '--local'),
        flag('--user'),
        opt('--format', choice('columns', 'freeze', 'json')),
        flag('--not-required'),
      ]),
      show: pipSub('show', [flag('-f', '--files')], { rest: text }),
      freeze: pipSub('freeze', [
        flag('--all'),
        opt(['-r', '--requirement'], path),
        flag('-l', '--local'),
        flag('--user'),
      ]),
      check: pipSub('check', []),
      config: {
        name: 'pip config',
        options: pipGeneral,
        subcommands: {
          list: pipSub('config list', []),
          get: pipSub('config get', [], { each: [text] }),
          debug: pipSub('config debug', []),
          set: pipConfigWrite('set'),
          unset: pipConfigWrite('unset'),
          edit: pipConfigWrite('edit'),
        },
      },
    },
  };
}

export function mypy(name: string): CommandSpec {
  return {
    name,
    syntax: PY_ARGPARSE,
    options: [
      flag('--strict'),
      flag('--ignore-missing-imports'),
      flag('--no-incremental'),
      flag('--show-error-codes'),
      flag('--pretty'),
      flag('--no-error-summary'),
      flag('--check-untyped-defs'),
      flag('--disallow-untyped-defs'),
      flag('--warn-unused-ignores'),
      flag('--no-implicit-optional'),
      flag('--explicit-package-bases'),
      flag('--namespace-packages'),
      opt('--follow-imports', choice('normal', 'silent', 'skip', 'error')),
      opt('--python-version', matching(/^\d+\.\d+$/, 'a version such as 3.12')),
      opt('--config-file', path),
      opt('--cache-dir', path),
      opt(['-p', '--package'], text),
      opt(['-m', '--module'], text),
      flag('-v', '--verbose'),
      infoFlag('-V', '--version'),
      infoFlag('-h', '--help'),
      refused('--install-types', 'package-runner', '`mypy --install-types` runs pip to install packages.'),
    ],
    positionals: { rest: path },
  };
}

const unittest: CommandSpec = {
  name: 'python -m unittest',
  syntax: PY_ARGPARSE,
  options: [
    flag('-v', '--verbose'),
    flag('-q', '--quiet'),
    flag('-f', '--failfast'),
    flag('-c', '--catch'),
    flag('-b', '--buffer'),
    opt('-k', text),
    opt('--durations', number),
    opt(['-s', '--start-directory'], path),
    opt(['-p', '--pattern'], text),
    opt(['-t', '--top-level-directory'], path),
    infoFlag('-h', '--help'),
  ],
  positionals: { rest: pathspec },
};

const venv: CommandSpec = {
  name: 'python -m venv',
  syntax: PY_ARGPARSE,
  options: [
    flag('--system-site-packages'),
    flag('--without-pip'),
    flag('--clear'),
    flag('--upgrade'),
    flag('--copies'),
    flag('--symlinks'),
    opt('--prompt', text),
    infoFlag('-h', '--help'),
  ],
  positionals: { rest: path, min: 1 },
};

/** Settings of `ruff --config KEY = VALUE` whose value is a path ruff reads configuration from or writes to. */
const RUFF_PATH_SETTINGS = /^(cache-dir|extend)$/;

/**
 * `ruff --config`: a config file in the workspace, or a TOML `KEY = VALUE` override; an override of a setting
 * that names a file (`extend`, `cache-dir`) must name one inside the roots, as a plain quoted string.
 */
const ruffConfig: ValueSpec = {
  kind: 'custom',
  describe: 'a config file in the workspace, or KEY = VALUE',
  check(value, inside) {
    const setting = /^\s*([\w.-]+)\s*=\s*(.*)$/s.exec(value);
    if (setting) {
      if (!RUFF_PATH_SETTINGS.test(setting[1]!)) return undefined;
      const quoted = /^(['"])([^'"\\$~]*)\1\s*$/.exec(setting[2]!);
      return quoted && inside(quoted[2]!)
        ? undefined
        : refusal(
            'path-outside-roots',
            `\`ruff --config ${setting[1]} = …\` names a file ruff reads or writes; it must be a quoted path inside the workspace roots.`,
            'a path inside the workspace roots, quoted, without ~, $ or escapes',
          );
    }
    return inside(value)
      ? undefined
      : refusal('path-outside-roots', `${JSON.stringify(value)} resolves outside the workspace roots.`);
  },
};

const ruffOutputFormat = choice(
  'concise',
  'full',
  'json',
  'json-lines',
  'junit',
  'grouped',
  'github',
  'gitlab',
  'pylint',
  'rdjson',
  'azure',
  'sarif',
);

/** ruff's global options, accepted before and after the subcommand. */
const ruffGlobal: OptionSpec[] = [
  opt('--config', ruffConfig),
  flag('--isolated'),
  opt('--color', choice('auto', 'always', 'never')),
  flag('-v', '--verbose'),
  flag('-q', '--quiet'),
  flag('-s', '--silent'),
  infoFlag('-h', '--help'),
];

/** What `ruff check` and `ruff format` share: files, caches, the target. */
const ruffFiles: OptionSpec[] = [
  flag('-n', '--no-cache'),
  opt('--cache-dir', path),
  opt('--line-length', number),
  opt('--target-version', matching(/^py3\d+$/, 'a version such as py312')),
  flag('--preview'),
  flag('--no-preview'),
  opt('--extension', text),
  opt('--exclude', text),
  opt('--extend-exclude', text),
  flag('--respect-gitignore'),
  flag('--no-respect-gitignore'),
  flag('--force-exclude'),
  flag('--no-force-exclude'),
  flag('--diff'),
];

export function ruff(name: string): CommandSpec {
  return {
    name,
    syntax: CLAP,
    options: [...ruffGlobal, infoFlag('-V', '--version')],
    subcommands: {
      check: {
        name: `${name} check`,
        options: [
          ...ruffGlobal,
          ...ruffFiles,
          flag('--fix'),
          flag('--no-fix'),
          flag('--unsafe-fixes'),
          flag('--no-unsafe-fixes'),
          flag('--fix-only'),
          flag('--no-fix-only'),
          flag('--show-fixes'),
          flag('--no-show-fixes'),
          flag('--statistics'),
          flag('-e', '--exit-zero'),
          flag('--exit-non-zero-on-fix'),
          flag('--ignore-noqa'),
          flag('--add-noqa'),
          flag('--show-files'),
          flag('--show-settings'),
          opt('--output-format', ruffOutputFormat),
          opt(['-o', '--output-file'], path),
          opt('--select', text),
          opt('--ignore', text),
          opt('--extend-select', text),
          opt('--extend-ignore', text),
          opt('--per-file-ignores', text),
          opt('--extend-per-file-ignores', text),
          opt('--fixable', text),
          opt('--unfixable', text),
          opt('--extend-fixable', text),
        ],
        positionals: { rest: path },
      },
      format: {
        name: `${name} format`,
        options: [
          ...ruffGlobal,
          ...ruffFiles,
          flag('--check'),
          flag('--exit-non-zero-on-format'),
          opt('--range', matching(/^[\d:-]+$/, 'a range such as 1:1-10:1')),
          opt('--output-format', ruffOutputFormat),
        ],
        positionals: { rest: path },
      },
      version: {
        name: `${name} version`,
        options: [...ruffGlobal, opt('--output-format', choice('text', 'json'))],
        positionals: {},
      },
      rule: {
        name: `${name} rule`,
        options: [...ruffGlobal, flag('--all'), opt('--output-format', choice('text', 'json'))],
        positionals: { each: [text] },
      },
      config: { name: `${name} config`, options: ruffGlobal, positionals: { each: [text] } },
      linter: {
        name: `${name} linter`,
        options: [...ruffGlobal, opt('--output-format', choice('text', 'json'))],
        positionals: {},
      },
      clean: { name: `${name} clean`, options: ruffGlobal, positionals: {} },
      help: { name: `${name} help`, options: [], positionals: { rest: text } },
    },
  };
}

/** `python -m json.tool [infile [outfile]]`: pretty-prints JSON, reads and writes only its operands. */
const jsonTool: CommandSpec = {
  name: 'python -m json.tool',
  syntax: PY_ARGPARSE,
  options: [
    flag('--sort-keys'),
    flag('--no-ensure-ascii'),
    flag('--json-lines'),
    opt('--indent', number),
    flag('--tab'),
    flag('--no-indent'),
    flag('--compact'),
    flag('-h', '--help'),
  ],
  positionals: { each: [path, path] },
};

/** `python -m py_compile FILE…`: byte-compiles the files (writing their __pycache__ beside them). */
const pyCompile: CommandSpec = {
  name: 'python -m py_compile',
  syntax: PY_ARGPARSE,
  options: [flag('-q', '--quiet')],
  positionals: { rest: path, min: 1 },
};

/** The modules `python -m` may run. */
export const MODULES: Readonly<Record<string, CommandSpec>> = {
  'json.tool': jsonTool,
  py_compile: pyCompile,
  pytest: pytest('python -m pytest'),
  pip: pip('python -m pip'),
  mypy: mypy('python -m mypy'),
  unittest,
  venv,
  ruff: ruff('python -m ruff'),
};

const SCRIPT_OR_MODULE = `a script file in the workspace, or -m with one of: ${Object.keys(MODULES).join(', ')}`;

function python(name: string): CommandSpec {
  return {
    name,
    syntax: CPYTHON,
    options: [
      flag('-B'),
      flag('-b'),
      flag('-d'),
      flag('-E'),
      flag('-I'),
      flag('-O'),
      flag('-P'),
      flag('-q'),
      flag('-R'),
      flag('-s'),
      flag('-S'),
      flag('-u'),
      flag('-v'),
      opt('-W', warningFilter),
      opt('-X', xOption),
      infoFlag('-V', '--version'),
      infoFlag('-h', '--help'),
      opt(
        '-m',
        matching(
          new RegExp(
            `^(${Object.keys(MODULES)
              .map((m) => m.replace('.', '\\.'))
              .join('|')})$`,
          ),
          `one of the modules ${Object.keys(MODULES).join(', ')}`,
          refusal(
            'python-module',
            `\`${name} -m\` runs only listed modules; others (timeit, pdb, code, runpy, …) can evaluate code from their arguments.`,
            SCRIPT_OR_MODULE,
          ),
        ),
        { selects: MODULES },
      ),
      refused('-c', 'interpreter-eval', `\`${name} -c\` evaluates code from the command line.`, {
        value: text,
        instead: SCRIPT_OR_MODULE,
      }),
      refused('-i', 'interpreter-stdin', `\`${name} -i\` reads code from stdin after the script.`),
    ],
    positionals: {
      each: [scriptFile(name)],
      rest: programArgs,
      min: 1,
      missing: refusal(
        'interpreter-stdin',
        `${name} without a script reads code from stdin.`,
        SCRIPT_OR_MODULE,
      ),
    },
  };
}

const pythons = new Map<string, CommandSpec>();

/** python, python3, python3.12, pypy3 … all share the interpreter table. */
export function pythonTable(name: string): CommandSpec | undefined {
  if (!/^(python|pypy)(\d+(\.\d+)*)?$/.test(name)) return undefined;
  let table = pythons.get(name);
  if (!table) {
    table = python(name);
    pythons.set(name, table);
  }
  return table;
}

export const PYTHON_TABLES: Readonly<Record<string, CommandSpec>> = {
  pytest: pytest('pytest'),
  'py.test': pytest('py.test'),
  pip: pip('pip'),
  pip3: pip('pip3'),
  mypy: mypy('mypy'),
  ruff: ruff('ruff'),
};
