/**
 * uv (Astral's Python package and project manager; its clap parser: clusters, no abbreviations, global options
 * before or after the subcommand). Everyday project work is allowed — `uv sync`, `uv lock`, `uv tree`,
 * `uv export`, `uv add`/`remove`, `uv venv`, `uv build`, `uv pip list|show|freeze|install…`, `uv cache dir` —
 * and `uv run` runs the project environment's python, pytest, mypy or ruff, each read by its own table, or a
 * Python script in the workspace. What fetches and runs code from outside the project, names a program, or
 * sets configuration from outside the workspace is refused:
 * - package runners: `uv tool` (and `uvx`), `uv run --with…`, `uv format` and `uv check` (they download ruff
 *   and ty and run them), `uv self update`, `uv python install` (prebuilt interpreters from outside the index),
 *   a remote script (`uv run https://…`);
 * - `uv run <command>` of anything but the listed programs (`uv run sh -c …` would bypass the allowlist);
 * - `--python` naming a program rather than a version or an interpreter inside the workspace (uv runs it);
 * - index URLs and find-links other than PyPI or a directory in the workspace, `--allow-insecure-host`,
 *   `--keyring-provider subprocess` (runs `keyring`), `--python-downloads-json-url`;
 * - `--config-file` outside the workspace (path confinement), build-backend settings from argv
 *   (`--config-setting`), `uv run --env-file` (variables such as LD_PRELOAD or PYTHONSTARTUP from a file, past
 *   the caller-environment allowlist), and `uv auth`, `uv python pin --global` (configuration outside the
 *   workspace).
 */
import {
  choice,
  flag,
  infoFlag,
  matching,
  number,
  opt,
  path,
  programArgs,
  refusal,
  refused,
  text,
} from '../options/build.ts';
import type { CommandSpec, CommandTarget, OptionSpec, Refusal, ValueSpec } from '../options/spec.ts';
import { CLAP } from '../options/syntaxes.ts';
import { scriptFile } from './node.ts';
import { MODULES, mypy, pytest, pythonTable, requirement, ruff } from './python.ts';

/** `uv run`: options up to the command, whose own table reads the rest (`uv run pytest -x`). */
const UV_RUN_SYNTAX = {
  ...CLAP,
  name: 'clap (uv run: options up to the command)',
  permute: 'first',
} as const;

const PYPI_INDEX = /^https:\/\/pypi\.org\/simple\/?$/;

const INDEX_INSTEAD =
  "PyPI (the default), a directory in the workspace, or the project's own indexes ([[tool.uv.index]] in pyproject.toml)";

