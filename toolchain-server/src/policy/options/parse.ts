/**
 * The one option parser of the argv policy. It reads argv the way the tool's own parser does — as the
 * table's `Syntax` describes it: clusters of short options with attached values, getopt_long's unique-prefix
 * abbreviations (and ambiguous prefixes), `--opt=value` and `--opt value`, `--`, old-style tar letters,
 * option permutation and its POSIXLY_CORRECT switch, value-taking options that consume the next word, Node's
 * underscore spellings — and accepts only what the table lists.
 *
 * It returns the argv to run: every option the caller abbreviated, clustered, wrote in old-style letters or
 * with underscores is re-emitted in its full spelling, so the tool receives exactly the options the policy
 * approved, and every value exactly as it was checked.
 */
import { type PolicyRule, ToolError } from '../../errors.ts';
import { describeAllowed, describeOption } from './describe.ts';
import type { CommandSpec, OptionSpec, Positionals, Refusal, Syntax, ValueSpec } from './spec.ts';

export interface ParseOptions {
  /** POSIXLY_CORRECT is set in the child's environment: getopt stops at the first operand. */
  readonly posixlyCorrect: boolean;
}

/** A value the caller supplied, with what the table says it is; paths are checked once parsing is done. */
export interface ParsedValue {
  readonly value: string;
  readonly spec: ValueSpec;
  /** How a refusal names it: "`make -C`", "argument 2 of `git diff`". */
  readonly what: string;
  readonly table: CommandSpec;
}

export interface ParsedCommand {
  /** The argv to run (without the command name). */
  readonly argv: string[];
  /** Option values and positionals whose checks need the filesystem (paths, custom checks). */
  readonly deferred: ParsedValue[];
  /** Values of options that change the directory relative paths are resolved from. */
  readonly directories: string[];
  /** The tables argv went through: the command, then each subcommand or selected module. */
  readonly tables: CommandSpec[];
  /** The options recognised, in order, by their full spelling: what the tool will act on. */
  readonly options: Array<{ readonly table: string; readonly option: string; readonly value?: string }>;
  /** Each table's operands with the options given, for tables that check their operands together. */
  readonly operands: ReadonlyArray<{
    readonly table: CommandSpec;
    readonly values: readonly string[];
    readonly given: ReadonlySet<string>;
  }>;
}

export function refuse(rule: PolicyRule, message: string, allowed: string): never {
  throw new ToolError('TOOLYARD_POLICY_DENIED', message, { rule, allowed });
}

function refuseWith(refusal: Refusal, fallbackAllowed: string): never {
  refuse(refusal.rule, refusal.why, refusal.instead ?? fallbackAllowed);
}

interface Level {
  readonly table: CommandSpec;
  readonly syntax: Syntax;
  readonly given: Set<string>;
  readonly positionals: Array<{ value: string; afterDoubleDash: boolean }>;
  /** Whether an option or operator has been seen (find: operands must come first). */
  sawOption: boolean;
  /** Whether the table's subcommand has been chosen (or it has none). */
  subcommandChosen: boolean;
  /** An option handed the rest of argv to another table (python -m): its operands belong there. */
  handedOff: boolean;
  /** An option that prints and exits (`--version`) was given: positional minimums do not apply. */
  informational: boolean;
}

type NameIndex = ReadonlyArray<readonly [name: string, spec: OptionSpec]>;
const longIndexCache = new WeakMap<CommandSpec, Map<string, NameIndex>>();

function normalise(name: string, syntax: Syntax): string {
  let n = name;
  if (syntax.underscoreAsDash) n = n.replaceAll('_', '-');
  if (syntax.caseInsensitive) n = n.toLowerCase();
  return n;
}

/** Long names of a table (without dashes, normalised), for exact and unique-prefix lookup. */
function longIndex(table: CommandSpec, syntax: Syntax): NameIndex {
  let bySyntax = longIndexCache.get(table);
  if (!bySyntax) {
    bySyntax = new Map();
    longIndexCache.set(table, bySyntax);
  }
  let index = bySyntax.get(syntax.name);
  if (!index) {
    const entries: Array<readonly [string, OptionSpec]> = [];
    for (const spec of table.options)
      for (const name of spec.names) {
        const isLong = name.startsWith('--') || (syntax.singleDashLong === true && name.startsWith('-'));
        if (isLong) entries.push([normalise(name.replace(/^--?/, ''), syntax), spec]);
      }
    index = entries;
    bySyntax.set(syntax.name, index);
  }
  return index;
}

