/**
 * Preloaded (`node --import`) by bench/cli-run.ts into a CLI run: as the process exits, prints its peak RSS
 * (KiB, from `process.resourceUsage().maxRSS`) and its CPU time (user + system, every thread, ms) as the last
 * stderr line, for the benchmark to read. CPU time moves much less than wall time on a shared machine.
 */
process.on('exit', () => {
  const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
  const cpuMs = Math.round((userCPUTime + systemCPUTime) / 1000);
  process.stderr.write(`\ntoolyard-bench-peak-rss-kib:${maxRSS} cpu-ms:${cpuMs}\n`);
});
