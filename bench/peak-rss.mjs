// Preloaded with --import into the process under test: writes its peak RSS (bytes) to
// $PETSTORE_BENCH_RSS_FILE when it exits, however it exits (process.exit included).
import { writeFileSync } from 'node:fs';

const file = process.env.PETSTORE_BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    // resourceUsage().maxRSS is in kilobytes (getrusage ru_maxrss).
    writeFileSync(file, String(process.resourceUsage().maxRSS * 1024));
  });
}