function findLong(
  table: CommandSpec,
  syntax: Syntax,
  written: string,
  shown: string,
): OptionSpec | undefined {
  const index = longIndex(table, syntax);
  const name = normalise(written, syntax);
  const exact = index.find(([n]) => n === name);
  if (exact) return exact[1];
  if (!syntax.abbreviations || name === '') return undefined;
  const matches = [...new Set(index.filter(([n]) => n.startsWith(name)).map(([, spec]) => spec))];
  if (matches.length === 1) return matches[0];
  if (matches.length > 1)
    refuse(
      'option-ambiguous',
      `\`${table.name} ${shown}\` is ambiguous: it abbreviates ${matches.map((m) => m.names[0]).join(', ')}.`,
      'write the option in full',
    );
  return undefined;
}

function findShort(table: CommandSpec, letter: string): OptionSpec | undefined {
  return table.options.find((spec) => spec.names.includes(`-${letter}`));
}

const BOOLEAN_WORDS = new Set(['true', 'false']);
const GO_BOOLEANS = new Set([
  '1',
  '0',
  't',
  'f',
  'T',
  'F',
  'true',
  'false',
  'TRUE',
  'FALSE',
  'True',
  'False',
]);

/** Checks a value whose check needs no filesystem; returns false for paths and custom checks (deferred). */
function checkPlainValue(spec: ValueSpec, value: string, what: string): boolean {
  switch (spec.kind) {
    case 'text':
      return true;
    case 'number':
      if (!/^\d+$/.test(value))
        refuse('option-value', `${what} takes a number, not ${JSON.stringify(value)}.`, 'a number');
      return true;
    case 'choice':
      if (!spec.choices.includes(value))
        refuse(
          'option-value',
          `${what} takes one of ${spec.choices.join(', ')}, not ${JSON.stringify(value)}.`,
          spec.choices.join(', '),
        );
      return true;
    case 'pattern':
      if (!spec.pattern.test(value)) {
        if (spec.refusal) refuseWith(spec.refusal, spec.describe);
        refuse(
          'option-value',
          `${what} takes ${spec.describe}, not ${JSON.stringify(value)}.`,
          spec.describe,
        );
      }
      return true;
    default:
      return false;
  }
}

/** The full spelling an option is re-emitted in: its first long name, else its first name. */
function canonicalName(spec: OptionSpec): string {
  return spec.names.find((n) => n.startsWith('--')) ?? spec.names[0]!;
}

function emitOption(
  spec: OptionSpec,
  syntax: Syntax,
  value: string | undefined,
  boolWord?: string,
): string[] {
  const name = canonicalName(spec);
  const long = name.startsWith('--') || (syntax.singleDashLong === true && name.length > 2);
  if (value === undefined) {
    if (boolWord === undefined) return [name];
    return syntax.emit.long === 'equals' ? [`${name}=${boolWord}`] : [name, boolWord];
  }
  if (long || syntax.singleDashLong) {
    if (syntax.emit.long === 'equals' || spec.optionalValue) return [`${name}=${value}`];
    return [name, value];
  }
  // An empty value must not be attached: `-f` alone would take the next word.
  if (spec.optionalValue) return [`${name}${value}`];
  if (syntax.emit.short === 'attached' && value !== '') return [`${name}${value}`];
  return [name, value];
}

class Parser {
  private readonly args: readonly string[];
  private readonly options: ParseOptions;
  private readonly out: string[] = [];
  private readonly deferred: ParsedValue[] = [];
  private readonly directories: string[] = [];
  private readonly levels: Level[] = [];
  private readonly recognised: ParsedCommand['options'] = [];
  private i = 0;
  /** After `--`, a stop at the first operand, or an option that ends options. */
  private optionsDone = false;
  private afterDoubleDash = false;

  constructor(root: CommandSpec, args: readonly string[], options: ParseOptions) {
    this.args = args;
    this.options = options;
    this.enter(root, root.syntax);
  }

  private get level(): Level {
    return this.levels[this.levels.length - 1]!;
  }

  private enter(table: CommandSpec, inherited: Syntax | undefined): void {
    const syntax = table.syntax ?? inherited;
    if (!syntax) throw new Error(`argv table ${table.name} has no syntax`);
    this.levels.push({
      table,
      syntax,
      given: new Set(),
      positionals: [],
      sawOption: false,
      subcommandChosen: table.subcommands === undefined && table.commandOperand === undefined,
      handedOff: false,
      informational: false,
    });
    this.optionsDone = false;
    this.afterDoubleDash = false;
  }

  private stopsAtFirstOperand(syntax: Syntax): boolean {
    return syntax.permute === 'first' || (syntax.permute === 'gnu' && this.options.posixlyCorrect);
  }

