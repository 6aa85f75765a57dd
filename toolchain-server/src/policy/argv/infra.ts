/**
 * terraform and helm, for the offline checks a toolchain runs: formatting, validation, planning and
 * rendering. No console (it evaluates expressions such as `file(…)`), no apply, no plugins, no post-renderer.
 */
import {
  choice,
  flag,
  infoFlag,
  number,
  opt,
  path,
  pathspec,
  refusal,
  refused,
  text,
} from '../options/build.ts';
import type { CommandSpec, OptionSpec, ValueSpec } from '../options/spec.ts';
import { GO_FLAG, PFLAG } from '../options/syntaxes.ts';

const RUNS = 'runs-command-option';

function tfSub(
  name: string,
  options: OptionSpec[],
  positionals: CommandSpec['positionals'] = {},
): CommandSpec {
  return { name: `terraform ${name}`, options: [...options, infoFlag('-help', '-h')], positionals };
}

export const TERRAFORM: CommandSpec = {
  name: 'terraform',
  syntax: GO_FLAG,
  options: [
    opt('-chdir', path, { changesDirectory: true }),
    infoFlag('-version', '--version', '-v'),
    infoFlag('-help', '-h'),
  ],
  subcommands: {
    init: tfSub('init', [
      flag('-backend'),
      flag('-input'),
      flag('-upgrade'),
      flag('-reconfigure'),
      flag('-get'),
      flag('-no-color'),
      flag('-json'),
      opt('-lockfile', choice('readonly')),
      opt('-plugin-dir', path),
    ]),
    validate: tfSub('validate', [flag('-no-color'), flag('-json')], { each: [path] }),
    fmt: tfSub(
      'fmt',
      [flag('-check'), flag('-recursive'), flag('-diff'), flag('-no-color'), flag('-list'), flag('-write')],
      {
        rest: path,
      },
    ),
    plan: tfSub('plan', [
      flag('-no-color'),
      flag('-input'),
      opt('-out', path),
      opt('-var', text),
      opt('-var-file', path),
      flag('-refresh'),
      flag('-lock'),
      opt('-lock-timeout', text),
      flag('-detailed-exitcode'),
      flag('-compact-warnings'),
      opt('-parallelism', number),
      opt('-target', text),
      flag('-destroy'),
      flag('-json'),
    ]),
    show: tfSub('show', [flag('-json'), flag('-no-color')], { each: [path] }),
    providers: tfSub('providers', []),
    version: tfSub('version', [flag('-json')]),
    graph: tfSub('graph', [opt('-type', text), opt('-plan', path), flag('-draw-cycles')]),
    output: tfSub('output', [flag('-json'), flag('-raw'), flag('-no-color'), opt('-state', path)], {
      each: [text],
    }),
    console: refusal(
      'interpreter-eval',
      '`terraform console` evaluates expressions such as file("…") read from stdin.',
    ),
  },
};

/** `--set-file key=path`: the file is read into a value, so it must be in the workspace. */
const setFile: ValueSpec = {
  kind: 'custom',
  describe: 'key=path in the workspace',
  check(value, inside) {
    const eq = value.indexOf('=');
    return eq > 0 && inside(value.slice(eq + 1))
      ? undefined
      : refusal('path-outside-roots', `${JSON.stringify(value)} reads a file outside the workspace roots.`);
  },
};

const values: OptionSpec[] = [
  opt(['-f', '--values'], path),
  opt('--set', text),
  opt('--set-string', text),
  opt('--set-json', text),
  opt('--set-file', setFile),
];
const helmGlobal: OptionSpec[] = [
  flag('--debug'),
  opt(['-n', '--namespace'], text),
  infoFlag('-h', '--help'),
];
const postRenderer = [
  refused(
    ['--post-renderer', '--post-renderer-args'],
    RUNS,
    '`helm --post-renderer` runs a program over the rendered manifests.',
    {
      value: text,
    },
  ),
];

function helmSub(
  name: string,
  options: OptionSpec[],
  positionals: CommandSpec['positionals'] = {},
): CommandSpec {
  return { name: `helm ${name}`, options: [...options, ...helmGlobal], positionals };
}

export const HELM: CommandSpec = {
  name: 'helm',
  syntax: PFLAG,
  options: helmGlobal,
  resolveSubcommand: (word) => (word === 'dep' ? 'dependency' : word),
  subcommands: {
    lint: helmSub(
      'lint',
      [...values, flag('--strict'), flag('--with-subcharts'), flag('--quiet'), opt('--kube-version', text)],
      {
        rest: pathspec,
      },
    ),
    template: helmSub(
      'template',
      [
        ...values,
        flag('--include-crds'),
        flag('--skip-crds'),
        flag('--skip-tests'),
        flag('--no-hooks'),
        flag('--is-upgrade'),
        opt('--kube-version', text),
        opt(['-a', '--api-versions'], text),
        opt('--output-dir', path),
        opt(['-s', '--show-only'], text),
        opt('--name-template', text),
        opt('--version', text),
        ...postRenderer,
      ],
      { each: [pathspec, pathspec] },
    ),
    show: {
      name: 'helm show',
      options: helmGlobal,
      subcommands: Object.fromEntries(
        ['all', 'chart', 'readme', 'values', 'crds'].map((name) => [
          name,
          helmSub(`show ${name}`, [opt('--version', text)], { each: [pathspec] }),
        ]),
      ),
    },
    package: helmSub(
      'package',
      [
        opt(['-d', '--destination'], path),
        opt('--version', text),
        opt('--app-version', text),
        flag('-u', '--dependency-update'),
        refused('--sign', RUNS, `\`helm package --sign\` runs gpg.`),
      ],
      { rest: path },
    ),
    dependency: {
      name: 'helm dependency',
      options: helmGlobal,
      subcommands: {
        list: helmSub('dependency list', [], { each: [path] }),
        build: helmSub('dependency build', [flag('--skip-refresh')], { each: [path] }),
        update: helmSub('dependency update', [flag('--skip-refresh')], { each: [path] }),
      },
    },
    create: helmSub('create', [], { each: [path] }),
    version: helmSub('version', [flag('--short'), opt('--template', text)]),
    plugin: refusal('package-runner', '`helm plugin` installs and runs plugins.'),
  },
};

export const INFRA_TABLES: Readonly<Record<string, CommandSpec>> = {
  terraform: TERRAFORM,
  helm: HELM,
};
