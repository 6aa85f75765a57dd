/**
 * cargo, rustc and rustfmt. Build scripts and tests are repository code and run by design; argv may not set
 * configuration (`--config`, `-Z`), install or publish crates, or pass rustc codegen options that name a
 * program (`-C linker=…`), and `@file` argument files are refused because the policy cannot see them.
 */
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
import { CLAP, RUSTC } from '../options/syntaxes.ts';

const cargoGlobal: OptionSpec[] = [
  flag('-v', '--verbose'),
  flag('-q', '--quiet'),
  opt('--color', choice('auto', 'always', 'never')),
  flag('--frozen'),
  flag('--locked'),
  flag('--offline'),
  infoFlag('-h', '--help'),
  refused(
    '--config',
    'config-override',
    '`cargo --config` sets configuration from argv (runners, rustc wrappers, linkers).',
    {
      value: text,
      instead: "configuration belongs in the repository's .cargo/config.toml",
    },
  ),
  refused(
    '-Z',
    'config-override',
    '`cargo -Z` unstable flags can load configuration (-Zconfig-include) and change what runs.',
    {
      value: text,
    },
  ),
];

const manifest = opt('--manifest-path', path);
const packages: OptionSpec[] = [
  opt(['-p', '--package'], text),
  flag('--workspace', '--all'),
  opt('--exclude', text),
];
const targets: OptionSpec[] = [
  flag('--lib'),
  flag('--bins'),
  opt('--bin', text),
  flag('--examples'),
  opt('--example', text),
  flag('--tests'),
  opt('--test', text),
  flag('--benches'),
  opt('--bench', text),
  flag('--all-targets'),
];
const features: OptionSpec[] = [
  opt(['-F', '--features'], text),
  flag('--all-features'),
  flag('--no-default-features'),
];
const compilation: OptionSpec[] = [
  flag('-r', '--release'),
  opt('--profile', text),
  opt('--target', text),
  opt('--target-dir', path),
  opt('--message-format', matching(/^[a-z0-9,-]+$/, 'a format such as short or json')),
  opt(['-j', '--jobs'], number),
  flag('--keep-going'),
  manifest,
];
const build = [...packages, ...targets, ...features, ...compilation];

/** After `cargo clippy --`: lint levels only (these are rustc arguments, so no -C or -Z). */
const clippyLint: ValueSpec = {
  kind: 'custom',
  describe: '-D/-W/-A/-F <lint>',
  check: (value): Refusal | undefined =>
    /^(-[DWAF]([a-z_:]+)?|--(deny|warn|allow|forbid)(=[a-z_:]+)?|[a-z_]+(::[a-z_]+)?)$/.test(value)
      ? undefined
      : refusal(
          'option-not-allowed',
          `${JSON.stringify(value)} is not a lint level; after \`cargo clippy --\` only -D/-W/-A/-F <lint> are allowed.`,
        ),
};

function cargoSub(name: string, options: OptionSpec[], extra: Partial<CommandSpec> = {}): CommandSpec {
  return { name: `cargo ${name}`, options: [...options, ...cargoGlobal], positionals: {}, ...extra };
}

const CARGO_ALIASES: Readonly<Record<string, string>> = {
  b: 'build',
  c: 'check',
  t: 'test',
  r: 'run',
  d: 'doc',
  rm: 'remove',
};

