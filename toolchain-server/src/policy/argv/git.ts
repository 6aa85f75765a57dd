/**
 * git: the subcommands a build or a review needs, each with its options. Configuration never comes from argv
 * (`-c`, `--config-env`) and is never written (`git config` is read-only, `git remote` cannot add or change
 * URLs); no option names a program (`--upload-pack`, `--exec`, `rebase -x`, `grep -O`); remote URLs cannot
 * name a transport helper (`ext::`); paths, `-C`, `--git-dir` and `--work-tree` stay inside the roots.
 */
import { dirname } from 'node:path';
import {
  choice,
  described,
  flag,
  infoFlag,
  matching,
  number,
  opt,
  optional,
  path,
  pathspec,
  refusal,
  refused,
  text,
} from '../options/build.ts';
import type { CommandSpec, OptionSpec, Positionals, Refusal, ValueSpec } from '../options/spec.ts';
import { GIT_GLOBAL, GIT_PARSE_OPTIONS } from '../options/syntaxes.ts';

const RUNS = 'runs-command-option';
const GPG = 'runs gpg.program, a program named in configuration';

/** The path git opens for a file:// URL (host empty or localhost, %XX decoded); undefined for another host. */
function fileUrlPath(url: string): string | undefined {
  const rest = url.slice('file://'.length);
  const slash = rest.indexOf('/');
  const host = slash < 0 ? rest : rest.slice(0, slash);
  if (host !== '' && host.toLowerCase() !== 'localhost') return undefined;
  try {
    return decodeURIComponent(slash < 0 ? '' : rest.slice(slash));
  } catch {
    return undefined;
  }
}

/** A remote: a name, an https/ssh/git URL or scp-like address, or a local repository inside the roots. */
const remote: ValueSpec = {
  kind: 'custom',
  describe: 'a remote name, an https/ssh/git URL, or a repository path inside the workspace',
  // git opens a local repository path from the worktree's top, not the cwd: `upward` checks it from every
  // directory between the cwd and its root (any of them may be the top).
  check(value, _inside, inside): Refusal | undefined {
    if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(value))
      return refusal(
        'remote-helper',
        `${JSON.stringify(value)} names a remote helper (<transport>::), which runs a program such as ext::'s command.`,
      );
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value)?.[1]?.toLowerCase();
    if (scheme === 'file') {
      // git drops a `localhost` host and decodes %XX escapes (`%2e%2e` is `..`) before it opens the path.
      const local = fileUrlPath(value);
      return local !== undefined && inside(local)
        ? undefined
        : refusal(
            'path-outside-roots',
            `${JSON.stringify(value)} is a repository outside the workspace roots.`,
          );
    }
    if (scheme !== undefined)
      return ['http', 'https', 'ssh', 'git'].includes(scheme)
        ? undefined
        : refusal('remote-helper', `the ${scheme}:// transport runs git-remote-${scheme}, a helper program.`);
    // scp-like `host:path` (a colon before any slash) is ssh; a plain name is a configured remote.
    const colon = value.indexOf(':');
    const slash = value.indexOf('/');
    if (colon > 0 && (slash < 0 || colon < slash)) return undefined;
    // A bare word is a configured remote, or else a path git opens: one that exists must lead inside.
    return inside(value)
      ? undefined
      : refusal(
          'path-outside-roots',
          `${JSON.stringify(value)} is a repository outside the workspace roots.`,
        );
  },
};

const quiet = flag('-q', '--quiet');
const verbose = flag('-v', '--verbose');
const color = [optional('--color', choice('always', 'never', 'auto')), flag('--no-color')];
const gpgSign = refused(['-S', '--gpg-sign'], RUNS, `signing ${GPG}.`, { value: text, optionalValue: true });
const uploadPackWhy = '`--upload-pack` names the program to run on the remote side.';
const uploadPack = refused('--upload-pack', RUNS, uploadPackWhy, { value: text });
/** `git clone -u` is `--upload-pack`; for fetch and pull, `-u` means something else and is not listed. */
const cloneUploadPack = refused(['--upload-pack', '-u'], RUNS, uploadPackWhy, { value: text });
const strategy = opt(
  ['-s', '--strategy'],
  choice('ort', 'recursive', 'resolve', 'octopus', 'ours', 'subtree'),
);
const strategyOption = opt(['-X', '--strategy-option'], text);
const noVerify = flag('--no-verify');

