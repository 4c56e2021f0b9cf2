// The CPU a seeding run spends on its journal, measured in a process of its own for the "journal"
// row of bench/run.mjs. Per record a run journals two lines, each with one write(2): `sending` just
// before the request leaves and the outcome after it. This times that with the real Journal class
// (src/bulk/journal.ts, bundled by run.mjs as dist/ keeps it inside a chunk), against the same loop
// that formats the same two lines and writes nothing. Both loops yield to the event loop every 64
// records, as a run does between answers, so the journal's once-a-second fdatasync runs too.
//
// Usage (from bench/run.mjs): node journal-cost.mjs <bundled journal module> <folder> <records> <rounds>
//   -> one JSON line on stdout: { withUs, withoutUs, costUs, bytesPerRecord } (µs of CPU per record,
//      user + system, medians over the rounds; costUs = withUs - withoutUs)
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [libPath, folder, recordsArg, roundsArg] = process.argv.slice(2);
const { Journal, formatResult } = await import(pathToFileURL(libPath).href);
const records = Number(recordsArg);
const rounds = Number(roundsArg);

const statuses = ['available', 'pending', 'sold'];
/** The pet a created record's outcome line carries (an id above 2^53, as the store's can be). */
const pet = (i) => ({ id: 9007199254740993n + BigInt(i), name: `bench-pet-${i}`, categoryId: (i % 97) + 1, status: statuses[i % 3] });
const tick = () => new Promise((resolve) => setImmediate(resolve));

let file = 0;
let bytes = 0;
/** µs of CPU per record for `n` records, journaled or not. */
async function loop(n, journaled) {
  let journal;
  if (journaled) {
    journal = await Journal.open(join(folder, `journal-${file++}.ndjson`), { input: undefined, inputLabel: 'bench', label: 'bench' });
    journal.start(
      formatResult({ journal: 'petstore pets add', version: 1, input: '-', sha256: '0', target: 'http://127.0.0.1/v1', started: new Date().toISOString() }),
    );
  }
  let sink = 0;
  const started = process.cpuUsage();
  for (let i = 1; i <= n; i++) {
    const sending = formatResult({ line: i, status: 'sending' });
    const outcome = formatResult({ line: i, status: 'created', pet: pet(i) });
    if (journal) {
      journal.sending(sending);
      journal.outcome(outcome);
    } else sink += sending.length + outcome.length;
    if (i % 64 === 0) await tick();
  }
  const used = process.cpuUsage(started);
  if (journal) {
    await journal.close();
    unlinkSync(journal.path);
  } else bytes = sink / n;
  return (used.user + used.system) / n;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Warm-up (JIT), then the two loops interleaved.
await loop(Math.min(records, 20_000), true);
await loop(Math.min(records, 20_000), false);
const withJournal = [];
const without = [];
for (let r = 0; r < rounds; r++) {
  if (r % 2 === 0) {
    withJournal.push(await loop(records, true));
    without.push(await loop(records, false));
  } else {
    without.push(await loop(records, false));
    withJournal.push(await loop(records, true));
  }
}
const withUs = median(withJournal);
const withoutUs = median(without);
process.stdout.write(`${JSON.stringify({ withUs, withoutUs, costUs: withUs - withoutUs, bytesPerRecord: bytes })}\n`);