export const CARGO: CommandSpec = {
  name: 'cargo',
  syntax: CLAP,
  options: [
    ...cargoGlobal,
    infoFlag('-V', '--version'),
    flag('--list'),
    opt('-C', path, { changesDirectory: true }),
  ],
  resolveSubcommand: (word) => CARGO_ALIASES[word] ?? word,
  subcommands: {
    build: cargoSub('build', build),
    check: cargoSub('check', build),
    test: cargoSub('test', [...build, flag('--no-run'), flag('--no-fail-fast'), flag('--doc')], {
      positionals: { each: [text] },
      afterDoubleDash: forwardedArgs,
    }),
    bench: cargoSub('bench', [...build, flag('--no-run'), flag('--no-fail-fast')], {
      positionals: { each: [text] },
      afterDoubleDash: forwardedArgs,
    }),
    run: cargoSub(
      'run',
      [...packages, opt('--bin', text), opt('--example', text), ...features, ...compilation],
      {
        afterDoubleDash: programArgs,
      },
    ),
    doc: cargoSub('doc', [
      ...build,
      flag('--no-deps'),
      flag('--document-private-items'),
      refused('--open', 'runs-command-option', '`cargo doc --open` runs a browser.'),
    ]),
    clippy: cargoSub(
      'clippy',
      [...build, flag('--fix'), flag('--allow-dirty'), flag('--allow-staged'), flag('--no-deps')],
      {
        afterDoubleDash: clippyLint,
      },
    ),
    fmt: cargoSub('fmt', [flag('--all'), flag('--check'), opt(['-p', '--package'], text), manifest], {
      afterDoubleDash: refusal(
        'option-not-allowed',
        'arguments after `cargo fmt --` go to rustfmt unchecked.',
      ),
    }),
    clean: cargoSub('clean', [
      opt(['-p', '--package'], text),
      flag('-r', '--release'),
      opt('--profile', text),
      opt('--target-dir', path),
      flag('--doc'),
      manifest,
    ]),
    update: cargoSub(
      'update',
      [
        opt(['-p', '--package'], text),
        opt('--precise', text),
        flag('--dry-run'),
        flag('--workspace'),
        manifest,
      ],
      {
        positionals: { rest: text },
      },
    ),
    fetch: cargoSub('fetch', [opt('--target', text), manifest]),
    'generate-lockfile': cargoSub('generate-lockfile', [manifest]),
    metadata: cargoSub('metadata', [
      opt('--format-version', number),
      flag('--no-deps'),
      ...features,
      manifest,
    ]),
    tree: cargoSub('tree', [
      ...packages,
      ...features,
      opt(['-e', '--edges'], text),
      opt(['-i', '--invert'], text),
      opt('--depth', number),
      opt('--prefix', choice('indent', 'depth', 'none')),
      flag('--no-dedupe'),
      flag('-d', '--duplicates'),
      opt('--charset', choice('utf8', 'ascii')),
      opt(['-f', '--format'], text),
      opt('--target', text),
      manifest,
    ]),
    'locate-project': cargoSub('locate-project', [
      flag('--workspace'),
      opt('--message-format', choice('json', 'plain')),
      manifest,
    ]),
    pkgid: cargoSub('pkgid', [opt(['-p', '--package'], text), manifest], { positionals: { each: [text] } }),
    'verify-project': cargoSub('verify-project', [manifest]),
    new: cargoSub(
      'new',
      [
        flag('--bin'),
        flag('--lib'),
        opt('--name', text),
        opt('--edition', choice('2015', '2018', '2021', '2024')),
        opt('--vcs', choice('git', 'none')),
      ],
      {
        positionals: { each: [path], min: 1 },
      },
    ),
    init: cargoSub(
      'init',
      [
        flag('--bin'),
        flag('--lib'),
        opt('--name', text),
        opt('--edition', choice('2015', '2018', '2021', '2024')),
        opt('--vcs', choice('git', 'none')),
      ],
      {
        positionals: { each: [path] },
      },
    ),
    add: cargoSub(
      'add',
      [
        flag('--dev'),
        flag('--build'),
        ...features,
        flag('--optional'),
        opt('--rename', text),
        opt('--path', path),
        opt(['-p', '--package'], text),
        flag('--dry-run'),
        manifest,
      ],
      { positionals: { rest: matching(/^[A-Za-z0-9_-]+(@[\w.^~<>=*, -]+)?$/, 'a crate such as serde@1') } },
    ),
    remove: cargoSub(
      'remove',
      [flag('--dev'), flag('--build'), opt(['-p', '--package'], text), flag('--dry-run'), manifest],
      {
        positionals: { rest: text },
      },
    ),
    search: cargoSub('search', [opt('--limit', number)], { positionals: { rest: text } }),
    version: cargoSub('version', []),
    install: refusal(
      'package-runner',
      '`cargo install` downloads, builds and installs a crate from outside the workspace.',
    ),
    publish: refusal('subcommand-not-allowed', '`cargo publish` uploads to a registry with credentials.'),
    login: refusal('subcommand-not-allowed', '`cargo login` stores registry credentials.'),
  },
};

