// The reference of the dry-run row: the least a Node program does to read a file of JSON
// lines, node:readline over a file stream and JSON.parse of each non-blank line. Prints the count.
//
//   node bench/readline-json.mjs FILE
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node bench/readline-json.mjs FILE\n');
  process.exit(2);
}
let count = 0;
for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
  if (line === '') continue;
  JSON.parse(line);
  count++;
}
process.stdout.write(`${count}\n`);
