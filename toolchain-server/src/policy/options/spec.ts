/**
 * The vocabulary of the positive argv policy: what a command's table says (its subcommands, options and
 * positional arguments, and what each value is), and how a tool spells its options (its `Syntax`). Tables
 * under `policy/argv/` are written in these terms and never parse; `parse.ts` is the one parser.
 */

import type { PolicyRule } from '../../errors.ts';

/** A refusal a table states: the rule id the denial names, and why. */
export interface Refusal {
  readonly rule: PolicyRule;
  readonly why: string;
  /** What to do instead, when the table knows better than its list of allowed options. */
  readonly instead?: string;
}

/**
 * What a value is, which decides how it is checked:
 * - `text`: free text (a test filter, a commit message); `number`: digits;
 * - `choice` / `pattern`: one of fixed words, or a regular expression (a lint name, a `-W` filter);
 * - `path`: a filesystem path that must resolve, symlinks followed, inside the workspace roots; a missing
 *   path is checked through its nearest existing ancestor, so outputs that do not exist yet are confined too;
 * - `pathspec`: a word that is a path only when it looks like one (absolute, with a `..` segment, or existing),
 *   such as a git revision-or-path or a helm chart-or-reference; when it is a path it is confined like `path`;
 * - `custom`: a check of its own, returning a refusal or undefined.
 */
export type ValueSpec =
  | { readonly kind: 'text'; readonly describe?: string }
  | { readonly kind: 'number' }
  | { readonly kind: 'choice'; readonly choices: readonly string[] }
  | {
      readonly kind: 'pattern';
      readonly pattern: RegExp;
      readonly describe: string;
      /** The rule a mismatch names; default `option-value`. */
      readonly refusal?: Refusal;
    }
  | {
      readonly kind: 'path' | 'pathspec';
      /** `-` means stdin or stdout rather than a file. */
      readonly stdio?: boolean;
      /** Part of the word that is not a path, e.g. pytest's `::test_name`. */
      readonly strip?: RegExp;
      readonly describe?: string;
    }
  | {
      readonly kind: 'custom';
      readonly describe: string;
      /** `upward`: inside from the cwd and from each of its ancestors within the roots (git's worktree top). */
      readonly check: (value: string, paths: PathCheck, upward: PathCheck) => Refusal | undefined;
    };

/** Path confinement as a custom value check sees it: true when the word resolves inside the roots. */
export type PathCheck = (value: string) => boolean;

export interface OptionSpec {
  /** Spellings with their dashes (`-C`, `--directory`, `-run` for Go). The first is the canonical one. */
  readonly names: readonly string[];
  /** The option's value; absent for a flag. */
  readonly value?: ValueSpec;
  /** getopt's optional argument: a value only when attached (`-j4`) or after `=` (`--jobs=4`). */
  readonly optionalValue?: boolean;
  /** GNU make's `-j 4`: an optional value that may also be the next word when that word is a number. */
  readonly optionalValueNextNumber?: boolean;
  /** Relative paths are also resolved from this option's value (make -C, git -C, tar -C). */
  readonly changesDirectory?: boolean;
  /** Everything after this option (and its value) is the program's, not the tool's (go test -args). */
  readonly endsOptions?: boolean;
  /** The value selects the table for the rest of argv (python -m <module>). */
  readonly selects?: Readonly<Record<string, CommandSpec>>;
  /** Known to the tool but refused: named so that abbreviations of it are recognised and explained. */
  readonly refused?: Refusal;
  /**
   * The tool prints information and exits without running anything (`--version`, `--help`), so a minimum
   * number of positional arguments (an interpreter's script) does not apply when it is given.
   */
  readonly printsAndExits?: boolean;
}

/** Positional arguments: by position, then `rest` for any further ones. */
export interface Positionals {
  readonly each?: readonly ValueSpec[];
  readonly rest?: ValueSpec;
  /** Fewer than this many is refused with `missing`. */
  readonly min?: number;
  readonly missing?: Refusal;
  /** The refusal for one operand too many (default: `positional-not-allowed`). */
  readonly extra?: Refusal;
}

/** An option the tool must be given (sed --sandbox), with the refusal when it is not. */
export interface Requirement {
  /** Canonical name of the required option. */
  readonly option: string;
  readonly refusal: Refusal;
}

