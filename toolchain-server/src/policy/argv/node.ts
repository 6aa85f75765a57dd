/**
 * node, npm and tsc. node runs a script file from the workspace (or `--test`), never code from argv, stdin
 * or a preloaded module. npm runs the project's own scripts and installs registry packages or local paths;
 * it never runs an arbitrary package (exec, x, init, create, explore), never writes configuration or
 * package.json fields that later commands obey (config set, pkg set), and is resolved as npm resolves
 * commands (aliases and unique prefixes, so `npm exe` is `npm exec`).
 */

import { resolveUniquePrefix } from '../options/abbreviations.ts';
import {
  choice,
  flag,
  forwardedArgs,
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
import type { CommandSpec, OptionSpec, Positionals, Refusal, ValueSpec } from '../options/spec.ts';
import { NODE as NODE_SYNTAX, NOPT, TSC as TSC_SYNTAX } from '../options/syntaxes.ts';

const SCRIPT_ONLY =
  'a script file in the workspace (node path/to/script.js), node --test, or npm_run/npm_test';

/** The script an interpreter runs: a file inside the roots, never stdin. */
export function scriptFile(interpreter: string): ValueSpec {
  return {
    kind: 'custom',
    describe: 'a script file in the workspace',
    check(value, inside): Refusal | undefined {
      if (value === '-')
        return refusal('interpreter-stdin', `\`${interpreter} -\` reads a program from stdin.`);
      return inside(value)
        ? undefined
        : refusal(
            'path-outside-roots',
            `the script ${JSON.stringify(value)} resolves outside the workspace roots.`,
          );
    },
  };
}

const testReporter = matching(
  /^(spec|tap|dot|junit|lcov)$/,
  'a built-in reporter: spec, tap, dot, junit or lcov',
  refusal(
    'interpreter-preload',
    '`--test-reporter` loads a module (a path, a package or a data: URL) as the reporter; only the built-in reporters are allowed.',
  ),
);

const reporterDestination: ValueSpec = {
  kind: 'custom',
  describe: 'stdout, stderr or a file in the workspace',
  check: (value, inside) =>
    value === 'stdout' || value === 'stderr' || inside(value)
      ? undefined
      : refusal('path-outside-roots', `${JSON.stringify(value)} resolves outside the workspace roots.`),
};

const preload = (names: string | string[], why: string): OptionSpec =>
  refused(names, 'interpreter-preload', why, { value: text, instead: SCRIPT_ONLY });

export const NODE: CommandSpec = {
  name: 'node',
  syntax: NODE_SYNTAX,
  options: [
    flag('--test'),
    opt('--test-reporter', testReporter),
    opt('--test-reporter-destination', reporterDestination),
    opt('--test-name-pattern', text),
    opt('--test-skip-pattern', text),
    flag('--test-only'),
    opt('--test-concurrency', number),
    opt('--test-timeout', number),
    flag('--test-force-exit'),
    flag('--test-update-snapshots'),
    opt('--test-shard', matching(/^\d+\/\d+$/, 'index/total')),
    flag('--experimental-test-coverage'),
    opt('--test-coverage-include', text),
    opt('--test-coverage-exclude', text),
    flag('--experimental-strip-types'),
    flag('--no-experimental-strip-types'),
    flag('--experimental-transform-types'),
    flag('--no-warnings'),
    flag('--no-deprecation'),
    flag('--trace-warnings'),
    flag('--trace-deprecation'),
    flag('--throw-deprecation'),
    flag('--pending-deprecation'),
    flag('--trace-uncaught'),
    flag('--enable-source-maps'),
    flag('--abort-on-uncaught-exception'),
    flag('--frozen-intrinsics'),
    flag('--no-addons'),
    flag('--preserve-symlinks'),
    opt('--max-old-space-size', number),
    opt('--max-semi-space-size', number),
    opt('--unhandled-rejections', choice('strict', 'warn', 'none', 'throw', 'warn-with-error-code')),
    opt(['--conditions', '-C'], text),
    opt('--disable-proto', choice('delete', 'throw')),
    opt('--disable-warning', text),
    opt('--title', text),
    flag('--check', '-c'),
    infoFlag('--version', '-v'),
    infoFlag('--help', '-h'),
    refused(['--eval', '-e'], 'interpreter-eval', '`node --eval` evaluates code from the command line.', {
      value: text,
      instead: SCRIPT_ONLY,
    }),
    refused(['--print', '-p'], 'interpreter-eval', '`node --print` evaluates code from the command line.', {
      value: text,
      instead: SCRIPT_ONLY,
    }),
    refused('-pe', 'interpreter-eval', '`node -pe` evaluates code from the command line.', { value: text }),
    refused(
      '--entry-url',
      'interpreter-eval',
      '`node --entry-url` reads the entry point as a URL, so a data: URL is program text.',
    ),
    refused(['--interactive', '-i'], 'interpreter-stdin', '`node --interactive` reads a program from stdin.'),
    preload(['--require', '-r'], '`node --require` loads a module before the script.'),
    preload('--import', '`node --import` loads a module before the script.'),
    preload(
      ['--loader', '--experimental-loader'],
      '`node --loader` loads a module that rewrites every import.',
    ),
    preload(
      ['--env-file', '--env-file-if-exists'],
      '`node --env-file` loads variables, NODE_OPTIONS included, from a file.',
    ),
    preload('--experimental-config-file', '`node --experimental-config-file` loads options from a file.'),
    preload(
      '--openssl-config',
      '`node --openssl-config` loads OpenSSL configuration, which can load engines.',
    ),
    preload('--snapshot-blob', '`node --snapshot-blob` starts from a heap snapshot, which is code.'),
    refused(
      ['--inspect', '--inspect-brk', '--inspect-wait', '--inspect-port', '--debug-port'],
      'interpreter-eval',
      '`node --inspect` opens a debugger port; whoever connects runs code in the process.',
      { value: text, optionalValue: true },
    ),
    refused('--run', 'package-runner', '`node --run` runs a package.json script through a shell.', {
      value: text,
      instead: 'npm_run, or npm run <script>',
    }),
  ],
  positionals: (given): Positionals =>
    given.has('--test')
      ? { rest: path }
      : {
          each: [scriptFile('node')],
          rest: programArgs,
          min: 1,
          missing: refusal(
            'interpreter-stdin',
            'node without a script reads a program from stdin.',
            SCRIPT_ONLY,
          ),
        },
};

/** npm 11's commands and aliases (lib/utils/cmd-list.js), for resolving what a written command means. */
const NPM_COMMANDS = [
  'access',
  'adduser',
  'approve-scripts',
  'audit',
  'bugs',
  'cache',
  'ci',
  'completion',
  'config',
  'dedupe',
  'deny-scripts',
  'deprecate',
  'diff',
  'dist-tag',
  'docs',
  'doctor',
  'edit',
  'exec',
  'explain',
  'explore',
  'find-dupes',
  'fund',
  'get',
  'help',
  'help-search',
  'init',
  'install',
  'install-ci-test',
  'install-scripts',
  'install-test',
  'link',
  'll',
  'login',
  'logout',
  'ls',
  'org',
  'outdated',
  'owner',
  'pack',
  'ping',
  'pkg',
  'prefix',
  'profile',
  'prune',
  'publish',
  'query',
  'rebuild',
  'repo',
  'restart',
  'root',
  'run',
  'sbom',
  'search',
  'set',
  'shrinkwrap',
  'stage',
  'star',
  'stars',
  'start',
  'stop',
  'team',
  'test',
  'token',
  'trust',
  'undeprecate',
  'uninstall',
  'unpublish',
  'unstar',
  'update',
  'version',
  'view',
  'whoami',
];
const NPM_ALIASES: Readonly<Record<string, string>> = {
  author: 'owner',
  home: 'docs',
  issues: 'bugs',
  info: 'view',
  show: 'view',
  find: 'search',
  add: 'install',
  unlink: 'uninstall',
  remove: 'uninstall',
  rm: 'uninstall',
  r: 'uninstall',
  un: 'uninstall',
  rb: 'rebuild',
  list: 'ls',
  ln: 'link',
  create: 'init',
  i: 'install',
  it: 'install-test',
  cit: 'install-ci-test',
  u: 'update',
  up: 'update',
  c: 'config',
  s: 'search',
  se: 'search',
  tst: 'test',
  t: 'test',
  ddp: 'dedupe',
  v: 'view',
  'run-script': 'run',
  'clean-install': 'ci',
  'clean-install-test': 'install-ci-test',
  x: 'exec',
  why: 'explain',
  la: 'll',
  verison: 'version',
  ic: 'ci',
  innit: 'init',
  in: 'install',
  ins: 'install',
  inst: 'install',
  insta: 'install',
  instal: 'install',
  isnt: 'install',
  isnta: 'install',
  isntal: 'install',
  isntall: 'install',
  'install-clean': 'ci',
  'isntall-clean': 'ci',
  hlep: 'help',
  'dist-tags': 'dist-tag',
  upgrade: 'update',
  udpate: 'update',
  rum: 'run',
  sit: 'install-ci-test',
  urn: 'run',
  ogr: 'org',
  'add-user': 'adduser',
};

/** npm's own `deref`: camelCase to kebab-case, exact command, alias, then a unique prefix of either. */
export function resolveNpmCommand(word: string): string | undefined {
  const kebab = /[A-Z]/.test(word) ? word.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`) : word;
  if (NPM_COMMANDS.includes(kebab)) return kebab;
  if (NPM_ALIASES[kebab]) return NPM_ALIASES[kebab];
  let resolved = resolveUniquePrefix(kebab, [...NPM_COMMANDS, ...Object.keys(NPM_ALIASES)]);
  while (resolved !== undefined && NPM_ALIASES[resolved]) resolved = NPM_ALIASES[resolved];
  return resolved;
}

const REGISTRY_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[\w.^~<>=| *-]+)?$/i;

/** What `npm install` may install: a registry package (name[@range]) or a local path inside the roots. */
const npmPackage: ValueSpec = {
  kind: 'custom',
  describe: 'a registry package name[@version], or a local path in the workspace',
  check(value, inside) {
    const local = value.startsWith('.') || value.startsWith('/') || value.startsWith('file:');
    if (local) {
      const target = value.replace(/^file:/, '');
      return inside(target)
        ? undefined
        : refusal('path-outside-roots', `${JSON.stringify(value)} resolves outside the workspace roots.`);
    }
    if (REGISTRY_NAME.test(value)) return undefined;
    return refusal(
      'package-source',
      `${JSON.stringify(value)} is a git, URL, tarball or GitHub source; those run git or fetch code from outside the registry.`,
      'registry package names (name@range) or local paths in the workspace',
    );
  },
};

const npmGlobal: OptionSpec[] = [
  flag('--no-update-notifier'),
  flag('--no-fund'),
  flag('--no-audit'),
  flag('--json'),
  flag('--silent', '-s'),
  flag('-q'),
  opt('--loglevel', choice('silent', 'error', 'warn', 'notice', 'http', 'info', 'verbose', 'silly')),
  flag('--if-present'),
  flag('--ignore-scripts'),
  opt(['--workspace', '-w'], text),
  flag('--workspaces', '-ws'),
  flag('--include-workspace-root'),
  opt(['--prefix', '-C'], path, { changesDirectory: true }),
  opt('--include', choice('prod', 'dev', 'optional', 'peer')),
  opt('--omit', choice('dev', 'optional', 'peer')),
  flag('--save-dev', '-D'),
  flag('--save', '-S'),
  flag('--save-exact', '-E'),
  flag('--save-optional', '-O'),
  flag('--save-prod', '-P'),
  flag('--no-save'),
  flag('--legacy-peer-deps'),
  flag('--strict-peer-deps'),
  flag('--offline'),
  flag('--prefer-offline'),
  flag('--prefer-online'),
  flag('--foreground-scripts'),
  flag('--no-package-lock'),
  flag('--package-lock-only'),
  flag('--dry-run'),
  flag('--long', '-l'),
  flag('--all', '-a'),
  opt('--depth', number),
  flag('--parseable', '-p'),
  flag('--no-color'),
  opt('--registry', matching(/^https?:\/\/\S+$/, 'an http(s) registry URL')),
  opt('--cache', path),
  infoFlag('--version', '-v'),
  refused(
    '--script-shell',
    'runs-command-option',
    '`npm --script-shell` names the program that runs every script.',
    {
      value: text,
    },
  ),
  refused(
    '--node-options',
    'interpreter-preload',
    '`npm --node-options` passes NODE_OPTIONS (--require, --import) to scripts.',
    {
      value: text,
    },
  ),
  refused(
    ['--userconfig', '--globalconfig'],
    'config-override',
    'npm config files can set script-shell, node-options and other programs.',
    {
      value: text,
    },
  ),
  refused(['--call', '-c'], 'package-runner', '`npm exec --call` runs a command.', { value: text }),
  refused('--package', 'package-runner', '`npm exec --package` fetches and runs a package.', { value: text }),
  refused(['--yes', '-y'], 'package-runner', '`--yes` agrees to fetch and run packages without asking.'),
  refused('--init-module', 'interpreter-preload', '`npm --init-module` runs a module for npm init.', {
    value: text,
  }),
  ...['--editor', '--browser', '--viewer', '--shell', '--git'].map((name) =>
    refused(name, 'runs-command-option', `\`npm ${name}\` names a program npm runs.`, { value: text }),
  ),
  refused(
    ['--global', '-g'],
    'path-outside-roots',
    '`npm --global` installs into the global prefix, outside the workspace.',
  ),
];