/** `-C key[=value]` for rustc: only codegen settings that run nothing. */
const codegen = matching(
  /^(opt-level|debuginfo|debug-assertions|overflow-checks|panic|target-cpu|target-feature|codegen-units|lto|strip|embed-bitcode|force-frame-pointers|relocation-model|code-model|split-debuginfo|incremental)(=[\w.,+-]*)?$/,
  'a codegen setting such as opt-level=2',
  refusal(
    'runs-command-option',
    'this `rustc -C` setting names a program or passes flags to one (linker, link-arg(s), llvm-args, …).',
    '-C opt-level/debuginfo/panic/target-cpu/codegen-units/lto/…',
  ),
);

/** `--emit kind[=path],…` and `--print kind[=path]`: every path is confined. */
const emitList: ValueSpec = {
  kind: 'custom',
  describe: 'kinds such as link,metadata, each optionally =path',
  check(value, inside) {
    for (const item of value.split(',')) {
      const eq = item.indexOf('=');
      if (eq >= 0 && !inside(item.slice(eq + 1)))
        return refusal('path-outside-roots', `${JSON.stringify(item)} writes outside the workspace roots.`);
    }
    return undefined;
  },
};

const searchPath: ValueSpec = {
  kind: 'custom',
  describe: '[kind=]path',
  check: (value, inside) =>
    inside(value.replace(/^(dependency|crate|native|framework|all)=/, ''))
      ? undefined
      : refusal('path-outside-roots', `${JSON.stringify(value)} resolves outside the workspace roots.`),
};

const externCrate: ValueSpec = {
  kind: 'custom',
  describe: 'name[=path]',
  check(value, inside) {
    const eq = value.indexOf('=');
    return eq < 0 || inside(value.slice(eq + 1))
      ? undefined
      : refusal('path-outside-roots', `${JSON.stringify(value)} resolves outside the workspace roots.`);
  },
};

export const RUSTC_TABLE: CommandSpec = {
  name: 'rustc',
  syntax: RUSTC,
  options: [
    opt('-o', path),
    opt('--out-dir', path),
    opt('--edition', choice('2015', '2018', '2021', '2024')),
    opt('--crate-type', matching(/^[a-z-]+(,[a-z-]+)*$/, 'bin, lib, rlib, …')),
    opt('--crate-name', text),
    flag('-O'),
    flag('-g'),
    flag('--test'),
    opt('-L', searchPath),
    opt('--extern', externCrate),
    opt('--cfg', text),
    opt(['-C', '--codegen'], codegen),
    opt('--emit', emitList),
    opt('--print', emitList),
    opt('--explain', text),
    opt('--target', text),
    opt('--cap-lints', choice('allow', 'warn', 'deny', 'forbid')),
    opt(['-W', '--warn'], text),
    opt(['-A', '--allow'], text),
    opt(['-D', '--deny'], text),
    opt(['-F', '--forbid'], text),
    opt('--error-format', choice('human', 'json', 'short')),
    opt('--json', text),
    opt('--color', choice('auto', 'always', 'never')),
    flag('-v', '--verbose'),
    infoFlag('-V', '--version'),
    infoFlag('-h', '--help'),
    refused(
      '-Z',
      'config-override',
      '`rustc -Z` unstable options can load code (plugins, codegen backends).',
      { value: text },
    ),
  ],
  positionals: { each: [path] },
};

export const RUSTFMT: CommandSpec = {
  name: 'rustfmt',
  syntax: RUSTC,
  options: [
    flag('--check'),
    opt('--edition', choice('2015', '2018', '2021', '2024')),
    opt('--config-path', path),
    opt('--config', matching(/^\w+=[\w.,-]*(,\w+=[\w.,-]*)*$/, 'key=value[,key=value]')),
    opt('--emit', choice('files', 'stdout')),
    flag('-l', '--files-with-diff'),
    flag('-v', '--verbose'),
    flag('-q', '--quiet'),
    flag('--backup'),
    infoFlag('-V', '--version'),
    infoFlag('-h', '--help'),
  ],
  positionals: { rest: path },
};

export const RUST_TABLES: Readonly<Record<string, CommandSpec>> = {
  cargo: CARGO,
  rustc: RUSTC_TABLE,
  rustfmt: RUSTFMT,
};
