// Loaded with --require into each measured secretform process: writes its peak RSS (KB) and CPU time (user +
// system, microseconds) to BENCH_RSS_FILE at exit.
'use strict';
const file = process.env.BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    require('node:fs').writeFileSync(file, JSON.stringify({ maxRssKb: usage.maxRSS, cpuMicros: usage.userCPUTime + usage.systemCPUTime }));
  });
}