/** Output options shared by diff, log, show and the diff plumbing. */
const DIFF_OPTIONS: OptionSpec[] = [
  flag('-p', '-u', '--patch'),
  flag('-s', '--no-patch'),
  opt(['-U', '--unified'], number),
  flag('--raw'),
  flag('--patch-with-stat'),
  optional('--stat', described('width,name-width,count')),
  flag('--numstat'),
  flag('--shortstat'),
  optional('--dirstat', text),
  flag('--summary'),
  flag('--name-only'),
  flag('--name-status'),
  optional('--word-diff', choice('color', 'plain', 'porcelain', 'none')),
  flag('-b', '--ignore-space-change'),
  flag('-w', '--ignore-all-space'),
  flag('--ignore-blank-lines'),
  flag('--ignore-space-at-eol'),
  opt('--diff-filter', matching(/^[ACDMRTUXBacdmrtuxb*]+$/, 'letters such as AM')),
  optional(['-M', '--find-renames'], matching(/^\d+%?$/, 'a similarity such as 50%')),
  flag('--no-renames'),
  optional('--relative', pathspec),
  flag('--no-relative'),
  flag('-a', '--text'),
  flag('--minimal'),
  flag('--patience'),
  flag('--histogram'),
  optional('--abbrev', number),
  flag('--full-index'),
  flag('--binary'),
  flag('--check'),
  flag('--exit-code'),
  flag('--quiet'),
  flag('-R'),
  flag('-z'),
  flag('--no-prefix'),
  opt('--src-prefix', text),
  opt('--dst-prefix', text),
  optional('--ignore-submodules', choice('none', 'untracked', 'dirty', 'all')),
  opt('--output', path),
  flag('--no-ext-diff'),
  flag('--no-textconv'),
  ...color,
  refused('--ext-diff', RUNS, '`--ext-diff` runs the external diff program named in configuration.'),
  refused('--textconv', RUNS, '`--textconv` runs conversion programs named in configuration.'),
];

/** Options of `git log`, `git show` and `git rev-list` that select and format commits. */
const LOG_OPTIONS: OptionSpec[] = [
  flag('--oneline'),
  optional(['--pretty', '--format'], described('a format')),
  flag('--graph'),
  optional('--decorate', choice('short', 'full', 'auto', 'no')),
  flag('--no-decorate'),
  flag('--all'),
  optional('--branches', text),
  optional('--tags', text),
  optional('--remotes', text),
  opt(['-n', '--max-count'], number),
  opt('--skip', number),
  opt(['--since', '--after'], text),
  opt(['--until', '--before'], text),
  opt('--author', text),
  opt('--committer', text),
  opt('--grep', text),
  flag('--all-match'),
  flag('--invert-grep'),
  flag('-i', '--regexp-ignore-case'),
  flag('-E', '--extended-regexp'),
  flag('-F', '--fixed-strings'),
  flag('--first-parent'),
  flag('--no-merges'),
  flag('--merges'),
  flag('--reverse'),
  flag('--follow'),
  opt('--date', text),
  opt('-S', text),
  opt('-G', text),
  flag('--pickaxe-all'),
  flag('--pickaxe-regex'),
  opt('-L', text),
  flag('--left-right'),
  flag('--cherry-pick'),
  flag('--topo-order'),
  flag('--date-order'),
  flag('--full-history'),
  flag('--simplify-by-decoration'),
  flag('--source'),
  flag('-g', '--walk-reflogs'),
  flag('--no-walk'),
  flag('--count'),
  flag('--objects'),
  flag('--boundary'),
  flag('-m'),
  flag('--no-notes'),
  refused('--show-signature', RUNS, `checking signatures ${GPG}.`),
];

const revisionsAndPaths: Positionals = { rest: pathspec };

function sub(name: string, options: OptionSpec[], positionals?: CommandSpec['positionals']): CommandSpec {
  return { name: `git ${name}`, options: [...options, flag('-h')], ...(positionals ? { positionals } : {}) };
}

const configWrite = (what: string) =>
  refusal('config-write', `\`git ${what}\` writes configuration, which later git commands would obey.`);

const READ_MODES = ['--get', '--get-all', '--get-regexp', '--list'];