function npmSub(name: string, positionals: Positionals = {}): CommandSpec {
  return { name: `npm ${name}`, options: npmGlobal, positionals };
}

const RUNNER = 'npm_test and npm_run, or an allowed command invoked directly';
const packageRunner = (name: string) =>
  refusal('package-runner', `\`npm ${name}\` runs an arbitrary package or command.`, RUNNER);
const configWrite = (what: string) =>
  refusal(
    'config-write',
    `\`npm ${what}\` writes configuration or package.json fields (such as scripts) that later commands obey.`,
  );

export const NPM: CommandSpec = {
  name: 'npm',
  syntax: NOPT,
  options: npmGlobal,
  resolveSubcommand: resolveNpmCommand,
  subcommands: {
    test: npmSub('test', { rest: forwardedArgs }),
    run: npmSub('run', { each: [text], rest: forwardedArgs }),
    start: npmSub('start', { rest: forwardedArgs }),
    stop: npmSub('stop', { rest: forwardedArgs }),
    restart: npmSub('restart', { rest: forwardedArgs }),
    ci: npmSub('ci'),
    install: npmSub('install', { rest: npmPackage }),
    'install-test': npmSub('install-test', { rest: npmPackage }),
    'install-ci-test': npmSub('install-ci-test'),
    uninstall: npmSub('uninstall', { rest: text }),
    update: npmSub('update', { rest: text }),
    ls: npmSub('ls', { rest: text }),
    ll: npmSub('ll', { rest: text }),
    outdated: npmSub('outdated', { rest: text }),
    explain: npmSub('explain', { rest: text }),
    view: npmSub('view', { rest: text }),
    pack: {
      name: 'npm pack',
      options: [...npmGlobal, opt('--pack-destination', path)],
      positionals: { rest: pathspec },
    },
    prune: npmSub('prune', { rest: text }),
    dedupe: npmSub('dedupe', { rest: text }),
    rebuild: npmSub('rebuild', { rest: text }),
    root: npmSub('root'),
    prefix: npmSub('prefix'),
    get: npmSub('get', { rest: text }),
    config: {
      name: 'npm config',
      options: npmGlobal,
      subcommands: {
        get: npmSub('config get', { rest: text }),
        list: npmSub('config list'),
        ls: npmSub('config ls'),
        set: configWrite('config set'),
        delete: configWrite('config delete'),
        edit: configWrite('config edit'),
        fix: configWrite('config fix'),
      },
    },
    pkg: {
      name: 'npm pkg',
      options: npmGlobal,
      subcommands: {
        get: npmSub('pkg get', { rest: text }),
        set: configWrite('pkg set'),
        delete: configWrite('pkg delete'),
        fix: configWrite('pkg fix'),
      },
    },
    set: configWrite('set'),
    exec: packageRunner('exec'),
    explore: packageRunner('explore'),
    init: packageRunner('init'),
    edit: refusal('runs-command-option', '`npm edit` runs an editor.'),
    help: refusal('runs-command-option', '`npm help` opens a pager or a browser.'),
    'help-search': refusal('runs-command-option', '`npm help-search` opens a pager.'),
  },
};

