/**
 * go and gofmt. Packages in the workspace build and test by design; argv may not wrap the toolchain in
 * another program (`-toolexec`, `-exec`, `-vettool`, `-compiler`), pass linker flags that name one
 * (`-ldflags=-extld=…`), write Go's own configuration (`go env -w`, which sets CC, GOFLAGS or GOTOOLCHAIN for
 * every later command), or fetch and run a module version from outside the workspace (`go run pkg@v`).
 */
import { isAbsolute } from 'node:path';
import {
  choice,
  flag,
  forwardedArgs,
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
import type { CommandSpec, OptionSpec, Refusal, ValueSpec } from '../options/spec.ts';
import { GO_FLAG, GO_TEST_FLAG } from '../options/syntaxes.ts';

const RUNS = 'runs-command-option';

/** A package pattern; with `local`, a module version (`pkg@v1`) is refused because it is fetched and run. */
function goPackage(local: boolean): ValueSpec {
  return {
    kind: 'custom',
    describe: 'a package pattern such as ./... or ./cmd/tool',
    check(value, inside, upward): Refusal | undefined {
      // After -args, words go to the test binary: its -test.cpuprofile=… and the like write files.
      if (value.startsWith('-')) return forwardedArgs.check(value, inside, upward);
      if (local && value.includes('@'))
        return refusal(
          'package-runner',
          `\`${value}\` names a module version, which go downloads and runs from outside the workspace.`,
          'packages inside the workspace (./...)',
        );
      if ((isAbsolute(value) || value.split('/').includes('..')) && !inside(value.replace(/\/\.\.\.$/, '')))
        return refusal(
          'path-outside-roots',
          `${JSON.stringify(value)} resolves outside the workspace roots.`,
        );
      return undefined;
    },
  };
}

/** -ldflags limited to stripping symbols and setting string variables (-s, -w, -X importpath.name=value). */
const ldflags = matching(
  /^\s*((-s|-w|-X[= ]?[\w./-]+=\S*|-buildid=\S*)\s*)*$/,
  '-s -w -X importpath.name=value',
  refusal(RUNS, '`-ldflags` other than -s/-w/-X can name an external linker (-extld) and its flags.'),
);

const BUILD_FLAGS: OptionSpec[] = [
  opt('-o', path),
  flag('-v'),
  flag('-x'),
  flag('-a'),
  flag('-n'),
  flag('-race'),
  flag('-cover'),
  opt('-coverpkg', text),
  opt('-covermode', choice('set', 'count', 'atomic')),
  opt('-tags', text),
  flag('-trimpath'),
  opt('-mod', choice('readonly', 'vendor', 'mod')),
  opt('-modfile', path),
  flag('-modcacherw'),
  flag('-buildvcs'),
  opt('-p', number),
  opt('-ldflags', ldflags),
  refused('-toolexec', RUNS, '`go -toolexec` runs a program around every compiler and linker invocation.', {
    value: text,
  }),
  refused('-exec', RUNS, '`go -exec` runs test and program binaries through another program.', {
    value: text,
  }),
  refused('-compiler', RUNS, '`go -compiler gccgo` runs another compiler.', { value: text }),
  refused(
    ['-gcflags', '-asmflags', '-gccgoflags'],
    RUNS,
    'compiler flags from argv can load plugins or write anywhere.',
    {
      value: text,
    },
  ),
  refused('-overlay', 'path-outside-roots', '`go -overlay` replaces source files with any files on disk.', {
    value: text,
  }),
];

const TEST_FLAGS: OptionSpec[] = [
  opt('-run', text),
  opt('-skip', text),
  opt('-bench', text),
  flag('-benchmem'),
  opt('-benchtime', text),
  opt('-count', number),
  opt('-cpu', text),
  flag('-failfast'),
  flag('-json'),
  flag('-short'),
  opt('-timeout', text),
  opt('-parallel', number),
  opt('-shuffle', text),
  opt('-vet', text),
  opt('-list', text),
  flag('-c'),
  opt('-coverprofile', path),
  opt('-cpuprofile', path),
  opt('-memprofile', path),
  opt('-blockprofile', path),
  opt('-outputdir', path),
  { names: ['-args'], endsOptions: true },
];

function goSub(name: string, options: OptionSpec[], extra: Partial<CommandSpec> = {}): CommandSpec {
  return {
    name: `go ${name}`,
    options: [...options, infoFlag('-h', '-help')],
    positionals: { rest: goPackage(true) },
    ...extra,
  };
}

const envWrite = (flagName: string) =>
  refused(
    flagName,
    'config-write',
    `\`go env ${flagName}\` writes Go's configuration file, which every later go command obeys (CC, GOFLAGS, GOTOOLCHAIN).`,
    {
      instead: 'go env [-json] [names] to read; set variables in the toolchain spec',
    },
  );

export const GO: CommandSpec = {
  name: 'go',
  syntax: GO_FLAG,
  options: [opt('-C', path, { changesDirectory: true }), infoFlag('-h', '-help')],
  subcommands: {
    build: goSub('build', BUILD_FLAGS),
    install: goSub('install', BUILD_FLAGS),
    vet: goSub('vet', [
      ...BUILD_FLAGS.filter((o) => o.names[0] !== '-o'),
      flag('-json'),
      refused('-vettool', RUNS, '`go vet -vettool` names the analysis program to run.', { value: text }),
    ]),
    test: goSub('test', [...BUILD_FLAGS, ...TEST_FLAGS], {
      syntax: GO_TEST_FLAG,
      afterDoubleDash: forwardedArgs,
    }),
    run: goSub('run', BUILD_FLAGS, { positionals: { each: [goPackage(true)], rest: programArgs } }),
    get: goSub('get', [flag('-u'), flag('-t'), flag('-d'), flag('-v'), flag('-x')], {
      positionals: { rest: goPackage(false) },
    }),
    list: goSub(
      'list',
      [
        flag('-m'),
        flag('-json'),
        opt('-f', text),
        flag('-u'),
        flag('-versions'),
        flag('-deps'),
        flag('-test'),
        flag('-e'),
        flag('-find'),
        opt('-tags', text),
        opt('-mod', choice('readonly', 'vendor', 'mod')),
      ],
      { positionals: { rest: goPackage(false) } },
    ),
    mod: {
      name: 'go mod',
      options: [],
      subcommands: {
        download: goSub('mod download', [flag('-x'), flag('-json')], {
          positionals: { rest: goPackage(false) },
        }),
        tidy: goSub('mod tidy', [flag('-v'), flag('-e'), opt('-go', text), opt('-compat', text)], {
          positionals: {},
        }),
        verify: goSub('mod verify', [], { positionals: {} }),
        graph: goSub('mod graph', [opt('-go', text)], { positionals: {} }),
        why: goSub('mod why', [flag('-m'), flag('-vendor')], { positionals: { rest: text } }),
        vendor: goSub('mod vendor', [flag('-v'), flag('-e'), opt('-o', path)], { positionals: {} }),
        init: goSub('mod init', [], { positionals: { each: [text] } }),
        edit: goSub(
          'mod edit',
          [
            flag('-fmt'),
            flag('-json'),
            flag('-print'),
            opt('-go', text),
            opt('-module', text),
            opt('-require', text),
            opt('-droprequire', text),
            opt('-exclude', text),
            opt('-dropexclude', text),
          ],
          { positionals: { each: [path] } },
        ),
      },
    },
    env: goSub('env', [flag('-json'), envWrite('-w'), envWrite('-u')], {
      positionals: { rest: matching(/^[A-Z][A-Z0-9_]*$/, 'a variable name such as GOPATH') },
    }),
    version: goSub('version', [flag('-m'), flag('-v')], { positionals: { rest: path } }),
    fmt: goSub('fmt', [flag('-n'), flag('-x')]),
    clean: goSub('clean', [
      flag('-cache'),
      flag('-testcache'),
      flag('-modcache'),
      flag('-fuzzcache'),
      flag('-i'),
      flag('-r'),
      flag('-n'),
      flag('-x'),
    ]),
    doc: goSub('doc', [flag('-all'), flag('-c'), flag('-cmd'), flag('-short'), flag('-src'), flag('-u')], {
      positionals: { rest: text },
    }),
    generate: goSub('generate', [flag('-n'), flag('-v'), flag('-x'), opt('-run', text), opt('-skip', text)]),
    tool: refusal(
      RUNS,
      '`go tool` runs any tool binary of the toolchain (pprof and trace start servers and browsers).',
    ),
  },
};

export const GOFMT: CommandSpec = {
  name: 'gofmt',
  syntax: GO_FLAG,
  options: [
    flag('-l'),
    flag('-d'),
    flag('-e'),
    flag('-s'),
    flag('-w'),
    opt('-r', text),
    infoFlag('-h', '-help'),
  ],
  positionals: { rest: path },
};

export const GO_TABLES: Readonly<Record<string, CommandSpec>> = { go: GO, gofmt: GOFMT };
