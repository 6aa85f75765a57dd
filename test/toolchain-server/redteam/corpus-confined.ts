/**
 * The confinement red team's corpus: every class of the third outside review (issue 18) and the fourth's (issue
 * 32: what the second wall holds), one case per object.
 */
import type { RedCase } from './case.ts';
import { FILE_INPUT } from './cases-file-input.ts';
import { GTFOBINS } from './cases-gtfobins.ts';
import { PERSISTENCE } from './cases-persistence.ts';
import { SAME_UID } from './cases-same-uid.ts';
import { SYMLINKS } from './cases-symlinks.ts';
import { TOOL_PATHS } from './cases-tool-paths.ts';
import { WALL_CASES } from './cases-wall.ts';

export const CONFINED_CORPUS: readonly RedCase[] = [
  ...FILE_INPUT,
  ...SYMLINKS,
  ...TOOL_PATHS,
  ...SAME_UID,
  ...PERSISTENCE,
  ...GTFOBINS,
  ...WALL_CASES,
];

/** Every command the corpus runs, so the server allows each and the argv policy is what decides. */
export function confinedCommands(): string[] {
  const names = CONFINED_CORPUS.flatMap((c) => [c.argv[0]!, ...(c.next ? [c.next[0]!] : [])]);
  return [...new Set(names)].sort();
}
