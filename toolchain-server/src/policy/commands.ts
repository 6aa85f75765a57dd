/**
 * The command allowlist, resolved to absolute paths once at start from the server's own PATH. Callers name a
 * command by its bare name; a path, or a name not on the list, is refused.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { ToolError } from '../errors.ts';

export interface ResolvedCommand {
  readonly name: string;
  /** Absolute path found on PATH at start, or undefined when the binary is missing. */
  readonly path: string | undefined;
  /** The real file name behind it, links followed (`awk` → `gawk`), for tables that depend on the program. */
  readonly program: string | undefined;
}

function programName(path: string | undefined): string | undefined {
  if (!path) return undefined;
  try {
    return basename(realpathSync(path));
  } catch {
    return undefined;
  }
}

/** Finds `name` on `pathEnv` (absolute directories only; relative PATH entries are ignored). */
export function findOnPath(name: string, pathEnv: string | undefined): string | undefined {
  if (!pathEnv || name.includes('/')) return undefined;
  for (const dir of pathEnv.split(':')) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export class CommandTable {
  private readonly commands = new Map<string, ResolvedCommand>();

  constructor(names: Iterable<string>, pathEnv: string | undefined) {
    for (const name of names) {
      if (this.commands.has(name)) continue;
      const path = findOnPath(name, pathEnv);
      this.commands.set(name, { name, path, program: programName(path) });
    }
  }

  has(name: string): boolean {
    return this.commands.has(name);
  }

  list(): ResolvedCommand[] {
    return [...this.commands.values()];
  }

  missing(): string[] {
    return this.list()
      .filter((c) => c.path === undefined)
      .map((c) => c.name);
  }

  /** Refuses a caller-supplied command name that is a path or not allowed for this tool. */
  assertAllowed(requested: string, allowedNames: ReadonlySet<string>): void {
    const allowedList = [...allowedNames].join(', ') || '(none)';
    if (requested.includes('/') || requested.includes('\\')) {
      throw new ToolError(
        'TOOLYARD_COMMAND_PATH_REFUSED',
        `${JSON.stringify(requested)} is a path; commands are resolved by the server from its own PATH.`,
        { rule: 'command-allowlist', allowed: `one of these bare names: ${allowedList}` },
      );
    }
    if (!this.commands.has(requested) || !allowedNames.has(requested)) {
      throw new ToolError(
        'TOOLYARD_COMMAND_NOT_ALLOWED',
        `${JSON.stringify(requested)} is not an allowed command.`,
        {
          rule: 'command-allowlist',
          allowed: allowedList,
        },
      );
    }
  }

  /** The real file name of an allowed command's binary, when found. */
  programOf(requested: string): string | undefined {
    return this.commands.get(requested)?.program;
  }

  /** The absolute path found at start for an allowed command, or TOOLYARD_COMMAND_UNAVAILABLE. */
  pathOf(requested: string): string {
    const path = this.commands.get(requested)?.path;
    if (path === undefined) {
      throw new ToolError(
        'TOOLYARD_COMMAND_UNAVAILABLE',
        `${JSON.stringify(requested)} is allowed but was not found on the server PATH at start.`,
      );
    }
    return path;
  }
}
