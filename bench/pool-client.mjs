// The reference of the seeding row: the least a Node client must do to send the same POSTs, an undici Pool
// with as many connections as petstore's concurrency, each request's body read, nothing else.
//   node bench/pool-client.mjs <baseUrl> <key> <records> <concurrency>
import { Pool } from 'undici';

const [baseUrl, key, recordsText, concurrencyText] = process.argv.slice(2);
const records = Number(recordsText);
const concurrency = Number(concurrencyText);
const url = new URL(baseUrl);
const pool = new Pool(url.origin, { connections: concurrency });
let next = 0;
let created = 0;
async function worker() {
  while (next < records) {
    const i = next++;
    const res = await pool.request({
      path: `${url.pathname}/pets`,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `pool-${i}`, categoryId: (i % 97) + 1, status: 'available' }),
    });
    await res.body.text();
    if (res.statusCode === 201) created++;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
await pool.close();
if (created !== records) {
  process.stderr.write(`pool-client: ${created} of ${records} created\n`);
  process.exit(1);
}