/** `--index`/`--default-index`/`--index-url`/`--find-links`: PyPI, or a local directory inside the roots. */
function indexLocation(option: string, named: boolean): ValueSpec {
  return {
    kind: 'custom',
    describe: 'https://pypi.org/simple or a directory in the workspace',
    check(value, inside): Refusal | undefined {
      // `--index name=url` names the index.
      const location = named ? value.replace(/^[A-Za-z0-9][\w.-]*=(?=\S)/, '') : value;
      if (PYPI_INDEX.test(location)) return undefined;
      if (/^[a-z][a-z0-9+.-]*:/i.test(location) && !location.startsWith('file://'))
        return refusal(
          'package-source',
          `\`uv ${option}\` ${JSON.stringify(value)} takes packages from a host other than PyPI.`,
          INDEX_INSTEAD,
        );
      const local = location.replace(/^file:\/\//, '');
      return !/^~|\$/.test(local) && inside(local)
        ? undefined
        : refusal('path-outside-roots', `${JSON.stringify(value)} resolves outside the workspace roots.`);
    },
  };
}

/**
 * `--python`: a version request (`3.12`, `>=3.11`, `cpython3.12`, `pypy@3.10`, `python3`) or an interpreter
 * inside the workspace (`.venv/bin/python`). Any other name or path is a program uv runs to query it.
 */
const pythonRequest: ValueSpec = {
  kind: 'custom',
  describe: 'a version such as 3.12, an implementation such as cpython3.12, or .venv/bin/python',
  check(value, inside): Refusal | undefined {
    const version =
      /^((cpython|cp|pypy|pp|graalpy|gp|python|py|any|default)[@-]?)?(\d+(\.\d+){0,2}[abrc]*\d*t?)?$/i;
    const specifiers = /^(\s*(==|!=|<=|>=|~=|<|>)\s*\d+(\.\d+){0,2}(\.\*)?\s*,?)+$/;
    if (value !== '' && (version.test(value) || specifiers.test(value))) return undefined;
    if (value.includes('/')) {
      if (/^~|\$/.test(value))
        return refusal('path-outside-roots', `${JSON.stringify(value)} names a path uv expands itself.`);
      // A virtual environment's `bin/python` links to the base interpreter outside the workspace: the link itself
      // must be in the workspace and be named as an interpreter; any other path must resolve inside.
      const slash = value.lastIndexOf('/');
      const linkInWorkspace =
        /^(python|pypy)(\d+(\.\d+)*)?$/.test(value.slice(slash + 1)) && inside(value.slice(0, slash) || '/');
      return linkInWorkspace || inside(value)
        ? undefined
        : refusal(
            'path-outside-roots',
            `the interpreter ${JSON.stringify(value)} resolves outside the workspace roots.`,
          );
    }
    return refusal(
      'runs-command-option',
      `\`uv --python ${value}\` names a program uv runs to query it as an interpreter.`,
      'a version such as 3.12, an implementation such as cpython3.12 or pypy3.10, or an interpreter inside the workspace (.venv/bin/python)',
    );
  },
};

/** Options of every uv command: logging, network switches, where to work, configuration, cache, interpreters. */
const GLOBAL: OptionSpec[] = [
  flag('-q', '--quiet'),
  flag('-v', '--verbose'),
  opt('--color', choice('auto', 'always', 'never')),
  flag('--system-certs'),
  flag('--native-tls'),
  flag('--offline'),
  flag('--no-offline'),
  flag('--no-progress'),
  opt('--directory', path, { changesDirectory: true }),
  opt('--project', path),
  opt('--config-file', path),
  flag('--no-config'),
  flag('--preview'),
  flag('--no-preview'),
  flag('-n', '--no-cache'),
  opt('--cache-dir', path),
  flag('--managed-python'),
  flag('--no-managed-python'),
  flag('--no-python-downloads'),
  infoFlag('-h', '--help'),
  refused(
    '--allow-insecure-host',
    'package-source',
    '`uv --allow-insecure-host` accepts packages from a host whose TLS certificate is not verified.',
    { value: text, instead: 'hosts with valid certificates (the broker verifies upstream TLS)' },
  ),
];

const python = opt(['-p', '--python'], pythonRequest);

const INDEX: OptionSpec[] = [
  opt('--index', indexLocation('--index', true)),
  opt('--default-index', indexLocation('--default-index', true)),
  opt(['-i', '--index-url'], indexLocation('--index-url', false)),
  opt('--extra-index-url', indexLocation('--extra-index-url', false)),
  opt(['-f', '--find-links'], indexLocation('--find-links', false)),
  flag('--no-index'),
  opt('--index-strategy', choice('first-index', 'unsafe-first-match', 'unsafe-best-match')),
  opt(
    '--keyring-provider',
    matching(
      /^disabled$/,
      'disabled',
      refusal(
        'runs-command-option',
        '`uv --keyring-provider subprocess` runs the `keyring` program to fetch credentials.',
        'credentials through the broker, never from a program on the toolchain',
      ),
    ),
  ),
];

const RESOLVER: OptionSpec[] = [
  flag('-U', '--upgrade'),
  opt(['-P', '--upgrade-package'], text),
  opt('--upgrade-group', text),
  opt('--resolution', choice('highest', 'lowest', 'lowest-direct')),
  opt('--prerelease', choice('disallow', 'allow', 'if-necessary', 'explicit', 'if-necessary-or-explicit')),
  opt('--prerelease-package', text),
  opt('--fork-strategy', choice('fewest', 'requires-python')),
  opt('--exclude-newer', text),
  opt('--exclude-newer-package', text),
  flag('--no-sources'),
  opt('--no-sources-package', text),
];

const INSTALLER: OptionSpec[] = [
  flag('--reinstall'),
  opt('--reinstall-package', text),
  opt('--link-mode', choice('clone', 'copy', 'hardlink', 'symlink')),
  flag('--compile-bytecode'),
];

const REFRESH: OptionSpec[] = [flag('--refresh'), opt('--refresh-package', text)];

const configSetting = (names: string | string[]) =>
  refused(
    names,
    'config-override',
    '`uv --config-setting` passes settings to build backends from argv, which the policy cannot read.',
    { value: text, instead: 'config-settings in pyproject.toml ([tool.uv]) or uv.toml in the workspace' },
  );

/** Build options of project commands (`--no-binary` is a flag here; uv pip's takes a value). */
const BUILD: OptionSpec[] = [
  configSetting(['-C', '--config-setting', '--config-settings']),
  configSetting('--config-settings-package'),
  flag('--no-build-isolation'),
  opt('--no-build-isolation-package', text),
  flag('--no-build'),
  opt('--no-build-package', text),
  flag('--no-binary'),
  opt('--no-binary-package', text),
  flag('--require-build-hashes'),
  flag('--no-require-build-hashes'),
];

/** Which extras, groups and members of the project a command takes. */
const SELECTION: OptionSpec[] = [
  opt('--extra', text),
  flag('--all-extras'),
  opt('--no-extra', text),
  flag('--dev'),
  flag('--no-dev'),
  flag('--only-dev'),
  opt('--group', text),
  opt('--no-group', text),
  flag('--no-default-groups'),
  opt('--only-group', text),
  flag('--all-groups'),
  flag('--no-editable'),
  opt('--no-editable-package', text),
  flag('--all-packages'),
  opt('--package', text),
  flag('--locked'),
  flag('--frozen'),
  opt('--python-platform', text),
];

/** `--script <path>` of project commands (uv run's `--script` is a flag instead). */
const scriptOption = opt('--script', path);

/** What resolving against indexes takes: indexes, resolver, build options. */
const RESOLVING: OptionSpec[] = [...INDEX, ...RESOLVER, ...BUILD, ...REFRESH];

function sub(name: string, options: OptionSpec[], extra: Partial<CommandSpec> = {}): CommandSpec {
  return { name: `uv ${name}`, options: [...options, ...GLOBAL], positionals: {}, ...extra };
}

const packageRunner = (why: string, instead: string) => refusal('package-runner', why, instead);

const UV_RUN_PROGRAMS =
  'uv run pytest|python|mypy|ruff …, uv run -m <module> (pytest, pip, mypy, unittest, ruff, …), or uv run <script.py> in the workspace';

/** A Python script `uv run` runs with the project's interpreter: the script in the workspace, then its argv. */
const SCRIPT: CommandSpec = {
  name: 'uv run <script>',
  syntax: { ...CLAP, name: 'script arguments', permute: 'first' },
  options: [],
  positionals: { each: [scriptFile('uv run')], rest: programArgs, min: 1 },
};

/** The programs `uv run` may start, by the name written, each read by its own table. */
const RUN_PROGRAMS: Readonly<Record<string, CommandSpec>> = {
  pytest: pytest('uv run pytest'),
  'py.test': pytest('uv run py.test'),
  mypy: mypy('uv run mypy'),
  ruff: ruff('uv run ruff'),
};

/** What the first operand of `uv run` runs (uv's own order: stdin, URL, script, module, command). */
function runTarget(word: string, given: ReadonlySet<string>): CommandTarget | Refusal {
  if (word === '-')
    return refusal('interpreter-stdin', '`uv run -` reads a program from stdin.', UV_RUN_PROGRAMS);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(word))
    return packageRunner(
      '`uv run <URL>` downloads a script and runs it.',
      'scripts in the workspace: uv run <script.py>',
    );
  if (given.has('-m')) {
    const module = MODULES[word];
    return module
      ? { table: module }
      : refusal(
          'python-module',
          '`uv run -m` runs only listed modules; others (timeit, pdb, code, runpy, …) can evaluate code from their arguments.',
          `uv run -m with one of: ${Object.keys(MODULES).join(', ')}`,
        );
  }
  if (given.has('-s') || given.has('--gui-script') || /\.pyw?$/.test(word))
    return { table: SCRIPT, operand: true };
  const table = pythonTable(word) ?? RUN_PROGRAMS[word];
  if (table) return { table };
  return refusal(
    'command-wrapper',
    '`uv run <command>` runs any program on PATH or in the environment, which would bypass the allowlist; it may run python, pytest, mypy or ruff (each checked by its own policy) or a Python script in the workspace.',
    UV_RUN_PROGRAMS,
  );
}