const gitConfig: CommandSpec = sub(
  'config',
  [
    flag('--get'),
    flag('--get-all'),
    flag('--get-regexp'),
    flag('-l', '--list'),
    flag('--show-origin'),
    flag('--show-scope'),
    flag('--name-only'),
    flag('-z', '--null'),
    flag('--local'),
    flag('--global'),
    flag('--system'),
    flag('--worktree'),
    opt(['-f', '--file'], path),
    opt('--type', choice('bool', 'int', 'bool-or-int', 'path', 'expiry-date', 'color')),
    flag('--bool'),
    flag('--int'),
    flag('--path'),
    opt('--default', text),
    ...['--add', '--unset', '--unset-all', '--replace-all', '--rename-section', '--remove-section'].map(
      (name) =>
        refused(name, 'config-write', `\`git config ${name}\` writes configuration.`, {
          instead: `read-only forms: git config ${READ_MODES.join('|')} ...`,
        }),
    ),
    refused(['-e', '--edit'], 'config-write', '`git config --edit` opens configuration in an editor.'),
  ],
  (given) =>
    READ_MODES.some((mode) => given.has(mode))
      ? { each: [text, text] }
      : {
          extra: {
            ...configWrite('config <name> <value>'),
            instead: `read-only forms: git config ${READ_MODES.join('|')} ...`,
          },
        },
);

const remoteAndRefspecs: Positionals = { each: [remote], rest: text };

