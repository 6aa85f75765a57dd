/** Unique-prefix resolution, as getopt_long, argp, nopt and npm's `abbrev` resolve an abbreviated word. */

/** `word` itself when listed, else the one listed word it is a prefix of, else undefined (none or several). */
export function resolveUniquePrefix(word: string, words: readonly string[]): string | undefined {
  if (words.includes(word)) return word;
  if (word === '') return undefined;
  const matches = words.filter((w) => w.startsWith(word));
  return matches.length === 1 ? matches[0] : undefined;
}