  run(): ParsedCommand {
    if (this.level.syntax.oldStyleLetters && this.args[0] !== undefined && !this.args[0].startsWith('-'))
      this.oldStyleLetters();
    while (this.i < this.args.length) {
      const word = this.args[this.i]!;
      const { syntax } = this.level;
      if (!this.optionsDone) {
        if (word === '--') {
          this.out.push(word);
          this.i++;
          this.optionsDone = true;
          this.afterDoubleDash = true;
          continue;
        }
        if (syntax.operators?.includes(word)) {
          this.out.push(word);
          this.level.sawOption = true;
          this.i++;
          continue;
        }
        if (syntax.responseFiles && word.startsWith('@'))
          refuse(
            'response-file',
            `\`${this.level.table.name} ${word}\` reads more arguments from a file, which the policy cannot see.`,
            'pass the arguments directly',
          );
        if (word.length > 1 && word.startsWith('-') && this.option(word)) continue;
      }
      this.operand(word);
    }
    return this.finish();
  }

  /** GNU tar: `tar cfz a.tgz dir` — letters of the first word, values taken from the words after it. */
  private oldStyleLetters(): void {
    const { table, syntax } = this.level;
    const letters = this.args[0]!;
    this.i = 1;
    for (const letter of letters) {
      const spec = findShort(table, letter);
      if (!spec)
        refuse(
          'option-not-allowed',
          `\`${table.name} ${letters}\`: the old-style letter ${letter} (-${letter}) is not allowed.`,
          describeAllowed(table, 'options'),
        );
      if (spec.refused) refuseWith(spec.refused, describeAllowed(table, 'options'));
      let value: string | undefined;
      if (spec.value && !spec.optionalValue) {
        value = this.args[this.i++];
        if (value === undefined)
          refuse(
            'option-value',
            `\`${table.name} ${letters}\`: -${letter} needs a value.`,
            describeOption(spec),
          );
      }
      this.accept(spec, value, emitOption(spec, syntax, value));
    }
  }

  /** Parses the option word at `i`; returns false when the word is an operand after all (echo). */
  private option(word: string): boolean {
    const { table, syntax } = this.level;
    // A listed multi-letter short name (npm's `-ws`) is matched as a whole before any clustering.
    const whole = word.includes('=') ? undefined : table.options.find((spec) => spec.names.includes(word));
    if (whole) return this.longOption(word, whole);
    if (table.numericShorthand && /^-\d+$/.test(word))
      return this.numericShorthand(word, table.numericShorthand);
    if (word.startsWith('--') || syntax.singleDashLong) return this.longOption(word);
    if (!syntax.clusters) {
      if (syntax.unknownOptionsArePositional) return false;
      refuse(
        'option-not-allowed',
        `\`${table.name} ${word}\` is not an allowed option.`,
        describeAllowed(table, 'options'),
      );
    }
    return this.shortCluster(word);
  }

  private longOption(word: string, listed?: OptionSpec): boolean {
    const { table, syntax } = this.level;
    const body = word.replace(/^--?/, '');
    const eq = listed ? -1 : body.indexOf('=');
    const written = eq >= 0 ? body.slice(0, eq) : body;
    const attached = eq >= 0 ? body.slice(eq + 1) : undefined;
    const spec = listed ?? findLong(table, syntax, written, word);
    if (!spec) {
      if (syntax.unknownOptionsArePositional) return false;
      refuse(
        'option-not-allowed',
        `\`${table.name} ${eq >= 0 ? word.slice(0, word.indexOf('=')) : word}\` is not an allowed option.`,
        describeAllowed(table, 'options'),
      );
    }
    const shown = `\`${table.name} ${spec.names[0]}\``;
    if (spec.refused) refuseWith(spec.refused, describeAllowed(table, 'options'));
    const start = this.i;
    this.i++;
    let value: string | undefined;
    let boolWord: string | undefined;
    if (!spec.value) {
      if (attached !== undefined) {
        if (!(syntax.flagEqualsBoolean && GO_BOOLEANS.has(attached)))
          refuse('option-value', `${shown} takes no value.`, describeOption(spec));
        boolWord = attached;
      } else if (syntax.booleanWords && BOOLEAN_WORDS.has(this.args[this.i] ?? '')) {
        boolWord = this.args[this.i++];
      }
    } else if (attached !== undefined) {
      value = attached;
    } else if (spec.optionalValue) {
      if (spec.optionalValueNextNumber && /^\d+$/.test(this.args[this.i] ?? '')) value = this.args[this.i++];
    } else {
      value = this.args[this.i++];
      if (value === undefined) refuse('option-value', `${shown} needs a value.`, describeOption(spec));
    }
    // Written exactly as listed: the tool reads the same words; otherwise the full spelling is emitted.
    const words = isExactSpelling(spec, word)
      ? this.args.slice(start, this.i)
      : emitOption(spec, syntax, value, boolWord);
    this.accept(spec, value, words);
    return true;
  }