const SUBCOMMANDS: Record<string, CommandSpec | Refusal> = {
  status: sub(
    'status',
    [
      flag('-s', '--short'),
      flag('-b', '--branch'),
      optional('--porcelain', choice('v1', 'v2')),
      flag('--long'),
      optional(['-u', '--untracked-files'], choice('no', 'normal', 'all')),
      optional('--ignored', choice('traditional', 'no', 'matching')),
      flag('-z'),
      flag('--show-stash'),
      flag('--ahead-behind'),
      flag('--no-ahead-behind'),
      flag('--renames'),
      flag('--no-renames'),
      verbose,
    ],
    { rest: pathspec },
  ),
  diff: sub(
    'diff',
    [
      ...DIFF_OPTIONS,
      flag('--cached', '--staged'),
      flag('--merge-base'),
      refused('--no-index', 'path-outside-roots', '`git diff --no-index` compares any two files on disk.', {
        instead: 'git diff inside the repository; paths outside the workspace are refused',
      }),
    ],
    revisionsAndPaths,
  ),
  // `git log -5` is `git log -n 5`.
  log: { ...sub('log', [...LOG_OPTIONS, ...DIFF_OPTIONS], revisionsAndPaths), numericShorthand: '-n' },
  show: { ...sub('show', [...LOG_OPTIONS, ...DIFF_OPTIONS], revisionsAndPaths), numericShorthand: '-n' },
  'rev-list': { ...sub('rev-list', LOG_OPTIONS, revisionsAndPaths), numericShorthand: '-n' },
  'diff-tree': sub(
    'diff-tree',
    [...DIFF_OPTIONS, flag('-r'), flag('--root'), flag('--no-commit-id'), flag('-t')],
    revisionsAndPaths,
  ),
  'diff-index': sub('diff-index', [...DIFF_OPTIONS, flag('--cached')], revisionsAndPaths),
  'diff-files': sub('diff-files', DIFF_OPTIONS, revisionsAndPaths),
  add: sub(
    'add',
    [
      flag('-A', '--all'),
      flag('-u', '--update'),
      flag('-n', '--dry-run'),
      verbose,
      flag('-f', '--force'),
      flag('-N', '--intent-to-add'),
      flag('--ignore-errors'),
      flag('--renormalize'),
      opt('--chmod', choice('+x', '-x')),
    ],
    { rest: pathspec },
  ),
  rm: sub(
    'rm',
    [
      flag('--cached'),
      flag('-r'),
      flag('-f', '--force'),
      flag('-n', '--dry-run'),
      quiet,
      flag('--ignore-unmatch'),
    ],
    { rest: pathspec },
  ),
  mv: sub('mv', [flag('-f', '--force'), flag('-k'), flag('-n', '--dry-run'), verbose], { rest: pathspec }),
  commit: sub(
    'commit',
    [
      opt(['-m', '--message'], text),
      opt(['-F', '--file'], path),
      flag('-a', '--all'),
      flag('--amend'),
      flag('--no-edit'),
      flag('--allow-empty'),
      flag('--allow-empty-message'),
      quiet,
      opt('--author', text),
      opt('--date', text),
      flag('-s', '--signoff'),
      flag('-n', '--no-verify'),
      opt('--fixup', text),
      opt('--squash', text),
      opt(['-C', '--reuse-message'], text),
      opt('--cleanup', choice('strip', 'whitespace', 'verbatim', 'scissors', 'default')),
      flag('--no-gpg-sign'),
      gpgSign,
    ],
    { rest: pathspec },
  ),
  restore: sub(
    'restore',
    [
      opt(['-s', '--source'], text),
      flag('-S', '--staged'),
      flag('-W', '--worktree'),
      flag('--ours'),
      flag('--theirs'),
      quiet,
    ],
    { rest: pathspec },
  ),
  switch: sub(
    'switch',
    [
      opt(['-c', '--create'], text),
      opt(['-C', '--force-create'], text),
      flag('-d', '--detach'),
      flag('--guess'),
      flag('--no-guess'),
      flag('-f', '--force', '--discard-changes'),
      opt('--orphan', text),
      quiet,
    ],
    { rest: text },
  ),
  checkout: sub(
    'checkout',
    [
      opt('-b', text),
      opt('-B', text),
      flag('-f', '--force'),
      flag('--detach'),
      opt('--orphan', text),
      quiet,
      flag('--ours'),
      flag('--theirs'),
    ],
    { rest: pathspec },
  ),
  branch: sub(
    'branch',
    [
      flag('-a', '--all'),
      flag('-r', '--remotes'),
      flag('-l', '--list'),
      verbose,
      flag('-d', '--delete'),
      flag('-D'),
      flag('-m', '--move'),
      flag('-M'),
      flag('-c', '--copy'),
      flag('-f', '--force'),
      flag('--show-current'),
      opt('--format', text),
      opt('--sort', text),
      // Filters by commit (`--contains HEAD~1`: git takes the next word as the commit, here a text operand).
      optional('--contains', text),
      optional('--no-contains', text),
      optional('--merged', text),
      optional('--no-merged', text),
      opt('--points-at', text),
      ...color,
    ],
    { rest: text },
  ),
  tag: sub(
    'tag',
    [
      flag('-l', '--list'),
      flag('-a', '--annotate'),
      opt(['-m', '--message'], text),
      opt(['-F', '--file'], path),
      flag('-d', '--delete'),
      flag('-f', '--force'),
      opt('--sort', text),
      opt('--format', text),
      opt('--points-at', text),
      flag('--no-sign'),
      refused(['-s', '--sign'], RUNS, `signing ${GPG}.`),
      refused(['-u', '--local-user'], RUNS, `signing ${GPG}.`, { value: text }),
      refused(['-v', '--verify'], RUNS, `verifying ${GPG}.`),
    ],
    { rest: text },
  ),
  'rev-parse': sub(
    'rev-parse',
    [
      flag('--show-toplevel'),
      flag('--git-dir'),
      flag('--absolute-git-dir'),
      flag('--git-common-dir'),
      flag('--is-inside-work-tree'),
      flag('--is-bare-repository'),
      flag('--show-prefix'),
      flag('--show-cdup'),
      flag('--abbrev-ref'),
      flag('--symbolic-full-name'),
      optional('--short', number),
      flag('--verify'),
      quiet,
      flag('--all'),
      flag('--branches'),
      flag('--tags'),
    ],
    { rest: pathspec },
  ),
  'ls-files': sub(
    'ls-files',
    [
      flag('-c', '--cached'),
      flag('-d', '--deleted'),
      flag('-m', '--modified'),
      flag('-o', '--others'),
      flag('-i', '--ignored'),
      flag('-s', '--stage'),
      flag('-u', '--unmerged'),
      flag('-k', '--killed'),
      flag('-t'),
      flag('-z'),
      flag('--exclude-standard'),
      opt(['-x', '--exclude'], text),
      opt(['-X', '--exclude-from'], path),
      flag('--full-name'),
      flag('--error-unmatch'),
      flag('--deduplicate'),
    ],
    { rest: pathspec },
  ),
  'ls-tree': sub(
    'ls-tree',
    [
      flag('-r'),
      flag('-d'),
      flag('-t'),
      flag('-l', '--long'),
      flag('-z'),
      flag('--name-only'),
      flag('--name-status'),
      flag('--full-tree'),
      flag('--full-name'),
      optional('--abbrev', number),
    ],
    { rest: pathspec },
  ),
  'cat-file': sub('cat-file', [flag('-t'), flag('-s'), flag('-p'), flag('-e')], { rest: text }),
  blame: sub(
    'blame',
    [
      opt('-L', text),
      flag('-w'),
      flag('-e', '--show-email'),
      flag('-s'),
      flag('-l'),
      flag('-t'),
      flag('--porcelain'),
      flag('--line-porcelain'),
      opt('--date', text),
      flag('--root'),
      flag('--show-stats'),
    ],
    { rest: pathspec },
  ),
  grep: sub(
    'grep',
    [
      flag('-i', '--ignore-case'),
      flag('-w', '--word-regexp'),
      flag('-v', '--invert-match'),
      flag('-n', '--line-number'),
      flag('-l', '--files-with-matches', '--name-only'),
      flag('-L', '--files-without-match'),
      flag('-c', '--count'),
      opt('-e', text),
      flag('-E', '--extended-regexp'),
      flag('-F', '--fixed-strings'),
      flag('-P', '--perl-regexp'),
      flag('-h'),
      flag('-H'),
      flag('--cached'),
      flag('--untracked'),
      opt('--max-depth', number),
      flag('-q', '--quiet'),
      flag('-z', '--null'),
      flag('--and'),
      flag('--or'),
      flag('--not'),
      flag('--all-match'),
      flag('--full-name'),
      opt(['-A', '--after-context'], number),
      opt(['-B', '--before-context'], number),
      opt(['-C', '--context'], number),
      flag('--break'),
      flag('--heading'),
      refused(['-O', '--open-files-in-pager'], RUNS, '`git grep -O` runs a pager program on the matches.', {
        value: text,
        optionalValue: true,
      }),
    ],
    (given) => (given.has('-e') ? { rest: pathspec } : { each: [text], rest: pathspec }),
  ),
  // Listing only: `worktree add` creates a checkout wherever its path says, `remove`/`prune` delete them.
  worktree: {
    name: 'git worktree',
    options: [],
    subcommands: {
      list: sub('worktree list', [flag('--porcelain'), flag('-v', '--verbose'), flag('-z')], {}),
    },
  },
  stash: {
    name: 'git stash',
    options: [],
    subcommands: {
      push: sub(
        'stash push',
        [
          opt(['-m', '--message'], text),
          flag('-u', '--include-untracked'),
          flag('-a', '--all'),
          flag('-k', '--keep-index'),
          flag('--staged'),
          quiet,
        ],
        { rest: pathspec },
      ),
      pop: sub('stash pop', [flag('--index'), quiet], { each: [text] }),
      apply: sub('stash apply', [flag('--index'), quiet], { each: [text] }),
      list: sub('stash list', [flag('--oneline')], {}),
      show: sub(
        'stash show',
        [flag('-p', '--patch'), flag('--stat'), flag('--name-only'), flag('--include-untracked')],
        { each: [text] },
      ),
      drop: sub('stash drop', [quiet], { each: [text] }),
      clear: sub('stash clear', [], {}),
      branch: sub('stash branch', [], { each: [text, text] }),
    },
  },
  reset: sub(
    'reset',
    [flag('--soft'), flag('--mixed'), flag('--hard'), flag('--merge'), flag('--keep'), quiet],
    { rest: pathspec },
  ),
  merge: sub(
    'merge',
    [
      flag('--no-ff'),
      flag('--ff'),
      flag('--ff-only'),
      flag('--squash'),
      flag('--no-commit'),
      flag('--commit'),
      opt('-m', text),
      flag('--abort'),
      flag('--continue'),
      flag('--no-edit'),
      flag('--allow-unrelated-histories'),
      flag('--stat'),
      flag('--no-stat'),
      noVerify,
      quiet,
      strategy,
      strategyOption,
      gpgSign,
      refused('--verify-signatures', RUNS, `verifying ${GPG}.`),
    ],
    { rest: text },
  ),
  rebase: sub(
    'rebase',
    [
      opt('--onto', text),
      flag('--abort'),
      flag('--continue'),
      flag('--skip'),
      flag('--quit'),
      flag('--root'),
      flag('-f', '--force-rebase'),
      flag('--committer-date-is-author-date'),
      flag('--ignore-date'),
      flag('--autostash'),
      flag('--no-autostash'),
      flag('--keep-base'),
      noVerify,
      quiet,
      strategy,
      strategyOption,
      gpgSign,
      refused(['-x', '--exec'], RUNS, '`git rebase --exec` runs a command after each commit.', {
        value: text,
      }),
      refused(['-i', '--interactive'], RUNS, '`git rebase -i` runs the sequence editor.'),
    ],
    { rest: text },
  ),
  'cherry-pick': sub(
    'cherry-pick',
    [
      flag('-n', '--no-commit'),
      flag('-x'),
      opt(['-m', '--mainline'], number),
      flag('--abort'),
      flag('--continue'),
      flag('--skip'),
      flag('--quit'),
      flag('--allow-empty'),
      flag('-s', '--signoff'),
      flag('--ff'),
      strategy,
      strategyOption,
      gpgSign,
    ],
    { rest: text },
  ),
  revert: sub(
    'revert',
    [
      flag('--no-edit'),
      flag('-n', '--no-commit'),
      opt(['-m', '--mainline'], number),
      flag('--abort'),
      flag('--continue'),
      flag('--skip'),
      flag('--quit'),
      flag('-s', '--signoff'),
      gpgSign,
    ],
    { rest: text },
  ),
  init: sub(
    'init',
    [
      quiet,
      flag('--bare'),
      opt(['-b', '--initial-branch'], text),
      opt('--object-format', choice('sha1', 'sha256')),
      opt('--template', path),
      opt('--separate-git-dir', path),
    ],
    { each: [path] },
  ),
  clone: sub(
    'clone',
    [
      opt('--depth', number),
      opt(['-b', '--branch'], text),
      flag('--single-branch'),
      flag('--no-single-branch'),
      flag('--no-tags'),
      quiet,
      flag('--bare'),
      flag('--mirror'),
      opt(['-o', '--origin'], text),
      flag('--sparse'),
      opt('--filter', text),
      opt('--shallow-since', text),
      flag('-n', '--no-checkout'),
      flag('--no-hardlinks'),
      opt('--template', path),
      cloneUploadPack,
      refused(['-c', '--config'], 'config-override', '`git clone --config` sets configuration from argv.', {
        value: text,
      }),
    ],
    { each: [remote, path], min: 1 },
  ),
  fetch: sub(
    'fetch',
    [
      flag('--all'),
      flag('-p', '--prune'),
      flag('-t', '--tags'),
      flag('--no-tags'),
      opt('--depth', number),
      flag('--unshallow'),
      quiet,
      verbose,
      flag('-f', '--force'),
      flag('--dry-run'),
      opt(['-j', '--jobs'], number),
      uploadPack,
    ],
    remoteAndRefspecs,
  ),
  pull: sub(
    'pull',
    [
      flag('--ff-only'),
      flag('--no-ff'),
      flag('--ff'),
      optional(['-r', '--rebase'], choice('true', 'false', 'merges')),
      flag('--no-rebase'),
      quiet,
      verbose,
      opt('--depth', number),
      flag('--tags'),
      flag('--no-edit'),
      flag('--autostash'),
      flag('--squash'),
      strategy,
      strategyOption,
      uploadPack,
      gpgSign,
    ],
    remoteAndRefspecs,
  ),
  push: sub(
    'push',
    [
      optional('--force-with-lease', text),
      flag('-f', '--force'),
      flag('--tags'),
      flag('--follow-tags'),
      flag('-d', '--delete'),
      flag('-u', '--set-upstream'),
      flag('-n', '--dry-run'),
      flag('--atomic'),
      opt(['-o', '--push-option'], text),
      noVerify,
      quiet,
      verbose,
      refused(
        ['--receive-pack', '--exec'],
        RUNS,
        '`git push --receive-pack` names the program to run on the remote side.',
        {
          value: text,
        },
      ),
    ],
    remoteAndRefspecs,
  ),
  'ls-remote': sub(
    'ls-remote',
    [
      flag('--heads'),
      flag('--tags'),
      flag('--refs'),
      quiet,
      flag('--exit-code'),
      flag('--symref'),
      uploadPack,
    ],
    remoteAndRefspecs,
  ),
  remote: {
    name: 'git remote',
    options: [verbose],
    subcommands: {
      show: sub('remote show', [flag('-n')], { rest: text }),
      'get-url': sub('remote get-url', [flag('--push'), flag('--all')], { each: [text] }),
      prune: sub('remote prune', [flag('-n', '--dry-run')], { rest: text }),
      update: sub('remote update', [flag('-p', '--prune')], { rest: text }),
      add: configWrite('remote add'),
      'set-url': configWrite('remote set-url'),
      rename: configWrite('remote rename'),
      remove: configWrite('remote remove'),
      rm: configWrite('remote rm'),
      'set-head': configWrite('remote set-head'),
      'set-branches': configWrite('remote set-branches'),
    },
  },
  config: gitConfig,
  submodule: {
    name: 'git submodule',
    options: [quiet],
    subcommands: {
      status: sub('submodule status', [flag('--recursive'), flag('--cached')], { rest: pathspec }),
      update: sub(
        'submodule update',
        [flag('--init'), flag('--recursive'), opt('--depth', number), flag('--remote'), flag('--no-fetch')],
        { rest: pathspec },
      ),
      foreach: refusal(RUNS, '`git submodule foreach` runs a command in every submodule.'),
    },
  },
  bisect: {
    name: 'git bisect',
    options: [],
    subcommands: {
      ...Object.fromEntries(
        ['start', 'bad', 'good', 'new', 'old', 'skip', 'reset', 'log', 'terms'].map((name) => [
          name,
          sub(`bisect ${name}`, name === 'start' ? [flag('--no-checkout'), flag('--first-parent')] : [], {
            rest: pathspec,
          }),
        ]),
      ),
      run: refusal(RUNS, '`git bisect run` runs a command at every step.'),
    },
  },
  archive: sub(
    'archive',
    [
      opt('--format', choice('tar', 'zip', 'tar.gz', 'tgz')),
      opt(['-o', '--output'], path),
      opt('--prefix', text),
      flag('-l', '--list'),
      verbose,
      refused('--remote', RUNS, '`git archive --remote` runs git-upload-archive (or --exec) on a remote.', {
        value: text,
      }),
      refused('--exec', RUNS, '`git archive --exec` names the program to run on the remote side.', {
        value: text,
      }),
    ],
    { rest: pathspec },
  ),
  'format-patch': sub(
    'format-patch',
    [
      opt(['-o', '--output-directory'], path),
      flag('--stdout'),
      flag('-n', '--numbered'),
      flag('--cover-letter'),
      opt('--subject-prefix', text),
      opt(['-v', '--reroll-count'], text),
      ...DIFF_OPTIONS,
    ],
    { rest: text },
  ),
  apply: sub(
    'apply',
    [
      flag('--check'),
      flag('--stat'),
      flag('--numstat'),
      flag('--summary'),
      flag('--index'),
      flag('--cached'),
      flag('-R', '--reverse'),
      flag('-3', '--3way'),
      opt('-p', number),
      opt('--exclude', text),
      opt('--include', text),
      verbose,
      opt('--whitespace', choice('nowarn', 'warn', 'fix', 'error', 'error-all')),
      flag('--reject'),
      refused(
        '--unsafe-paths',
        'path-outside-roots',
        '`git apply --unsafe-paths` lets a patch write outside the working tree.',
      ),
    ],
    { rest: path },
  ),
  clean: sub(
    'clean',
    [
      flag('-n', '--dry-run'),
      flag('-f', '--force'),
      flag('-d'),
      flag('-x'),
      flag('-X'),
      quiet,
      opt(['-e', '--exclude'], text),
    ],
    { rest: pathspec },
  ),
  describe: sub(
    'describe',
    [
      flag('--tags'),
      flag('--always'),
      optional('--abbrev', number),
      optional('--dirty', text),
      flag('--long'),
      flag('--exact-match'),
      opt('--match', text),
      opt('--exclude', text),
      flag('--all'),
    ],
    { rest: text },
  ),
  shortlog: sub(
    'shortlog',
    [flag('-s', '--summary'), flag('-n', '--numbered'), flag('-e', '--email'), flag('--no-merges')],
    { rest: text },
  ),
  reflog: {
    ...sub('reflog', [opt(['-n', '--max-count'], number), opt('--date', text)], { rest: text }),
    numericShorthand: '-n',
  },
  'for-each-ref': sub(
    'for-each-ref',
    [opt('--format', text), opt('--sort', text), opt('--count', number), opt('--points-at', text)],
    { rest: text },
  ),
  'show-ref': sub(
    'show-ref',
    [flag('--heads'), flag('--tags'), flag('-s', '--hash'), flag('--verify'), quiet],
    { rest: text },
  ),
  'symbolic-ref': sub('symbolic-ref', [quiet, flag('--short')], { each: [text, text] }),
  'merge-base': sub(
    'merge-base',
    [flag('-a', '--all'), flag('--is-ancestor'), flag('--fork-point'), flag('--octopus')],
    { rest: text },
  ),
  'name-rev': sub('name-rev', [flag('--name-only'), flag('--tags'), flag('--all')], { rest: text }),
  'count-objects': sub('count-objects', [verbose, flag('-H', '--human-readable')], {}),
  fsck: sub('fsck', [flag('--full'), flag('--strict'), flag('--no-dangling'), flag('--connectivity-only')], {
    rest: text,
  }),
  gc: sub('gc', [flag('--aggressive'), optional('--prune', text), flag('--auto'), quiet], {}),
  'check-ignore': sub('check-ignore', [verbose, flag('-n', '--non-matching'), flag('-z')], {
    rest: pathspec,
  }),
  'check-attr': sub('check-attr', [flag('-a', '--all'), flag('--cached'), flag('-z')], { rest: pathspec }),
  'hash-object': sub('hash-object', [flag('-w'), opt('-t', text)], { rest: path }),
  version: sub('version', [flag('--build-options')], {}),
  'filter-branch': refusal(RUNS, '`git filter-branch` runs the shell filters given in argv.'),
  difftool: refusal(RUNS, '`git difftool` runs a diff program.'),
  mergetool: refusal(RUNS, '`git mergetool` runs a merge program.'),
  help: refusal(RUNS, '`git help` opens manual pages with man, a pager or a browser.'),
  hook: refusal(RUNS, '`git hook run` runs a repository hook.'),
  instaweb: refusal(RUNS, '`git instaweb` starts a web server and a browser.'),
  'send-email': refusal(RUNS, '`git send-email` runs sendmail and reads credentials.'),
  credential: refusal(RUNS, '`git credential` runs credential helpers.'),
};

