// The reference of the one-request row: a one-file script with Node's global fetch, the key, the body on stdout.
// Usage: node bench/fetch-one.mjs <url> <key>
const [url, key] = process.argv.slice(2);
const r = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
process.stdout.write(await r.text());
