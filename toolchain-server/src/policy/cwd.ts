/**
 * Working-directory and path confinement. Every path is resolved with realpath (symlinks followed, `..`
 * collapsed) and must then lie inside one of the workspace roots, themselves realpath'd at start.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { ToolError } from '../errors.ts';

export class WorkspaceRoots {
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

  /** True when `path` resolves (symlinks followed) to an existing location inside the roots. */
  isInside(path: string, cwd: string): boolean {
    try {
      this.resolvePath(path, cwd);
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