export const GIT: CommandSpec = {
  name: 'git',
  syntax: GIT_GLOBAL,
  options: [
    opt('-C', path, { changesDirectory: true }),
    opt('--git-dir', path),
    opt('--work-tree', path),
    flag('--no-pager', '-P'),
    flag('--no-optional-locks'),
    flag('--literal-pathspecs'),
    flag('--no-replace-objects'),
    flag('--bare'),
    infoFlag('--version'),
    refused(
      '-c',
      'config-override',
      '`git -c` sets configuration from argv, which can name programs to run.',
      {
        value: text,
        instead: 'configuration belongs in the repository, not in argv',
      },
    ),
    refused('--config-env', 'config-override', '`git --config-env` sets configuration from argv.', {
      value: text,
    }),
    refused('--exec-path', RUNS, '`git --exec-path` points git at other helper programs.', {
      value: text,
      optionalValue: true,
    }),
  ],
  subcommands: Object.fromEntries(
    Object.entries(SUBCOMMANDS).map(([name, spec]) => [
      name,
      'options' in spec ? { ...spec, syntax: GIT_PARSE_OPTIONS } : spec,
    ]),
  ),
};

/**
 * What every git child runs with, besides the caller's environment: no repository discovery above the roots
 * (so a `.git` outside them is never used), no system configuration, and overrides that win over any
 * repository configuration for the settings that would otherwise run a program by themselves — fsmonitor on
 * `git status`, hooks on commit, the editor, pager and askpass, the ext:: transport. Configuration that names
 * programs per driver (diff textconv, filters, merge drivers) cannot be overridden this way; it is repository
 * content, like a Makefile (see docs/toolchain-server.md).
 */
export function gitEnvironment(roots: readonly string[], httpProxy?: string): Record<string, string> {
  const overrides: Array<[string, string]> = [
    ['core.fsmonitor', 'false'],
    ['core.hooksPath', '/dev/null'],
    ['protocol.ext.allow', 'never'],
  ];
  // With the broker (egressProxy), a repository's own http.proxy (or an empty one: no proxy) must not win.
  if (httpProxy !== undefined) overrides.push(['http.proxy', httpProxy]);
  const env: Record<string, string> = {
    GIT_CEILING_DIRECTORIES: [...new Set(roots.map((root) => dirname(root)))].join(':'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_EDITOR: 'true',
    GIT_SEQUENCE_EDITOR: 'true',
    GIT_PAGER: 'cat',
    GIT_ASKPASS: 'true',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_COUNT: String(overrides.length),
  };
  overrides.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}
