// The load of the sandbox rows (bench/run.mjs, bench/sandbox-ab.mjs): the same POST, from autocannon.
/**
 * POSTs a pet to `sb` (a server of bench/child-ipc.mjs: its baseUrl, and cpu() for its
 * process.cpuUsage()) from autocannon for a fixed duration, sampled every 10 ms (in `amount` mode it
 * notices the end only on its 1 s tick); throws on any non-2xx. Returns 2xx per second and the
 * server's CPU µs per 2xx: user, system, and both.
 */
export async function postLoad(sb, key, connections, seconds) {
  const { default: autocannon } = await import('autocannon');
  const before = await sb.cpu();
  const res = await autocannon({
    url: `${sb.baseUrl}/pets`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-pet', categoryId: 1, status: 'available' }),
    connections,
    duration: seconds,
    sampleInt: 10,
  });
  const after = await sb.cpu();
  if (res.non2xx !== 0 || res.errors !== 0) throw new Error(`autocannon saw ${res.non2xx} non-2xx answers and ${res.errors} errors`);
  const n = Math.max(1, res['2xx']);
  const user = (after.user - before.user) / n;
  const system = (after.system - before.system) / n;
  return { rps: res['2xx'] / (res.duration || seconds), user, system, cpuPerRequest: user + system };
}
