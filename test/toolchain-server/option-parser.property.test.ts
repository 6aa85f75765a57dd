/**
 * Property tests of the option parser against the real tables, with a seeded PRNG (same seeds, same cases):
 * - every refused option stays refused, with its rule, however it is spelled — any unique abbreviation,
 *   `=value` or a separate value, clustered after other flags with its value attached or next, in old-style
 *   tar letters, with Node's underscores or tsc's capitals, anywhere the tool would still read an option;
 * - any spelling of allowed options means the same options as their full spelling, and the argv the policy
 *   emits approves to itself.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolError } from '../../toolchain-server/src/errors.ts';
import { commandTable } from '../../toolchain-server/src/policy/argv-policy.ts';
import { WorkspaceRoots } from '../../toolchain-server/src/policy/cwd.ts';
import { checkPaths } from '../../toolchain-server/src/policy/options/check.ts';
import { type ParsedCommand, parseCommand } from '../../toolchain-server/src/policy/options/parse.ts';
import type {
  CommandSpec,
  OptionSpec,
  Refusal,
  Syntax,
} from '../../toolchain-server/src/policy/options/spec.ts';
import { Random } from '../support/spec-generator.ts';
import { makeWorkspace, type Workspace } from './helpers.ts';

const CASES_PER_PROPERTY = 400;

let ws: Workspace;
let roots: WorkspaceRoots;
before(() => {
  ws = makeWorkspace();
  mkdirSync(join(ws.root, 'sub'));
  roots = new WorkspaceRoots([ws.root]);
});
after(() => ws.cleanup());

/** The table at `path` (`['git', 'fetch']`), with the syntax it inherits. */
function tableAt(path: readonly string[]): { table: CommandSpec; syntax: Syntax } {
  const root = commandTable(path[0]!);
  assert.ok(root, path[0]);
  let table: CommandSpec = root;
  let syntax: Syntax = root.syntax!;
  for (const sub of path.slice(1)) {
    const next: CommandSpec | Refusal | undefined = table.subcommands?.[sub];
    assert.ok(next && 'options' in next, `${path.join(' ')}`);
    table = next;
    syntax = table.syntax ?? syntax;
  }
  return { table, syntax };
}

function parse(path: readonly string[], words: readonly string[]): ParsedCommand {
  const parsed = parseCommand(commandTable(path[0]!)!, [...path.slice(1), ...words], {
    posixlyCorrect: false,
  });
  checkPaths(parsed, ws.root, roots);
  return parsed;
}

