/**
 * Working-directory and path confinement. Every path is resolved with realpath (symlinks followed, `..`
 * collapsed) and must then lie inside one of the workspace roots, themselves realpath'd at start.
 */
import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { ToolError } from '../errors.ts';
import type { PathConfinement } from './options/check.ts';

const MAX_SYMLINKS = 40;

/**
 * Resolves `rel` from the real directory `from` as the kernel walks a path: each symlink is followed where it
 * appears (so `link/..` is the parent of the link's target), and once a component is missing the rest is
 * appended as written, which is where a tool that creates it (mkdir -p, tar -x, cp) would put it. A dangling
 * symlink therefore resolves to where writing through it would land. Undefined for a symlink loop.
 */
function walk(from: string, rel: string, depth = 0): string | undefined {
  let current = from;
  let missing = false;
  for (const part of rel.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    if (missing) {
      current = next;
      continue;
    }
    let link: string | undefined;
    try {
      if (lstatSync(next).isSymbolicLink()) link = readlinkSync(next);
    } catch {
      missing = true;
      current = next;
      continue;
    }
    if (link === undefined) {
      current = next;
      continue;
    }
    if (depth >= MAX_SYMLINKS) return undefined;
    const target = walk(isAbsolute(link) ? '/' : current, link, depth + 1);
    if (target === undefined) return undefined;
    current = target;
  }
  return current;
}

export class WorkspaceRoots implements PathConfinement {
  /** The roots as configured. */
  readonly configured: readonly string[];
  private resolved: string[] = [];

  constructor(roots: readonly string[]) {
    this.configured = roots;
    this.refresh();
  }

  /** Re-resolves the roots (a root may appear after start, e.g. once a volume is populated). */
  refresh(): void {
    const resolved: string[] = [];
    for (const root of this.configured) {
      try {
        const real = realpathSync(root);
        if (statSync(real).isDirectory()) resolved.push(real);
      } catch {
        // missing roots are reported by missing()
      }
    }
    this.resolved = resolved;
  }

  /** Configured roots that do not exist (or are not directories) right now. */
  missing(): string[] {
    return this.configured.filter((root) => {
      try {
        return !statSync(root).isDirectory();
      } catch {
        return true;
      }
    });
  }

  /** The roots that exist, symlinks resolved. */
  get real(): readonly string[] {
    if (this.resolved.length < this.configured.length) this.refresh();
    return this.resolved;
  }

  /** The first root: the default working directory. */
  get primary(): string | undefined {
    if (this.resolved.length < this.configured.length) this.refresh();
    return this.resolved[0];
  }

  contains(realPath: string): boolean {
    if (this.resolved.length < this.configured.length) this.refresh();
    return this.resolved.some(
      (root) => realPath === root || realPath.startsWith(root.endsWith(sep) ? root : root + sep),
    );
  }

  /**
   * Resolves a caller's cwd (relative to the primary root, or absolute) to a real directory inside the roots.
   * Throws TOOLYARD_CWD_NOT_FOUND or TOOLYARD_CWD_OUTSIDE_ROOTS.
   */
  resolveCwd(requested: string | undefined): string {
    const primary = this.primary;
    if (primary === undefined)
      throw new ToolError(
        'TOOLYARD_CWD_NOT_FOUND',
        `no workspace root exists (${this.configured.join(', ')}).`,
      );
    const candidate = requested === undefined || requested === '' ? primary : resolve(primary, requested);
    return this.resolveExisting(candidate, 'directory', requested ?? '.');
  }

  /** Resolves a path argument relative to `cwd`; it must exist and lie inside the roots. */
  resolvePath(path: string, cwd: string, kind: 'file' | 'directory' | 'any' = 'any'): string {
    return this.resolveExisting(isAbsolute(path) ? path : resolve(cwd, path), kind, path);
  }

  /** Where `path`, taken relative to `base`, leads (see `walk`); undefined for a NUL byte or a symlink loop. */
  locate(path: string, base: string): string | undefined {
    if (path.includes('\0') || base.includes('\0')) return undefined;
    const realBase = walk('/', resolve('/', base));
    if (realBase === undefined) return undefined;
    return walk(isAbsolute(path) ? '/' : realBase, path);
  }

  /** True when `path` (relative to `base`) leads inside the roots, existing or not. */
  inside(path: string, base: string): boolean {
    const target = this.locate(path, base);
    return target !== undefined && this.contains(target);
  }

  exists(path: string, base: string): boolean {
    const target = this.locate(path, base);
    if (target === undefined) return true; // a loop exists, and is refused by inside()
    try {
      lstatSync(target);
      return true;
    } catch {
      return false;
    }
  }

  private resolveExisting(candidate: string, kind: 'file' | 'directory' | 'any', shown: string): string {
    if (candidate.includes('\0')) throw new ToolError('TOOLYARD_CWD_NOT_FOUND', 'path contains a NUL byte.');
    let real: string;
    try {
      real = realpathSync(candidate);
    } catch {
      throw new ToolError('TOOLYARD_CWD_NOT_FOUND', `${JSON.stringify(shown)} does not exist.`, {
        allowed: `an existing path inside ${this.configured.join(', ')}`,
      });
    }
    if (!this.contains(real)) {
      throw new ToolError(
        'TOOLYARD_CWD_OUTSIDE_ROOTS',
        `${JSON.stringify(shown)} resolves to ${real}, outside the workspace roots.`,
        { rule: 'cwd-confinement', allowed: `paths inside ${this.configured.join(', ')}` },
      );
    }
    if (kind !== 'any') {
      const isDir = statSync(real).isDirectory();
      if ((kind === 'directory') !== isDir)
        throw new ToolError('TOOLYARD_CWD_NOT_FOUND', `${JSON.stringify(shown)} is not a ${kind}.`);
    }
    return real;
  }
}