const RUN: CommandSpec = {
  name: 'uv run',
  syntax: UV_RUN_SYNTAX,
  options: [
    ...SELECTION,
    ...RESOLVING,
    ...INSTALLER,
    python,
    flag('-m', '--module'),
    flag('-s', '--script'),
    flag('--gui-script'),
    flag('--exact'),
    flag('--isolated'),
    flag('--active'),
    flag('--no-active'),
    flag('--no-sync'),
    flag('--no-project'),
    flag('--no-env-file'),
    refused(
      '--env-file',
      'interpreter-preload',
      '`uv run --env-file` loads variables (LD_PRELOAD, PYTHONSTARTUP, …) from a file into the command, past the caller-environment allowlist.',
      { value: text, instead: "allowlisted variables in the call's env" },
    ),
    ...['-w', '--with', '--with-editable', '--with-requirements'].map((name) =>
      refused(
        name === '-w' ? ['-w', '--with'] : name,
        'package-runner',
        `\`uv run ${name === '-w' ? '--with' : name}\` fetches packages that are not the project's dependencies and runs the command with them (pytest loads their plugins).`,
        {
          value: text,
          instead: "the project's own dependencies (uv add --dev <package>, then uv run)",
        },
      ),
    ),
    ...GLOBAL,
  ],
  commandOperand: runTarget,
  positionals: {},
};

