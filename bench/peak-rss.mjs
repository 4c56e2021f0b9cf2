// Preloaded with --import into the process under test: when it exits, however it exits
// (process.exit included), writes its peak RSS (bytes) to $PETSTORE_BENCH_RSS_FILE and the CPU it
// used (µs, user + system, all threads) to $PETSTORE_BENCH_CPU_FILE, each when set.
import { writeFileSync } from 'node:fs';

const rssFile = process.env.PETSTORE_BENCH_RSS_FILE;
const cpuFile = process.env.PETSTORE_BENCH_CPU_FILE;
if (rssFile || cpuFile) {
  process.on('exit', () => {
    // resourceUsage().maxRSS is in kilobytes (getrusage ru_maxrss).
    if (rssFile) writeFileSync(rssFile, String(process.resourceUsage().maxRSS * 1024));
    if (cpuFile) {
      const { user, system } = process.cpuUsage();
      writeFileSync(cpuFile, String(user + system));
    }
  });
}
