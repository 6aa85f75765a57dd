/** Counts as words in messages: "no warnings", "1 error", "2 errors". */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  if (n === 0) return `no ${plural}`;
  return `${n} ${n === 1 ? noun : plural}`;
}
