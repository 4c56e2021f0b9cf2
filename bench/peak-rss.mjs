// Preloaded with --import into the process under test (bench/run.mjs, the dry-run row): when it exits,
// however it exits (process.exit included), writes its peak RSS in bytes to $PETSTORE_BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs';

const rssFile = process.env.PETSTORE_BENCH_RSS_FILE;
if (rssFile) {
  // resourceUsage().maxRSS is in kilobytes (getrusage ru_maxrss).
  process.on('exit', () => writeFileSync(rssFile, String(process.resourceUsage().maxRSS * 1024)));
}
