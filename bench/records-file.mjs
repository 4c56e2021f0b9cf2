// The records the bench rows send and read: `n` valid pets as NDJSON, or CSV with its header line,
// written to `file`; `tail` (text) is appended after them. Shared by bench/run.mjs and
// bench/dry-run-vs-reference.mjs, so both measure the same input.
import { createWriteStream } from 'node:fs';

export async function writeRecordsFile(file, n, format = 'ndjson', tail = '') {
  const out = createWriteStream(file);
  const statuses = ['available', 'pending', 'sold'];
  if (format === 'csv') out.write('name,categoryId,status\n');
  for (let i = 1; i <= n; i++) {
    const pet = { name: `bench-pet-${i}`, categoryId: (i % 97) + 1, status: statuses[i % 3] };
    const line = format === 'csv' ? `${pet.name},${pet.categoryId},${pet.status}\n` : `${JSON.stringify(pet)}\n`;
    if (!out.write(line)) await new Promise((r) => out.once('drain', r));
  }
  if (tail) out.write(tail);
  await new Promise((r, j) => out.end((e) => (e ? j(e) : r())));
  return file;
}
