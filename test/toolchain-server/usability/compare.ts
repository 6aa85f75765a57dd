/** How the usability test compares a direct run with a run through the server (corpus.ts lists the rules). */
import type { Normalisation } from './corpus.ts';

export interface RunOutcome {
  readonly exitCode: number | null;
  readonly stdout: string;
}

export interface Paths {
  /** The two workspace copies, the two cache directories and the two TMPDIRs, each pair one token. */
  readonly pairs: ReadonlyArray<readonly [direct: string, server: string, token: string]>;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function normalise(text: string, rules: readonly Normalisation[], paths: Paths): string {
  let out = text;
  for (const [direct, server, token] of paths.pairs) {
    // A per-call directory under TMPDIR (the server's HOME) is one token whatever its name.
    const tail = token === '<tmp>' ? '(/[^\\s:\'"]*)?' : '';
    out = out.replace(new RegExp(`(${escapeRegExp(direct)}|${escapeRegExp(server)})${tail}`, 'g'), token);
  }
  if (rules.includes('timing'))
    out = out
      .replace(/duration_ms:? [\d.]+/g, 'duration_ms T')
      .replace(/\b\d+(\.\d+)?\s?(ms|s|sec|seconds)\b/g, 'T')
      .replace(/\s*\(cached\)/g, '');
  if (rules.includes('digits')) out = out.replace(/\d+/g, 'N');
  if (rules.includes('sorted')) out = out.split('\n').sort().join('\n');
  return out;
}

export function equivalent(
  direct: RunOutcome,
  server: RunOutcome,
  rules: readonly Normalisation[],
  paths: Paths,
): boolean {
  if (direct.exitCode !== server.exitCode) return false;
  if (rules.includes('exit')) return true;
  return normalise(direct.stdout, rules, paths) === normalise(server.stdout, rules, paths);
}

/** The first differing line of two normalised outputs, for the report. */
export function firstDifference(a: string, b: string): string {
  const left = a.split('\n');
  const right = b.split('\n');
  for (let i = 0; i < Math.max(left.length, right.length); i++)
    if (left[i] !== right[i])
      return `line ${i + 1}: direct ${JSON.stringify(left[i] ?? null)} vs server ${JSON.stringify(right[i] ?? null)}`;
  return 'no difference in stdout';
}
