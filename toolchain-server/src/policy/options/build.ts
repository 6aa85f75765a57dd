/** Small constructors the argv tables are written with, so that a table reads as a list of options. */
import type { PolicyRule } from '../../errors.ts';
import type { OptionSpec, Refusal, ValueSpec } from './spec.ts';

export const text: ValueSpec = { kind: 'text' };
export const number: ValueSpec = { kind: 'number' };
/** A filesystem path, confined to the workspace roots. */
export const path: ValueSpec = { kind: 'path' };
/** A path, or `-` for stdin/stdout. */
export const pathOrStdio: ValueSpec = { kind: 'path', stdio: true };
/** A revision, pattern or reference that is confined like a path whenever it looks like one. */
export const pathspec: ValueSpec = { kind: 'pathspec' };
/** Arguments that belong to the program being run (a script's argv, a test binary's flags). */
export const programArgs: ValueSpec = { kind: 'text', describe: "the program's own arguments" };

/**
 * Arguments a tool forwards to the test runner or script it starts (`go test -args`, `cargo test --`,
 * `npm test --`): that program writes where they say (`-test.cpuprofile=`, libtest's `--logfile`, node's
 * `--test-reporter-destination=`). A word that names a path — absolute, with `..`, from `~` or `$VAR/`, alone
 * or as `--option=value` — must lead inside the roots.
 */
export const forwardedArgs: Extract<ValueSpec, { kind: 'custom' }> = {
  kind: 'custom',
  describe: "the program's own arguments, paths among them inside the workspace roots",
  check(value, inside) {
    const eq = value.startsWith('-') ? value.indexOf('=') : -1;
    const word = eq > 0 ? value.slice(eq + 1) : value;
    const expands = /^~(\/|$)/.test(word) || /\$\{?\w+\}?\//.test(word);
    if (!expands && !word.startsWith('/') && !word.split('/').includes('..')) return undefined;
    if (!expands && inside(word)) return undefined;
    return refusal(
      'path-outside-roots',
      `${JSON.stringify(value)} names a path outside the workspace roots, which the program it is passed to would use.`,
      'paths inside the workspace roots, written out without ~ or $',
    );
  },
};

export function described(describe: string): ValueSpec {
  return { kind: 'text', describe };
}

export function choice(...choices: string[]): ValueSpec {
  return { kind: 'choice', choices };
}

export function matching(pattern: RegExp, describe: string, refusal?: Refusal): ValueSpec {
  return refusal ? { kind: 'pattern', pattern, describe, refusal } : { kind: 'pattern', pattern, describe };
}

function names(spelled: string | readonly string[]): readonly string[] {
  return typeof spelled === 'string' ? [spelled] : spelled;
}

/** An option without a value. */
export function flag(...spelled: string[]): OptionSpec {
  return { names: spelled };
}

/** `--version`, `--help`: the tool prints and exits, so it runs without the operands it otherwise needs. */
export function infoFlag(...spelled: string[]): OptionSpec {
  return { names: spelled, printsAndExits: true };
}

/** An option with a required value. */
export function opt(
  spelled: string | readonly string[],
  value: ValueSpec,
  extra: Omit<OptionSpec, 'names' | 'value'> = {},
): OptionSpec {
  return { names: names(spelled), value, ...extra };
}

/** An option whose value may be left out (only attached or after `=`). */
export function optional(spelled: string | readonly string[], value: ValueSpec): OptionSpec {
  return { names: names(spelled), value, optionalValue: true };
}

/** An option the tool knows and the policy refuses, with the rule and the reason. */
export function refused(
  spelled: string | readonly string[],
  rule: PolicyRule,
  why: string,
  extra: { readonly value?: ValueSpec; readonly instead?: string; readonly optionalValue?: boolean } = {},
): OptionSpec {
  const refusal: Refusal = extra.instead ? { rule, why, instead: extra.instead } : { rule, why };
  return {
    names: names(spelled),
    refused: refusal,
    ...(extra.value ? { value: extra.value } : {}),
    ...(extra.optionalValue ? { optionalValue: true } : {}),
  };
}

export function refusal(rule: PolicyRule, why: string, instead?: string): Refusal {
  return instead ? { rule, why, instead } : { rule, why };
}