  /** `head -5`: the table's shorthand option with the number as its value, re-emitted in full. */
  private numericShorthand(word: string, option: string): boolean {
    const { table, syntax } = this.level;
    const spec = table.options.find((o) => o.names[0] === option);
    if (!spec?.value)
      throw new Error(`argv table ${table.name}: numericShorthand ${option} is not a valued option`);
    this.i++;
    const value = word.slice(1);
    this.accept(spec, value, emitOption(spec, syntax, value));
    return true;
  }

  private shortCluster(word: string): boolean {
    const { table, syntax } = this.level;
    const letters = word.slice(1);
    // GNU echo prints a word unless every letter is one of its options.
    if (syntax.unknownOptionsArePositional && [...letters].some((l) => !findShort(table, l))) return false;
    const start = this.i;
    this.i++;
    const parsed: Array<{ spec: OptionSpec; value: string | undefined }> = [];
    for (let j = 0; j < letters.length; j++) {
      const letter = letters[j]!;
      const spec = findShort(table, letter);
      if (!spec)
        refuse(
          'option-not-allowed',
          letters.length > 1
            ? `\`${table.name} ${word}\`: -${letter} is not an allowed option.`
            : `\`${table.name} -${letter}\` is not an allowed option.`,
          describeAllowed(table, 'options'),
        );
      if (spec.refused) refuseWith(spec.refused, describeAllowed(table, 'options'));
      if (!spec.value) {
        parsed.push({ spec, value: undefined });
        continue;
      }
      const rest = letters.slice(j + 1);
      let value: string | undefined;
      if (rest !== '') value = rest;
      else if (spec.optionalValue) {
        if (spec.optionalValueNextNumber && /^\d+$/.test(this.args[this.i] ?? ''))
          value = this.args[this.i++];
      } else {
        value = this.args[this.i++];
        if (value === undefined)
          refuse('option-value', `\`${table.name} -${letter}\` needs a value.`, describeOption(spec));
      }
      parsed.push({ spec, value });
      break;
    }
    const standalone = parsed.length === 1;
    for (const { spec, value } of parsed)
      this.accept(spec, value, standalone ? this.args.slice(start, this.i) : emitOption(spec, syntax, value));
    return true;
  }

  private accept(spec: OptionSpec, value: string | undefined, words: readonly string[]): void {
    const level = this.level;
    level.sawOption = true;
    level.given.add(spec.names[0]!);
    if (spec.printsAndExits) level.informational = true;
    this.recognised.push(
      value === undefined
        ? { table: level.table.name, option: canonicalName(spec) }
        : { table: level.table.name, option: canonicalName(spec), value },
    );
    this.out.push(...words);
    if (value !== undefined && spec.value) {
      const what = `\`${level.table.name} ${spec.names[0]}\``;
      if (!checkPlainValue(spec.value, value, what))
        this.deferred.push({ value, spec: spec.value, what, table: level.table });
      if (spec.changesDirectory) this.directories.push(value);
    }
    if (spec.selects && value !== undefined) {
      const next = spec.selects[value];
      if (!next)
        throw new Error(`argv table ${level.table.name}: ${spec.names[0]} ${value} selects no table`);
      level.handedOff = true;
      this.enter(next, level.syntax);
      return;
    }
    if (spec.endsOptions) {
      this.optionsDone = true;
      this.afterDoubleDash = true;
    }
  }

