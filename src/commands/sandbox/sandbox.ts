// `petstore sandbox`: start the server, print how to use it, run until SIGINT/SIGTERM, then shut down gracefully.

import { once } from 'node:events';
import type { Factory } from '../../factory.js';
import { formatDuration, parseSandboxOptions, type SandboxCommandOptions } from '../../sandbox/options.js';
import { OPENAPI_PATH, type RecordedRequest, type SandboxHandle, startSandbox } from '../../sandbox/server.js';

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  await runSandbox(parseSandboxOptions(opts), { stdout: f.io.stdout.stream, stderr: f.io.stderr.stream }, f.signal);
}

const SANDBOX_ENV = 'sandbox';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function shellWord(word: string): string {
  return /^[\w.,:/@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The start-up text: base URL, keys, limits, data and the commands that point the CLI at it. */
function formatBanner(sb: SandboxHandle): string {
  const l = sb.limits;
  const lines = [`petstore sandbox listening on ${sb.baseUrl}`];
  sb.keys.forEach((key, i) => {
    const note = sb.generatedKey ? '   (generated; pass --key to choose)' : '';
    lines.push(`  key:   ${key}${i === 0 ? note : ''}`);
  });
  const day = l.dayWindowMs === 86_400_000 ? 'per day' : `per ${formatDuration(l.dayWindowMs)}`;
  lines.push(`  plan:  ${l.plan} (${l.perMinute} requests per ${formatDuration(l.windowMs)}, ${l.perDay} ${day}; per key)`);
  lines.push(l.ban ? `  ban:   ${l.banSeconds}s for a retry before a 429's reset (--no-ban to disable)` : '  ban:   off');
  if (sb.dataFile !== undefined) lines.push(`  data:  ${sb.dataFile} (${sb.loadedPets} ${sb.loadedPets === 1 ? 'pet' : 'pets'} loaded)`);
  else lines.push('  data:  in memory (pass --data FILE to keep pets across restarts)');
  lines.push(`  api:   ${sb.url}${OPENAPI_PATH} (the OpenAPI description)`);
  if (!LOOPBACK.has(sb.host)) lines.push(`  warning: listening on ${sb.host}: other machines may reach this sandbox`);
  // An environment of its own, so that no key goes to the wrong server.
  lines.push(`Point the CLI at it (an environment named "${SANDBOX_ENV}"; production is left alone):`);
  lines.push(`  petstore env set ${SANDBOX_ENV} ${sb.baseUrl}`);
  lines.push(`  echo ${shellWord(sb.keys[0] ?? '')} | petstore auth login --env ${SANDBOX_ENV}`);
  lines.push(`  export PETSTORE_ENV=${SANDBOX_ENV}   # this shell only; or: petstore env use ${SANDBOX_ENV}`);
  lines.push('Press Ctrl-C to stop.');
  return `${lines.join('\n')}\n`;
}

function logLine(r: RecordedRequest): string {
  const code = r.errorCode === undefined ? '' : ` ${r.errorCode}`;
  return `${new Date(r.time).toISOString()} ${r.method} ${r.url} -> ${r.status}${code} (${r.durationMs.toFixed(1)}ms)\n`;
}

/** Runs the sandbox until `signal` aborts: the banner on stderr, the base URL alone on stdout (for scripts). */
export async function runSandbox(
  opts: SandboxCommandOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
  signal: AbortSignal,
): Promise<void> {
  const sandbox = await startSandbox({
    ...opts,
    recordRequests: false,
    ...(opts.log ? { onRequest: (r: RecordedRequest) => void io.stderr.write(logLine(r)) } : {}),
    onError: (error) => {
      io.stderr.write(`petstore sandbox: cannot write ${opts.dataFile ?? 'the data file'}: ${(error as Error)?.message ?? String(error)}\n`);
    },
  });
  io.stderr.write(formatBanner(sandbox));
  io.stdout.write(`${sandbox.baseUrl}\n`);
  if (!signal.aborted) await once(signal, 'abort');
  io.stderr.write('petstore sandbox: shutting down (finishing requests in flight)...\n');
  await sandbox.close();
  const count = sandbox.pets().length;
  const saved = sandbox.dataFile === undefined ? '' : `; ${count} ${count === 1 ? 'pet' : 'pets'} saved to ${sandbox.dataFile}`;
  io.stderr.write(`petstore sandbox: stopped${saved}\n`);
}
