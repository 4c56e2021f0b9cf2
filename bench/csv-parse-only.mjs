// The CSV reference for the dry-run rows: csv-parse (the library the CLI reads CSV with) alone over a
// file stream, its default options and a BOM dropped, each record counted. Prints the count (the header included).
//
//   node bench/csv-parse-only.mjs FILE
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node bench/csv-parse-only.mjs FILE\n');
  process.exit(2);
}
let count = 0;
for await (const _record of createReadStream(file).pipe(parse({ bom: true }))) count++;
process.stdout.write(`${count}\n`);