const PIP_COMMON: OptionSpec[] = [python, flag('--system'), opt('--cert', path)];
const PIP_TARGET: OptionSpec[] = [
  opt(['-t', '--target'], path),
  opt('--prefix', path),
  flag('--break-system-packages'),
  flag('--no-break-system-packages'),
];
/** `uv pip` build options: `--no-binary`/`--only-binary` take a package list here. */
const PIP_BUILD: OptionSpec[] = [
  ...BUILD.filter((o) => o.names[0] !== '--no-binary'),
  opt('--no-binary', text),
  opt('--only-binary', text),
  flag('--no-verify-hashes'),
  flag('--require-hashes'),
];
const PIP_REQUIREMENTS: OptionSpec[] = [
  opt(['-c', '--constraints', '--constraint'], path),
  opt('--overrides', path),
  opt('--excludes', path),
  opt(['-b', '--build-constraints'], path),
  opt('--extra', text),
  flag('--all-extras'),
  opt('--group', text),
  flag('--no-deps'),
  opt('--python-version', text),
  opt('--python-platform', text),
];
const PIP_INSTALLING: OptionSpec[] = [
  ...PIP_TARGET,
  ...PIP_REQUIREMENTS,
  ...INDEX,
  ...RESOLVER,
  ...PIP_BUILD,
  ...INSTALLER,
  ...REFRESH,
  flag('--strict'),
  flag('--dry-run'),
  flag('--exact'),
  opt('--output-format', text),
];

function pip(name: string, options: OptionSpec[], extra: Partial<CommandSpec> = {}): CommandSpec {
  return sub(`pip ${name}`, [...options, ...PIP_COMMON], extra);
}