  private operand(word: string): void {
    const level = this.level;
    const { table } = level;
    if (!level.subcommandChosen && table.commandOperand) {
      const target = table.commandOperand(word, level.given);
      if (!('table' in target)) refuseWith(target, describeAllowed(table, 'options'));
      level.subcommandChosen = true;
      level.handedOff = true;
      // The program's name is passed on as written; a script path is re-read as the target's first operand.
      if (!target.operand) {
        this.out.push(word);
        this.i++;
      }
      this.enter(target.table, level.syntax);
      return;
    }
    if (!level.subcommandChosen) {
      const name = table.resolveSubcommand?.(word) ?? word;
      const sub = table.subcommands?.[name];
      if (sub === undefined)
        refuse(
          'subcommand-not-allowed',
          `\`${table.name} ${word}\` is not an allowed subcommand.`,
          describeAllowed(table, 'subcommands'),
        );
      if (!('options' in sub)) refuseWith(sub, describeAllowed(table, 'subcommands'));
      level.subcommandChosen = true;
      // The tool receives the subcommand it resolved, written out in full.
      this.out.push(name);
      this.i++;
      this.enter(sub, level.syntax);
      return;
    }
    if (table.positionalsFirst && level.sawOption && !this.afterDoubleDash)
      refuse(
        'positional-not-allowed',
        `\`${table.name}\`: ${JSON.stringify(word)} comes after the expression; operands go first.`,
        describeAllowed(table, 'options'),
      );
    level.positionals.push({ value: word, afterDoubleDash: this.afterDoubleDash });
    this.out.push(word);
    this.i++;
    if (this.stopsAtFirstOperand(level.syntax)) this.optionsDone = true;
  }

  private finish(): ParsedCommand {
    for (const level of this.levels) {
      const { table } = level;
      // A missing required option (sed --sandbox, awk -f) explains more than whatever operand it left over.
      for (const requirement of table.requires ?? [])
        if (!level.given.has(requirement.option)) refuseWith(requirement.refusal, describeAllowed(table));
      const positionals: Positionals =
        typeof table.positionals === 'function' ? table.positionals(level.given) : (table.positionals ?? {});
      level.positionals.forEach(({ value, afterDoubleDash }, index) => {
        let spec: ValueSpec | Refusal | undefined =
          afterDoubleDash && table.afterDoubleDash !== undefined
            ? table.afterDoubleDash
            : (positionals.each?.[index] ?? positionals.rest);
        if (spec === undefined && positionals.extra) refuseWith(positionals.extra, describeAllowed(table));
        if (spec === undefined)
          refuse(
            'positional-not-allowed',
            `\`${table.name}\` takes ${describeCount(positionals)}; ${JSON.stringify(value)} is one too many.`,
            describeAllowed(table),
          );
        if (!('kind' in spec)) refuseWith(spec, describeAllowed(table));
        spec = spec as ValueSpec;
        if (!afterDoubleDash && value.startsWith('-') && value !== '-' && spec.kind !== 'text')
          refuse(
            'positional-not-allowed',
            `\`${table.name}\`: ${JSON.stringify(value)} starts with "-" but is not an option here.`,
            `put operands that start with "-" after "--"; ${describeAllowed(table, 'options')}`,
          );
        const what = `argument ${JSON.stringify(value)} of \`${table.name}\``;
        if (!checkPlainValue(spec, value, what)) this.deferred.push({ value, spec, what, table });
      });
      if (
        !level.handedOff &&
        !level.informational &&
        positionals.min !== undefined &&
        level.positionals.length < positionals.min
      )
        refuseWith(
          positionals.missing ?? {
            rule: 'positional-not-allowed',
            why: `\`${table.name}\` needs ${describeCount(positionals)}.`,
          },
          describeAllowed(table),
        );
    }
    const root = this.levels[0]!;
    const prepend =
      typeof root.table.prepend === 'function' ? root.table.prepend(root.given) : (root.table.prepend ?? []);
    // Idempotent: an argv the policy approved already starts with them.
    const prefixed = prepend.every((word, i) => this.out[i] === word);
    return {
      argv: prefixed ? this.out : [...prepend, ...this.out],
      deferred: this.deferred,
      directories: this.directories,
      tables: this.levels.map((l) => l.table),
      options: this.recognised,
      operands: this.levels.map((l) => ({
        table: l.table,
        values: l.positionals.map((p) => p.value),
        given: l.given,
      })),
    };
  }
}

function describeCount(positionals: Positionals): string {
  const fixed = positionals.each?.length ?? 0;
  if (positionals.rest) {
    const least = Math.max(fixed, positionals.min ?? 0);
    if (least === 0) return 'any number of arguments';
    return least === 1 ? 'at least one argument' : `at least ${least} arguments`;
  }
  if (fixed === 0) return 'no arguments';
  return fixed === 1 ? 'one argument' : `at most ${fixed} arguments`;
}

/** The word spells the option's name exactly as listed (with or without `=value`). */
function isExactSpelling(spec: OptionSpec, word: string): boolean {
  const name = word.includes('=') ? word.slice(0, word.indexOf('=')) : word;
  return spec.names.includes(name);
}

export function parseCommand(
  root: CommandSpec,
  args: readonly string[],
  options: ParseOptions,
): ParsedCommand {
  return new Parser(root, args, options).run();
}