function refusalOf(path: readonly string[], words: readonly string[]): ToolError | undefined {
  try {
    parse(path, words);
    return undefined;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
}

const isLong = (name: string, syntax: Syntax) =>
  name.startsWith('--') || (syntax.singleDashLong === true && name.startsWith('-') && name.length > 2);
const isShort = (name: string, syntax: Syntax) => !syntax.singleDashLong && /^-[^-]$/.test(name);
const bare = (name: string) => name.replace(/^--?/, '');

/** The shortest prefix of `name` that no other option's long name shares (what getopt_long accepts). */
function minimalPrefix(table: CommandSpec, syntax: Syntax, spec: OptionSpec, name: string): number {
  if (!syntax.abbreviations) return bare(name).length;
  const others = table.options
    .filter((o) => o !== spec)
    .flatMap((o) => o.names.filter((n) => isLong(n, syntax)).map(bare));
  const full = bare(name);
  for (let length = 1; length < full.length; length++) {
    const prefix = full.slice(0, length);
    if (!others.some((n) => n.startsWith(prefix))) return length;
  }
  // The full name always resolves to itself, even when it is a prefix of another option's name.
  return full.length;
}

/** Flags (no value, not refused) a cluster may start with. */
function clusterFlags(table: CommandSpec, syntax: Syntax): string[] {
  return table.options
    .filter((o) => !o.value && !o.refused)
    .flatMap((o) => o.names.filter((n) => isShort(n, syntax)).map((n) => n.slice(1)));
}

function spellName(random: Random, syntax: Syntax, name: string, length: number): string {
  const dashes = name.startsWith('--') ? '--' : '-';
  let body = bare(name).slice(0, length);
  if (syntax.underscoreAsDash) body = body.replace(/-/g, () => (random.bool() ? '_' : '-'));
  if (syntax.caseInsensitive) body = [...body].map((c) => (random.bool() ? c.toUpperCase() : c)).join('');
  if (syntax.singleDashLong) return `${random.bool() ? '--' : '-'}${body}`;
  return `${dashes}${body}`;
}

/**
 * One random spelling of `spec` with `value` (undefined for a flag): long (abbreviated where the tool allows,
 * `=value` or a separate value) or short (in a cluster after other flags, value attached or next).
 */
function spell(
  random: Random,
  table: CommandSpec,
  syntax: Syntax,
  spec: OptionSpec,
  value: string | undefined,
  /** Cluster it after other flags. */
  pad = true,
): string[] {
  const longs = spec.names.filter((n) => isLong(n, syntax));
  const shorts = spec.names.filter((n) => isShort(n, syntax));
  const useShort = shorts.length > 0 && (longs.length === 0 || random.bool());
  if (!useShort) {
    const name = random.pick(longs.length > 0 ? longs : spec.names);
    const min = isLong(name, syntax) ? minimalPrefix(table, syntax, spec, name) : bare(name).length;
    const written = isLong(name, syntax)
      ? spellName(random, syntax, name, random.int(min, bare(name).length))
      : name;
    if (value === undefined) return [written];
    if (spec.optionalValue || random.bool()) return [`${written}=${value}`];
    return [written, value];
  }
  const letter = random.pick(shorts).slice(1);
  const flags = syntax.clusters && pad ? clusterFlags(table, syntax).filter((f) => f !== letter) : [];
  const prefix = Array.from({ length: flags.length > 0 ? random.int(0, 3) : 0 }, () =>
    random.pick(flags),
  ).join('');
  if (value === undefined) return [`-${prefix}${letter}`];
  if (spec.optionalValue || (syntax.clusters && random.bool())) return [`-${prefix}${letter}${value}`];
  return [`-${prefix}${letter}`, value];
}

/** Refused options of real tables, each with the rule its refusal must name. */
const REFUSED: ReadonlyArray<readonly [path: readonly string[], option: string, rule: string]> = [
  [['tar'], '--use-compress-program', 'runs-command-option'],
  [['tar'], '--to-command', 'runs-command-option'],
  [['tar'], '--checkpoint-action', 'runs-command-option'],
  [['tar'], '--info-script', 'runs-command-option'],
  [['tar'], '--rsh-command', 'runs-command-option'],
  [['tar'], '--absolute-names', 'path-outside-roots'],
  [['tar'], '--dereference', 'path-outside-roots'],
  [['make'], '--eval', 'make-eval'],
  [['sort'], '--compress-program', 'runs-command-option'],
  [['grep'], '--dereference-recursive', 'path-outside-roots'],
  [['ls'], '--dereference', 'path-outside-roots'],
  [['git'], '-c', 'config-override'],
  [['git'], '--config-env', 'config-override'],
  [['git'], '--exec-path', 'runs-command-option'],
  [['git', 'fetch'], '--upload-pack', 'runs-command-option'],
  [['git', 'clone'], '--upload-pack', 'runs-command-option'],
  [['git', 'clone'], '--config', 'config-override'],
  [['git', 'push'], '--receive-pack', 'runs-command-option'],
  [['git', 'rebase'], '--exec', 'runs-command-option'],
  [['git', 'rebase'], '--interactive', 'runs-command-option'],
  [['git', 'grep'], '--open-files-in-pager', 'runs-command-option'],
  [['git', 'log'], '--ext-diff', 'runs-command-option'],
  [['git', 'log'], '--textconv', 'runs-command-option'],
  [['git', 'diff'], '--no-index', 'path-outside-roots'],
  [['git', 'apply'], '--unsafe-paths', 'path-outside-roots'],
  [['git', 'config'], '--add', 'config-write'],
  [['git', 'config'], '--edit', 'config-write'],
  [['node'], '--eval', 'interpreter-eval'],
  [['node'], '--print', 'interpreter-eval'],
  [['node'], '--require', 'interpreter-preload'],
  [['node'], '--import', 'interpreter-preload'],
  [['node'], '--experimental-loader', 'interpreter-preload'],
  [['node'], '--env-file', 'interpreter-preload'],
  [['node'], '--inspect', 'interpreter-eval'],
  [['node'], '--entry-url', 'interpreter-eval'],
  [['npm'], '--script-shell', 'runs-command-option'],
  [['npm'], '--node-options', 'interpreter-preload'],
  [['npm'], '--userconfig', 'config-override'],
  [['npm'], '--global', 'path-outside-roots'],
  [['cargo'], '--config', 'config-override'],
  [['cargo', 'test'], '--config', 'config-override'],
  [['go', 'build'], '-toolexec', 'runs-command-option'],
  [['go', 'test'], '-exec', 'runs-command-option'],
  [['go', 'env'], '-w', 'config-write'],
  [['python3'], '-c', 'interpreter-eval'],
  [['python3'], '-i', 'interpreter-stdin'],
  [['pytest'], '--override-ini', 'config-override'],
  [['mawk'], '--source', 'interpreter-eval'],
  [['gawk'], '--load', 'interpreter-preload'],
  [['bash'], '-c', 'interpreter-eval'],
  [['bash'], '--rcfile', 'interpreter-preload'],
  [['perl'], '-e', 'interpreter-eval'],
  [['helm', 'template'], '--post-renderer', 'runs-command-option'],
];

describe('option parser properties (seeded)', () => {
  it(`keeps every refused option refused with its rule, across ${CASES_PER_PROPERTY} random spellings each`, () => {
    for (const [path, name, rule] of REFUSED) {
      const { table, syntax } = tableAt(path);
      const spec = table.options.find((o) => o.names.includes(name));
      assert.ok(spec?.refused, `${path.join(' ')} ${name} is a refused option`);
      const random = new Random(0x5eed ^ name.length ^ (path.join('').length * 7919));
      for (let i = 0; i < CASES_PER_PROPERTY; i++) {
        const value = spec.value ? random.pick(['x', '-y', 'exec=id', 'a=b', '']) : undefined;
        const words = spell(random, table, syntax, spec, value === '' && !spec.optionalValue ? 'v' : value);
        // Allowed flags around it, where the tool would still read the refused one as an option.
        const flags = clusterFlags(table, syntax).map((f) => `-${f}`);
        const before = flags.length > 0 && random.bool() ? [random.pick(flags)] : [];
        const argv = [...before, ...words];
        const error = refusalOf(path, argv);
        assert.ok(error, `${path.join(' ')} ${JSON.stringify(argv)} was allowed`);
        assert.equal(error.rule, rule, `${path.join(' ')} ${JSON.stringify(argv)}: ${error.describe()}`);
      }
    }
  });

  it('refuses refused letters inside old-style tar clusters, wherever they sit', () => {
    const random = new Random(0x7a2);
    const letters = ['c', 'x', 't', 'v', 'z', 'j', 'J', 'k', 'O', 'p'];
    for (let i = 0; i < CASES_PER_PROPERTY; i++) {
      const refusedLetter = random.pick(['I', 'F', 'P', 'h', 'M']);
      const chosen = random.subset(letters);
      chosen.splice(random.int(0, chosen.length), 0, refusedLetter);
      if (random.bool()) chosen.splice(random.int(0, chosen.length), 0, 'f');
      const words = [chosen.join(''), 'a.tar', 'prog', 'dir'];
      const error = refusalOf(['tar'], words);
      assert.ok(error, `tar ${JSON.stringify(words)} was allowed`);
      assert.match(error.rule!, /^(runs-command-option|path-outside-roots)$/, error.describe());
    }
  });

  /** Allowed options of tables under test, with a value each can take. */
  const POSITIVE: ReadonlyArray<readonly [path: readonly string[], operands: readonly string[]]> = [
    [['make'], ['all']],
    [['tar'], ['sub']],
    [['grep'], ['-e', 'x', 'sub']],
    [['git', 'log'], []],
    [['git', 'commit'], []],
    [['npm', 'test'], []],
    [['cargo', 'test'], []],
    [['node'], ['--test']],
    [['python3'], ['s.py']],
    [['go', 'test'], ['./...']],
    [['tsc'], []],
    [['pytest'], []],
  ];

  function sampleValue(random: Random, spec: OptionSpec): string | undefined {
    const value = spec.value;
    if (!value) return undefined;
    switch (value.kind) {
      case 'text':
        return random.pick(['v', 'a b', '-dash', 'x=y']);
      case 'number':
        return String(random.int(0, 99));
      case 'choice':
        return random.pick(value.choices);
      case 'path':
      case 'pathspec':
        return random.pick(['sub', 'sub/new-file', '.']);
      default:
        return undefined;
    }
  }

  it('means the same options whatever the spelling, and the emitted argv approves to itself', () => {
    const random = new Random(0xca11);
    for (const [path, operands] of POSITIVE) {
      const { table, syntax } = tableAt(path);
      const usable = table.options.filter(
        (o) =>
          !o.refused &&
          !o.selects &&
          !o.endsOptions &&
          !o.changesDirectory &&
          (!o.value || sampleValue(random, o) !== undefined),
      );
      for (let i = 0; i < CASES_PER_PROPERTY / 4; i++) {
        const chosen = Array.from({ length: random.int(1, 4) }, () => random.pick(usable));
        const values = chosen.map((o) => sampleValue(random, o));
        const full = chosen.flatMap((o, k) => {
          const name = o.names.find((n) => isLong(n, syntax)) ?? o.names[0]!;
          const v = values[k];
          if (v === undefined) return [name];
          if (!isLong(name, syntax)) return o.optionalValue ? [`${name}${v}`] : [name, v];
          return syntax.emit.long === 'equals' || o.optionalValue ? [`${name}=${v}`] : [name, v];
        });
        const spelled = chosen.flatMap((o, k) => spell(random, table, syntax, o, values[k], false));
        const expected = parse(path, [...full, ...operands]);
        const got = parse(path, [...spelled, ...operands]);
        assert.deepEqual(got.options, expected.options, `${path.join(' ')} ${JSON.stringify(spelled)}`);
        const again = parse([path[0]!], got.argv);
        assert.deepEqual(again.argv, got.argv, `${path.join(' ')}: emitted ${JSON.stringify(got.argv)}`);
        assert.deepEqual(again.options, got.options);
      }
    }
  });
});