const PIP: CommandSpec = sub('pip', [], {
  subcommands: {
    install: pip(
      'install',
      [
        ...PIP_INSTALLING,
        opt(['-r', '--requirements', '--requirement'], path),
        opt(['-e', '--editable'], path),
        flag('--no-editable'),
        flag('--user'),
      ],
      { positionals: { rest: requirement } },
    ),
    sync: pip(
      'sync',
      [...PIP_INSTALLING, flag('--allow-empty-requirements'), flag('--no-allow-empty-requirements')],
      { positionals: { rest: path } },
    ),
    compile: pip(
      'compile',
      [
        ...PIP_REQUIREMENTS,
        ...INDEX,
        ...RESOLVER,
        ...PIP_BUILD,
        ...REFRESH,
        opt(['-o', '--output-file'], path),
        opt('--format', choice('requirements.txt', 'pylock.toml')),
        flag('--no-strip-extras'),
        flag('--no-strip-markers'),
        flag('--no-annotate'),
        flag('--no-header'),
        opt('--annotation-style', choice('line', 'split')),
        opt('--custom-compile-command', text),
        flag('--generate-hashes'),
        flag('--universal'),
        opt('--no-emit-package', text),
        flag('--emit-index-url'),
        flag('--emit-find-links'),
        flag('--emit-build-options'),
        flag('--emit-index-annotation'),
        opt('--link-mode', choice('clone', 'copy', 'hardlink', 'symlink')),
      ],
      { positionals: { rest: path } },
    ),
    uninstall: pip(
      'uninstall',
      [...PIP_TARGET, opt(['-r', '--requirements', '--requirement'], path), flag('--dry-run')],
      { positionals: { rest: text } },
    ),
    list: pip('list', [
      flag('-e', '--editable'),
      flag('--exclude-editable'),
      opt('--exclude', text),
      opt('--format', choice('columns', 'freeze', 'json')),
      flag('--outdated'),
      flag('--strict'),
      opt(['-t', '--target'], path),
      opt('--prefix', path),
      ...INDEX,
      opt('--exclude-newer', text),
    ]),
    show: pip(
      'show',
      [flag('--strict'), flag('-f', '--files'), opt(['-t', '--target'], path), opt('--prefix', path)],
      { positionals: { rest: text } },
    ),
    freeze: pip('freeze', [
      flag('--exclude-editable'),
      opt('--exclude', text),
      flag('--strict'),
      opt('--path', path),
      opt(['-t', '--target'], path),
      opt('--prefix', path),
    ]),
    check: pip('check', [opt('--python-version', text), opt('--python-platform', text)]),
    tree: pip('tree', [
      flag('--show-version-specifiers'),
      opt(['-d', '--depth'], number),
      opt('--prune', text),
      opt('--package', text),
      flag('--no-dedupe'),
      flag('--invert'),
      flag('--outdated'),
      flag('--show-sizes'),
      flag('--strict'),
      ...INDEX,
      opt('--exclude-newer', text),
    ]),
  },
});

const TREE_OPTIONS: OptionSpec[] = [
  flag('--universal'),
  opt('--format', text),
  opt(['-d', '--depth'], number),
  opt('--prune', text),
  flag('--no-dedupe'),
  flag('--invert'),
  flag('--outdated'),
  flag('--show-sizes'),
  opt('--python-version', text),
];

const downloadsJsonUrl = refused(
  '--python-downloads-json-url',
  'package-source',
  '`uv python --python-downloads-json-url` takes the list of interpreters to download from a URL.',
  { value: text, instead: 'the interpreters installed in the image' },
);

const PYTHON: CommandSpec = sub('python', [], {
  subcommands: {
    list: sub(
      'python list',
      [
        flag('--all-versions'),
        flag('--all-platforms'),
        flag('--all-arches'),
        flag('--only-installed'),
        flag('--only-downloads'),
        flag('--show-urls'),
        opt('--output-format', choice('text', 'json')),
        downloadsJsonUrl,
      ],
      { positionals: { each: [pythonRequest] } },
    ),
    find: sub(
      'python find',
      [
        flag('--no-project'),
        flag('--system'),
        opt('--script', path),
        flag('--show-version'),
        flag('--resolve-links'),
        downloadsJsonUrl,
      ],
      { positionals: { each: [pythonRequest] } },
    ),
    pin: sub(
      'python pin',
      [
        flag('--resolved'),
        flag('--no-project'),
        flag('--rm'),
        downloadsJsonUrl,
        refused(
          '--global',
          'config-write',
          '`uv python pin --global` writes the user-level .python-version that every later uv command obeys.',
          { instead: 'uv python pin <version> in the project (writes .python-version in the workspace)' },
        ),
      ],
      { positionals: { each: [pythonRequest] } },
    ),
    dir: sub('python dir', [flag('--bin')]),
    install: packageRunner(
      '`uv python install` downloads prebuilt interpreters from outside the package index and runs them.',
      'the interpreters installed in the image (uv python list --only-installed)',
    ),
    upgrade: packageRunner(
      '`uv python upgrade` downloads prebuilt interpreters from outside the package index.',
      'the interpreters installed in the image',
    ),
    uninstall: refusal(
      'subcommand-not-allowed',
      '`uv python uninstall` removes uv-managed interpreters outside the workspace.',
      'uv python list',
    ),
    'update-shell': refusal(
      'config-write',
      '`uv python update-shell` edits shell start-up files.',
      'uv python find',
    ),
  },
});

