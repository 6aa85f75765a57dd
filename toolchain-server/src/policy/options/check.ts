/**
 * The checks that need the filesystem: every path-like value (option values and positionals the table calls
 * a path) must resolve, symlinks followed, inside the workspace roots — from the working directory and from
 * every directory an option such as `make -C` or `git -C` moves the tool to.
 */
import { statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { ParsedCommand, ParsedValue } from './parse.ts';
import { refuse } from './parse.ts';

export interface PathConfinement {
  /**
   * True when `path`, relative to `base`, resolves inside a workspace root: symlinks followed as the kernel
   * follows them, and a path that does not exist yet judged by its nearest existing ancestor.
   */
  inside(path: string, base: string): boolean;
  /** True when `path`, relative to `base`, exists (a symlink counts, even a dangling one). */
  exists(path: string, base: string): boolean;
}

function looksLikePath(value: string, bases: readonly string[], paths: PathConfinement): boolean {
  return (
    isAbsolute(value) ||
    value.split('/').includes('..') ||
    value.startsWith('~') ||
    bases.some((base) => paths.exists(value, base))
  );
}

/** `dir` and its ancestors, up to the last one still inside the roots. */
function ancestorsInside(dir: string, paths: PathConfinement): string[] {
  const out: string[] = [];
  for (let d = dir; paths.inside('.', d); d = dirname(d)) {
    out.push(d);
    if (dirname(d) === d) break;
  }
  return out;
}

function checkValue(item: ParsedValue, bases: readonly string[], paths: PathConfinement): void {
  const { spec, value, what } = item;
  const insideAll = (v: string) => bases.every((base) => paths.inside(v, base));
  switch (spec.kind) {
    case 'path':
    case 'pathspec': {
      if (spec.stdio && value === '-') return;
      const stripped = spec.strip ? value.replace(spec.strip, '') : value;
      if (spec.kind === 'pathspec' && !looksLikePath(stripped, bases, paths)) return;
      // pytest, pip, npm and make expand `~` and `$VAR` in path values themselves: to HOME, outside the roots.
      if (/^~|\$/.test(stripped))
        refuse(
          'path-outside-roots',
          `${what} names ${JSON.stringify(value)}; the tool may expand \`~\` or \`$VARIABLE\` itself, to a place outside the workspace roots.`,
          'a path inside the workspace roots, written out without ~ or $',
        );
      if (stripped.includes('\0') || !insideAll(stripped))
        refuse(
          'path-outside-roots',
          `${what} names ${JSON.stringify(value)}, which resolves outside the workspace roots.`,
          'paths inside the workspace roots (symlinks are followed before the check)',
        );
      return;
    }
    case 'custom': {
      const refusal = spec.check(value, insideAll, (v) =>
        bases.every((base) => ancestorsInside(base, paths).every((dir) => paths.inside(v, dir))),
      );
      if (refusal) refuse(refusal.rule, `${what}: ${refusal.why}`, refusal.instead ?? spec.describe);
      return;
    }
    default:
      return;
  }
}

/** Runs the deferred checks; `cwd` is the call's confined working directory. */
export function checkPaths(parsed: ParsedCommand, cwd: string, paths: PathConfinement): void {
  const bases = [cwd];
  for (const dir of parsed.directories) {
    if (!paths.inside(dir, cwd))
      refuse(
        'path-outside-roots',
        `the directory ${JSON.stringify(dir)} resolves outside the workspace roots.`,
        'directories inside the workspace roots',
      );
    bases.push(isAbsolute(dir) ? dir : `${cwd}/${dir}`);
  }
  for (const item of parsed.deferred) checkValue(item, bases, paths);
  for (const { table, values, given } of parsed.operands) {
    if (!table.checkOperands) continue;
    const refusal = table.checkOperands(values, given, {
      inside: (path, base = '.') => !path.includes('\0') && paths.inside(path, resolve(cwd, base)),
      isDirectory: (path) => {
        try {
          return statSync(resolve(cwd, path)).isDirectory();
        } catch {
          return false;
        }
      },
    });
    if (refusal)
      refuse(
        refusal.rule,
        `\`${table.name}\`: ${refusal.why}`,
        refusal.instead ?? 'paths inside the workspace roots',
      );
  }
}
