/**
 * Preloaded (`node --import`) by bench/cli-run.ts into a CLI run: as the process exits, prints its peak RSS
 * (KiB, from `process.resourceUsage().maxRSS`) as the last stderr line, for the benchmark to read.
 */
process.on('exit', () => {
  process.stderr.write(`\ntoolyard-bench-peak-rss-kib:${process.resourceUsage().maxRSS}\n`);
});