const TOOL_INSTEAD = "the project's own dev dependencies: uv add --dev <tool>, then uv run <tool>";

export const UV: CommandSpec = {
  name: 'uv',
  syntax: CLAP,
  options: [...GLOBAL, infoFlag('-V', '--version')],
  subcommands: {
    run: RUN,
    sync: sub('sync', [
      ...SELECTION,
      scriptOption,
      ...RESOLVING,
      ...INSTALLER,
      python,
      opt('--output-format', choice('text', 'json')),
      flag('--inexact'),
      flag('--exact'),
      flag('--active'),
      flag('--no-active'),
      flag('--no-install-project'),
      flag('--no-install-workspace'),
      flag('--no-install-local'),
      opt('--no-install-package', text),
      flag('--dry-run'),
      flag('--check'),
    ]),
    lock: sub('lock', [
      ...RESOLVING,
      python,
      opt('--link-mode', choice('clone', 'copy', 'hardlink', 'symlink')),
      flag('--check'),
      flag('--check-exists'),
      flag('--dry-run'),
      flag('--locked'),
      flag('--frozen'),
      opt('--script', path),
    ]),
    tree: sub('tree', [
      ...SELECTION,
      scriptOption,
      ...RESOLVING,
      ...TREE_OPTIONS,
      python,
      opt('--link-mode', choice('clone', 'copy', 'hardlink', 'symlink')),
    ]),
    export: sub('export', [
      ...SELECTION,
      scriptOption,
      ...RESOLVING,
      python,
      opt('--format', choice('requirements.txt', 'requirements-txt', 'pylock.toml', 'cyclonedx1.5')),
      opt('--prune', text),
      flag('--no-annotate'),
      flag('--no-header'),
      flag('--emit-index-url'),
      flag('--emit-find-links'),
      flag('--no-hashes'),
      opt(['-o', '--output-file'], path),
      flag('--no-emit-project'),
      flag('--no-emit-workspace'),
      flag('--no-emit-local'),
      opt('--no-emit-package', text),
      opt('--link-mode', choice('clone', 'copy', 'hardlink', 'symlink')),
    ]),
    add: sub(
      'add',
      [
        ...SELECTION,
        scriptOption,
        ...RESOLVING,
        ...INSTALLER,
        python,
        opt(['-r', '--requirements'], path),
        opt(['-c', '--constraints'], path),
        opt(['-m', '--marker'], text),
        opt('--optional', text),
        flag('--editable'),
        flag('--raw'),
        opt('--bounds', choice('lower', 'major', 'minor', 'exact')),
        flag('--no-sync'),
        flag('--active'),
        flag('--workspace'),
        flag('--no-workspace'),
        flag('--no-install-project'),
        flag('--no-install-workspace'),
        flag('--no-install-local'),
        opt('--no-install-package', text),
      ],
      { positionals: { rest: requirement } },
    ),
    remove: sub(
      'remove',
      [
        ...RESOLVING,
        ...INSTALLER,
        python,
        flag('--dev'),
        opt('--optional', text),
        opt('--group', text),
        flag('--no-sync'),
        flag('--active'),
        flag('--locked'),
        flag('--frozen'),
        opt('--package', text),
        opt('--script', path),
      ],
      { positionals: { rest: text, min: 1 } },
    ),
    version: sub(
      'version',
      [
        ...RESOLVING,
        ...INSTALLER,
        python,
        opt('--bump', text),
        flag('--dry-run'),
        flag('--short'),
        opt('--output-format', choice('text', 'json')),
        flag('--no-sync'),
        flag('--active'),
        flag('--locked'),
        flag('--frozen'),
        opt('--package', text),
      ],
      { positionals: { each: [text] } },
    ),
    venv: sub(
      'venv',
      [
        ...INDEX,
        ...REFRESH,
        python,
        flag('--no-project'),
        flag('--seed'),
        flag('-c', '--clear'),
        flag('--force'),
        flag('--allow-existing'),
        opt('--prompt', text),
        flag('--system-site-packages'),
        flag('--relocatable'),
        opt('--link-mode', choice('clone', 'copy', 'hardlink', 'symlink')),
        opt('--exclude-newer', text),
        opt('--exclude-newer-package', text),
      ],
      { positionals: { each: [path] } },
    ),
    init: sub(
      'init',
      [
        python,
        opt('--name', text),
        flag('--bare'),
        flag('--package'),
        flag('--no-package'),
        flag('--app'),
        flag('--lib'),
        flag('--script'),
        opt('--description', text),
        flag('--no-description'),
        opt('--vcs', choice('git', 'none')),
        opt('--build-backend', text),
        flag('--no-readme'),
        opt('--author-from', choice('auto', 'git', 'none')),
        flag('--no-pin-python'),
        flag('--no-workspace'),
      ],
      { positionals: { each: [path] } },
    ),
    build: sub(
      'build',
      [
        ...RESOLVING,
        python,
        opt('--package', text),
        flag('--all-packages'),
        opt(['-o', '--out-dir'], path),
        flag('--sdist'),
        flag('--wheel'),
        flag('--no-build-logs'),
        flag('--force-pep517'),
        flag('--clear'),
        flag('--no-create-gitignore'),
        opt(['-b', '--build-constraints'], path),
        flag('--require-hashes'),
        flag('--no-verify-hashes'),
        opt('--link-mode', choice('clone', 'copy', 'hardlink', 'symlink')),
      ],
      { positionals: { each: [path] } },
    ),
    pip: PIP,
    python: PYTHON,
    workspace: sub('workspace', [], {
      subcommands: {
        list: sub('workspace list', [flag('--paths'), flag('--scripts')]),
        dir: sub('workspace dir', [opt('--package', text)]),
        metadata: sub('workspace metadata', []),
      },
    }),
    cache: sub('cache', [], {
      subcommands: {
        dir: sub('cache dir', []),
        size: sub('cache size', [opt('--output-format', choice('text', 'json')), flag('-H', '--human')]),
        clean: sub('cache clean', [flag('--force')], { positionals: { rest: text } }),
        prune: sub('cache prune', [flag('--ci'), flag('--force')]),
      },
    }),
    self: sub('self', [], {
      subcommands: {
        version: sub('self version', [flag('--short'), opt('--output-format', choice('text', 'json'))]),
        update: packageRunner(
          '`uv self update` downloads a new uv binary and replaces this one.',
          'the uv the image ships (uv self version)',
        ),
      },
    }),
    help: sub('help', [flag('--no-pager')], { positionals: { rest: text } }),
    tool: packageRunner(
      "`uv tool` (and uvx) fetches packages that are not the project's dependencies and runs their commands.",
      TOOL_INSTEAD,
    ),
    format: packageRunner(
      '`uv format` downloads ruff and runs it.',
      'ruff format (the image ships ruff), or uv run ruff format',
    ),
    check: packageRunner(
      '`uv check` downloads the ty type checker and runs it.',
      'mypy or ruff check, or uv run mypy',
    ),
    auth: refusal(
      'config-write',
      '`uv auth` stores or prints index credentials outside the workspace.',
      'credentials through the broker',
    ),
    publish: refusal(
      'subcommand-not-allowed',
      '`uv publish` uploads distributions to an index with credentials.',
      'uv build, then publish from CI',
    ),
  },
};

export const UV_TABLES: Readonly<Record<string, CommandSpec>> = { uv: UV };
