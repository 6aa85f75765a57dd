/**
 * The command allowlist, resolved to absolute paths once at start from the server's own PATH. Callers name a
 * command by its bare name; a path, or a name not on the list, is refused.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { ToolError } from '../errors.ts';

export interface ResolvedCommand {
  readonly name: string;
  /** Absolute path found on PATH at start, or undefined when the binary is missing. */
  readonly path: string | undefined;
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
      this.commands.set(name, { name, path: findOnPath(name, pathEnv) });
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

  /** The absolute path to run for a caller-supplied command name, or a ToolError saying why not. */
  resolve(requested: string, allowedNames: ReadonlySet<string>): string {
    const allowedList = [...allowedNames].join(', ') || '(none)';
    if (requested.includes('/') || requested.includes('\\')) {
      throw new ToolError(
        'TOOLYARD_COMMAND_PATH_REFUSED',
        `${JSON.stringify(requested)} is a path; commands are resolved by the server from its own PATH.`,
        { rule: 'command-allowlist', allowed: `one of these bare names: ${allowedList}` },
      );
    }
    const entry = this.commands.get(requested);
    if (!entry || !allowedNames.has(requested)) {
      throw new ToolError(
        'TOOLYARD_COMMAND_NOT_ALLOWED',
        `${JSON.stringify(requested)} is not an allowed command.`,
        {
          rule: 'command-allowlist',
          allowed: allowedList,
        },
      );
    }
    if (entry.path === undefined) {
      throw new ToolError(
        'TOOLYARD_COMMAND_UNAVAILABLE',
        `${JSON.stringify(requested)} is allowed but was not found on the server PATH at start.`,
      );
    }
    return entry.path;
  }
}
