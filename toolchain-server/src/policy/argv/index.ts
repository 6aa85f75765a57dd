/** Every command the argv policy has a table for, by the name a caller uses, and per-command environment. */
import type { CommandSpec } from '../options/spec.ts';
import { ARCHIVES } from './archives.ts';
import { FILE_INFO } from './file-info.ts';
import { FILE_TOOLS } from './file-tools.ts';
import { GIT, gitEnvironment } from './git.ts';
import { GO_TABLES } from './go.ts';
import { INFRA_TABLES } from './infra.ts';
import { MAKES } from './make.ts';
import { NODE_TABLES } from './node.ts';
import { PYTHON_TABLES, pythonTable } from './python.ts';
import { RUST_TABLES } from './rust.ts';
import { SEARCH_TOOLS } from './search-tools.ts';
import { SHELLS } from './shells.ts';
import { SYSTEM_INFO } from './system-info.ts';
import { awkTable, TEXT_TOOLS } from './text-tools.ts';
import { UV_TABLES } from './uv.ts';

export { refusedCommand } from './refused.ts';

const TABLES: Readonly<Record<string, CommandSpec>> = {
  ...FILE_TOOLS,
  ...FILE_INFO,
  ...SYSTEM_INFO,
  ...TEXT_TOOLS,
  ...SEARCH_TOOLS,
  ...ARCHIVES,
  ...MAKES,
  git: GIT,
  ...NODE_TABLES,
  ...PYTHON_TABLES,
  ...UV_TABLES,
  ...RUST_TABLES,
  ...GO_TABLES,
  ...INFRA_TABLES,
  ...SHELLS,
};

/**
 * The table for a command name (`python3.12` shares the python table), or undefined. `program` is the real
 * file name of the binary the name resolved to at start, for tools whose safety depends on which one it is
 * (`awk`: gawk has a sandbox, mawk has none).
 */
export function commandTable(name: string, program?: string): CommandSpec | undefined {
  if (Object.hasOwn(TABLES, name)) return TABLES[name];
  return awkTable(name, program) ?? pythonTable(name);
}

/** Names with a table (interpreters by their plain name); the docs list them. */
export function tabledCommands(): string[] {
  return [
    ...Object.keys(TABLES),
    'awk',
    'gawk',
    'mawk',
    'nawk',
    'python',
    'python3',
    'python3.X',
    'pypy3',
  ].sort();
}

/**
 * Variables a command always runs with, whatever the caller sets (git's discovery ceiling and overrides).
 * `httpProxy`: the broker proxy URL, which git then uses whatever a repository's `http.proxy` says.
 */
export function commandEnvironment(
  name: string,
  roots: readonly string[],
  httpProxy?: string,
): Record<string, string> {
  return name === 'git' ? gitEnvironment(roots, httpProxy) : {};
}