export const TSC: CommandSpec = {
  name: 'tsc',
  syntax: TSC_SYNTAX,
  options: [
    flag('--noEmit'),
    flag('--pretty'),
    opt(['--project', '-p'], path),
    flag('--build', '-b'),
    flag('--strict'),
    flag('--noEmitOnError'),
    flag('--skipLibCheck'),
    flag('--incremental'),
    opt('--tsBuildInfoFile', path),
    opt('--outDir', path),
    flag('--declaration', '-d'),
    flag('--emitDeclarationOnly'),
    flag('--sourceMap'),
    flag('--listFiles'),
    flag('--listEmittedFiles'),
    flag('--extendedDiagnostics'),
    flag('--diagnostics'),
    flag('--showConfig'),
    flag('--verbose'),
    flag('--force'),
    flag('--clean'),
    opt(['--target', '-t'], text),
    opt(['--module', '-m'], text),
    opt('--lib', text),
    opt('--jsx', text),
    flag('--noUnusedLocals'),
    flag('--noUnusedParameters'),
    opt('--generateTrace', path),
    infoFlag('--version', '-v'),
    infoFlag('--help', '-h'),
  ],
  positionals: { rest: path },
};

export const NODE_TABLES: Readonly<Record<string, CommandSpec>> = {
  node: NODE,
  nodejs: { ...NODE, name: 'nodejs' },
  npm: NPM,
  tsc: TSC,
};