export interface CommandSpec {
  /** As shown in messages: `git`, `git log`, `python -m pytest`. */
  readonly name: string;
  /** How the tool spells options; a subcommand inherits its parent's unless it names its own. */
  readonly syntax?: Syntax;
  readonly options: readonly OptionSpec[];
  /** Positional arguments, or a function of the options given (sed: the script is a positional without -e). */
  readonly positionals?: Positionals | ((given: ReadonlySet<string>) => Positionals);
  /** The first positional names a subcommand; a refusal says why that one is not allowed. */
  readonly subcommands?: Readonly<Record<string, CommandSpec | Refusal>>;
  /** How the tool turns a written subcommand into one of `subcommands` (aliases, abbreviations). */
  readonly resolveSubcommand?: (word: string) => string | undefined;
  /**
   * The first operand names a program the tool runs, and that program's own table reads the rest of argv
   * (`uv run pytest -x`): its table, and whether the word is the program's name (`pytest`, passed on as written)
   * or already its first operand (`uv run tests/check.py`: the script table's first positional); or a refusal.
   * `given` holds the options seen before it (`uv run -m pytest`: a module, not a command).
   */
  readonly commandOperand?: (word: string, given: ReadonlySet<string>) => CommandTarget | Refusal;
  /** After `--`, what the remaining words are (default: more positionals of this table). */
  readonly afterDoubleDash?: ValueSpec | Refusal;
  readonly requires?: readonly Requirement[];
  /** Positionals must all come before the first option (find's starting points). */
  readonly positionalsFirst?: boolean;
  /**
   * `-N` means this option with the value N (`head -5` is `head -n 5`, `git log -1` is `git log -n 1`): the
   * canonical name of the option. Re-emitted in that option's full spelling.
   */
  readonly numericShorthand?: string;
  /**
   * Words the server puts in front of the approved argv, whatever the caller wrote (`sed --sandbox`): first,
   * so that no option order or POSIXLY_CORRECT can put a script before them. A function of the options given.
   */
  readonly prepend?: readonly string[] | ((given: ReadonlySet<string>) => readonly string[]);
  /**
   * A check of the operands together, for a tool where one operand says how another is read (`ln -s TARGET
   * LINK`: the target is resolved from the link's directory). Runs with the path checks.
   */
  readonly checkOperands?: (
    operands: readonly string[],
    given: ReadonlySet<string>,
    fs: OperandPaths,
  ) => Refusal | undefined;
}

/** The table a command operand hands the rest of argv to (`commandOperand`). */
export interface CommandTarget {
  readonly table: CommandSpec;
  /** The word is the target's first operand (a script path), not its name. */
  readonly operand?: boolean;
}

/** What `checkOperands` may ask of the filesystem; `base` is relative to the working directory. */
export interface OperandPaths {
  /** True when `path`, relative to `base`, resolves inside the workspace roots. */
  inside(path: string, base?: string): boolean;
  /** True when `path`, relative to the working directory, is an existing directory (symlinks followed). */
  isDirectory(path: string): boolean;
}

/** How a tool spells and orders its options. */
export interface Syntax {
  readonly name: string;
  /** `-abc` is `-a -b -c`, and a value-taking letter takes the rest of the word (getopt, clap, git). */
  readonly clusters: boolean;
  /** Long options may be written with one dash (Go's flag package, find's primaries). */
  readonly singleDashLong?: boolean;
  /** Unique prefixes of long names are accepted (getopt_long, argp, git parse-options, nopt, optparse). */
  readonly abbreviations: boolean;
  /**
   * Where options may appear: `anywhere` (permuted), `first` (up to the first positional, as Python, Node,
   * Go, git's global options), `gnu` (anywhere unless POSIXLY_CORRECT is set in the child environment).
   */
  readonly permute: 'anywhere' | 'first' | 'gnu';
  /** Node reads `--a_b` as `--a-b`. */
  readonly underscoreAsDash?: boolean;
  /** tsc: option names are case-insensitive. */
  readonly caseInsensitive?: boolean;
  /** nopt (npm), tsc: a flag followed by the word `true` or `false` takes it as its value. */
  readonly booleanWords?: boolean;
  /** Go's flag package: a flag may carry `=true` / `=false`. */
  readonly flagEqualsBoolean?: boolean;
  /** An argument `@file` expands to the file's arguments (rustc, tsc): refused, the file is not checked. */
  readonly responseFiles?: boolean;
  /** GNU tar: a first argument without a dash is a cluster of option letters whose values follow it. */
  readonly oldStyleLetters?: boolean;
  /** echo: a word that is not one of its options is printed, not refused. */
  readonly unknownOptionsArePositional?: boolean;
  /** Words that are operators, not options or operands (find's `(`, `)`, `!`, `,`). */
  readonly operators?: readonly string[];
  /** How re-emitted options are spelled: `--name=value` or `--name value`, `-xvalue` or `-x value`. */
  readonly emit: { readonly long: 'equals' | 'separate'; readonly short: 'attached' | 'separate' };
}
