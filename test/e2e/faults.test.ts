// The built CLI against a hostile server (test/helpers/fault-server.ts): every
// fault ends with its documented exit code, one clear `error:` line on stderr,
// no stack trace, and a POST that may have been processed is never sent twice.
// Each test has its own server and its own config folder (so the rate-limit
// state file of one test never gates another), which lets them run concurrently.
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, tempDir, type CliResult } from '../helpers/cli.js';
import { html, json, jsonText, startFaultServer, type Fault, type FaultServer } from '../helpers/fault-server.js';

const KEY = 'sk_fault_test_key_5d1e8a0c';
const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const ADD = ['pets', 'add', '--name', 'Rex', '--category-id', '1'];
const LIST = ['pets', 'list'];

// Closed at the end (not after each test): the tests of a describe.concurrent block share this list.
const servers: FaultServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(script: Fault[] | ((req: { seq: number; method: string }) => Fault)): Promise<FaultServer> {
  const s = await startFaultServer(script);
  servers.push(s);
  return s;
}

interface Run extends CliResult {
  ms: number;
}

/** Runs the built CLI against the server with a fresh config folder. */
async function cli(s: FaultServer, args: string[]): Promise<Run> {
  const cfg = tempDir('petstore-faults-');
  const started = Date.now();
  try {
    const r = await runCli(args, {
      configDir: cfg.dir,
      env: { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_ENV: 'staging' },
      timeoutMs: 25_000,
    });
    return { ...r, ms: Date.now() - started };
  } finally {
    cfg.cleanup();
  }
}

/**
 * The error is the last line of stderr and the only `error:` line; no stack
 * trace, no "unexpected error" (an unhandled crash), never the key. `before`
 * is how many announcement lines (e.g. "retrying in 1s") may precede it.
 */
function oneClearError(r: Run, pattern: RegExp, before = 0): void {
  const lines = r.stderr.trimEnd().split('\n');
  expect(r.stderr, 'stack trace').not.toMatch(/\n\s+at |^\s+at /m);
  expect(r.stderr).not.toMatch(/unexpected error|TypeError|ReferenceError|SyntaxError|Unexpected token|undici|UND_ERR/);
  expect(r.stderr).not.toContain(KEY);
  expect(
    lines.filter((l) => l.startsWith('error:')),
    r.stderr,
  ).toHaveLength(1);
  expect(lines, r.stderr).toHaveLength(before + 1);
  expect(lines.at(-1)).toMatch(pattern);
  expect(r.stdout).toBe('');
}

const methods = (s: FaultServer) => s.requests().map((r) => r.method);

/**
 * A connection that ends in the middle of a response: said in plain words, like a reset before the
 * head (not undici's "Response body length does not match content-length header (UND_ERR_...)").
 */
const CUT = 'connection to 127\\.0\\.0\\.1:\\d+ (was reset|closed before the whole response arrived)';

describe.concurrent('5xx with an HTML body', () => {
  it('500 (not retryable): exit 1, the status and content type named, sent once even with retries on', async () => {
    const s = await server([html(500)]);
    const r = await cli(s, LIST);
    expect(r.exitCode).toBe(1);
    oneClearError(r, /^error: server error: HTTP 500 with a non-JSON body \(text\/html\)$/);
    expect(s.requests()).toHaveLength(1);
  });

  for (const status of [502, 503]) {
    it(`${status} on GET with --max-retries 0: exit 1, one request`, async () => {
      const s = await server([html(status)]);
      const r = await cli(s, [...LIST, '--max-retries', '0']);
      expect(r.exitCode).toBe(1);
      oneClearError(r, new RegExp(`^error: server error: HTTP ${status} with a non-JSON body \\(text/html\\)$`));
      expect(s.requests()).toHaveLength(1);
    });

    it(`${status} on GET is retried: --max-retries 1 sends it twice, announces the retry, then exit 1`, async () => {
      const s = await server([html(status)]);
      const r = await cli(s, [...LIST, '--max-retries', '1']);
      expect(r.exitCode).toBe(1);
      oneClearError(r, new RegExp(`^error: server error: HTTP ${status} with a non-JSON body`), 1);
      expect(r.stderr).toMatch(new RegExp(`^server error \\(HTTP ${status}\\); retrying in \\d+s \\(attempt 1/1\\)$`, 'm'));
      expect(methods(s)).toEqual(['GET', 'GET']);
    });

    it(`${status} on POST is never retried (it may have been processed): exit 1, sent once`, async () => {
      const s = await server([html(status)]);
      const r = await cli(s, [...ADD, '--max-retries', '3']);
      expect(r.exitCode).toBe(1);
      oneClearError(r, new RegExp(`^error: server error: HTTP ${status} with a non-JSON body \\(text/html\\)$`));
      expect(methods(s)).toEqual(['POST']);
    });
  }

  it('a 502 then a good answer: the GET retry succeeds (exit 0)', async () => {
    const s = await server([html(502), json(200, [PET])]);
    const r = await cli(s, [...LIST, '--max-retries', '1', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([PET]);
    expect(s.requests()).toHaveLength(2);
  });
});

describe.concurrent('200 with a body that is not what the interface promises', () => {
  const cases: { name: string; args: string[]; fault: Fault; message: RegExp }[] = [
    {
      name: 'truncated JSON (pets list)',
      args: LIST,
      fault: jsonText(200, '[{"id":1,"name":"Re'),
      message: /^error: malformed response: expected a list of pets, got invalid JSON \(application\/json\) \(HTTP 200\)$/,
    },
    {
      name: 'truncated JSON (pets add)',
      args: ADD,
      fault: jsonText(201, '{"id":7,"name":"Rex","categ'),
      message:
        /^error: malformed response: expected the created pet with its id, got invalid JSON \(application\/json\) \(HTTP 201\); the server accepted the request, so the pet was probably created: check before adding it again; run: petstore pets list$/,
    },
    {
      name: 'an object where a list is expected',
      args: LIST,
      fault: json(200, { pets: [PET] }),
      message: /^error: malformed response: expected a list of pets, got JSON of the wrong shape \(HTTP 200\)$/,
    },
    {
      name: 'a pet without an id (pets add)',
      args: ADD,
      fault: json(201, { name: 'Rex', categoryId: 1 }),
      message:
        /^error: malformed response: expected the created pet with its id, got JSON of the wrong shape \(HTTP 201\); the server accepted the request, so the pet was probably created: check before adding it again; run: petstore pets list$/,
    },
    {
      name: 'an id that is a string (pets get)',
      args: ['pets', 'get', '1', '-q'],
      fault: json(200, { ...PET, id: '1' }),
      message: /^error: malformed response: expected a pet, got JSON of the wrong shape \(HTTP 200\)$/,
    },
    {
      name: 'one pet of a list with a string id',
      args: LIST,
      fault: json(200, [PET, { ...PET, id: '2' }]),
      message: /^error: malformed response: expected a list of pets, got JSON of the wrong shape \(HTTP 200\)$/,
    },
    {
      name: 'an id beyond int64',
      args: LIST,
      fault: jsonText(200, '[{"id":9223372036854775808,"name":"Rex","categoryId":1}]'),
      message: /^error: malformed response: expected a list of pets, got JSON of the wrong shape \(HTTP 200\)$/,
    },
    {
      name: 'an HTML page with status 200',
      args: LIST,
      fault: html(200),
      message: /^error: malformed response: expected a list of pets, got a non-JSON body \(text\/html\) \(HTTP 200\)$/,
    },
    {
      name: 'an empty 200',
      args: LIST,
      fault: { kind: 'respond', status: 200 },
      message: /^error: malformed response: expected a list of pets, got an empty body \(HTTP 200\)$/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: exit 1, one line, sent once`, async () => {
      const s = await server([c.fault]);
      const r = await cli(s, c.args);
      expect(r.exitCode).toBe(1);
      oneClearError(r, c.message);
      expect(s.requests()).toHaveLength(1);
    });
  }
});

describe.concurrent('connection reset', () => {
  it('before the response head (RST), GET with --max-retries 0: exit 7', async () => {
    const s = await server([{ kind: 'drop', how: 'reset' }]);
    const r = await cli(s, [...LIST, '--max-retries', '0']);
    expect(r.exitCode).toBe(7);
    oneClearError(r, /^error: connection to 127\.0\.0\.1:\d+ was reset$/);
    expect(s.requests()).toHaveLength(1);
  });

  it('before the response head (FIN), GET with --max-retries 0: exit 7', async () => {
    const s = await server([{ kind: 'drop', how: 'close' }]);
    const r = await cli(s, [...LIST, '--max-retries', '0']);
    expect(r.exitCode).toBe(7);
    oneClearError(r, /^error: connection to 127\.0\.0\.1:\d+ was reset$/);
  });

  it('before the head, GET is retried: --max-retries 1 sends it again and succeeds', async () => {
    const s = await server([{ kind: 'drop' }, json(200, [PET])]);
    const r = await cli(s, [...LIST, '--max-retries', '1', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^connection to 127\.0\.0\.1:\d+ was reset; retrying in \d+s \(attempt 1\/1\)\n$/);
    expect(methods(s)).toEqual(['GET', 'GET']);
  });

  it('before the head, POST: exit 7, outcome unknown with the record, sent exactly once despite --max-retries 3', async () => {
    const s = await server([{ kind: 'drop' }, json(201, PET)]);
    const r = await cli(s, [...ADD, '--max-retries', '3']);
    expect(r.exitCode).toBe(7);
    oneClearError(
      r,
      /^error: outcome unknown for pet \{"name":"Rex","categoryId":1\}: the request may or may not have been processed \(the connection failed after the request was sent: connection to 127\.0\.0\.1:\d+ was reset\); check with "petstore pets list" before retrying$/,
    );
    expect(methods(s)).toEqual(['POST']);
    expect(s.requests()[0]!.body).toBe('{"name":"Rex","categoryId":1}');
  });

  it('after the response head (mid-body), GET with --max-retries 0: exit 7', async () => {
    const s = await server([{ kind: 'cut', status: 200, headers: { 'content-type': 'application/json' }, contentLength: 500, body: '[{"id":1,' }]);
    const r = await cli(s, [...LIST, '--max-retries', '0']);
    expect(r.exitCode).toBe(7);
    oneClearError(r, new RegExp(`^error: ${CUT}$`));
  });

  it('after the head with no body byte (FIN), GET with --max-retries 0: exit 7', async () => {
    const s = await server([{ kind: 'cut', status: 200, headers: { 'content-type': 'application/json' }, contentLength: 100, how: 'close' }]);
    const r = await cli(s, [...LIST, '--max-retries', '0']);
    expect(r.exitCode).toBe(7);
    oneClearError(r, new RegExp(`^error: ${CUT}$`));
  });

  it('after the head, GET is retried: --max-retries 1 sends it twice', async () => {
    const s = await server([{ kind: 'cut', status: 200, contentLength: 100 }, json(200, [PET])]);
    const r = await cli(s, [...LIST, '--max-retries', '1', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(s.requests()).toHaveLength(2);
  });

  it('after the head of a 201, POST: exit 7, outcome unknown, sent exactly once', async () => {
    const s = await server([{ kind: 'cut', status: 201, headers: { 'content-type': 'application/json' }, contentLength: 200, body: '{"id":' }]);
    const r = await cli(s, [...ADD, '--max-retries', '3']);
    expect(r.exitCode).toBe(7);
    oneClearError(
      r,
      new RegExp(
        `^error: outcome unknown for pet \\{"name":"Rex","categoryId":1\\}: the request may or may not have been processed \\(the connection failed after the request was sent: ${CUT}\\); check with "petstore pets list" before retrying$`,
      ),
    );
    expect(methods(s)).toEqual(['POST']);
  });

  it('a body shorter than its Content-Length (FIN): exit 7, not a parse error', async () => {
    const s = await server([
      { kind: 'raw', data: 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 64\r\nconnection: close\r\n\r\n[{"id":1}', end: 'close' },
    ]);
    const r = await cli(s, [...LIST, '--max-retries', '0']);
    expect(r.exitCode).toBe(7);
    oneClearError(r, new RegExp(`^error: ${CUT}$`));
  });

  it('garbage instead of HTTP: a clear one-line error, no crash', async () => {
    const s = await server([{ kind: 'raw', data: 'SSH-2.0-OpenSSH_9.6\r\n\r\n', end: 'close' }]);
    const r = await cli(s, [...LIST, '--max-retries', '0']);
    expect([1, 7]).toContain(r.exitCode);
    oneClearError(r, /^error: /);
  });
});

describe.concurrent('a response that stalls', () => {
  // Start-up of the built CLI (Node, bundle, config) plus scheduling slack on a loaded machine.
  const MARGIN_MS = 4000;

  it('no answer at all: --timeout 1 ends with exit 7 within the timeout plus a small margin', async () => {
    const s = await server([{ kind: 'stall' }]);
    const r = await cli(s, [...LIST, '--timeout', '1', '--max-retries', '0']);
    expect(r.exitCode).toBe(7);
    oneClearError(r, /^error: request timed out after 1s\b.*GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets\)?$/);
    expect(r.ms).toBeGreaterThanOrEqual(1000);
    expect(r.ms).toBeLessThan(1000 + MARGIN_MS);
  });

  it('the head arrives, then the body stalls: the timeout covers the whole body (exit 7)', async () => {
    const s = await server([{ kind: 'stall', head: { status: 200, headers: { 'content-type': 'application/json' }, contentLength: 1000, body: '[{"id":1,' } }]);
    const r = await cli(s, [...LIST, '--timeout', '1', '--max-retries', '0']);
    expect(r.exitCode).toBe(7);
    oneClearError(r, /^error: request timed out after 1s/);
    expect(r.ms).toBeLessThan(1000 + MARGIN_MS);
  });

  it('a stalled POST: exit 7 after the timeout, outcome unknown, never resent', async () => {
    const s = await server([{ kind: 'stall' }, json(201, PET)]);
    const r = await cli(s, [...ADD, '--timeout', '1', '--max-retries', '3']);
    expect(r.exitCode).toBe(7);
    oneClearError(
      r,
      /^error: outcome unknown for pet \{"name":"Rex","categoryId":1\}: the request may or may not have been processed \(no response before the timeout: request timed out after 1s\b.*POST http:\/\/127\.0\.0\.1:\d+\/v1\/pets\)?\); check with "petstore pets list" before retrying$/,
    );
    expect(r.ms).toBeLessThan(1000 + MARGIN_MS);
    expect(methods(s)).toEqual(['POST']);
  });

  it('Ctrl-C while a POST is in flight: exit 130, one line saying the outcome is unknown, sent once', async () => {
    const s = await server([{ kind: 'stall' }]);
    const cfg = tempDir('petstore-faults-');
    try {
      const child = spawnCli(ADD, { configDir: cfg.dir, env: { PETSTORE_BASE_URL: s.baseUrl, PETSTORE_API_KEY: KEY, PETSTORE_ENV: 'staging' } });
      for (let i = 0; i < 200 && s.requests().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      expect(String(r.stderr)).toMatch(
        /^error: interrupted while POST \/pets was in flight: the server may or may not have processed it; check before retrying\n(?!.*\n\s+at )/s,
      );
      expect(methods(s)).toEqual(['POST']);
    } finally {
      cfg.cleanup();
    }
  });

  it('a stalled GET is retried once with --max-retries 1 (two requests), then exit 7', async () => {
    const s = await server([{ kind: 'stall' }]);
    const r = await cli(s, [...LIST, '--timeout', '1', '--max-retries', '1']);
    expect(r.exitCode).toBe(7);
    oneClearError(r, /^error: request timed out after 1s/, 1);
    expect(methods(s)).toEqual(['GET', 'GET']);
  });
});

describe.concurrent('an oversized body', () => {
  it('20 MiB streamed: exit 1 with a clear line, the CLI stops reading at the 16 MiB cap', async () => {
    const s = await server([{ kind: 'big', status: 200, bytes: 20 * 1024 * 1024 }]);
    const r = await cli(s, [...LIST, '--max-retries', '0']);
    expect(r.exitCode).toBe(1);
    oneClearError(r, /^error: response body exceeds 16 MiB; refusing to buffer it$/);
    expect(s.requests()).toHaveLength(1);
  });

  it('20 MiB with a Content-Length on a POST: exit 1, sent once, and told the pet may exist', async () => {
    const s = await server([{ kind: 'big', status: 201, bytes: 20 * 1024 * 1024, declareLength: true }]);
    const r = await cli(s, ADD);
    expect(r.exitCode).toBe(1);
    oneClearError(
      r,
      /^error: response body exceeds 16 MiB; refusing to buffer it; the pet may have been created: check before adding it again; run: petstore pets list$/,
    );
    expect(methods(s)).toEqual(['POST']);
  });
});

describe.concurrent('429 with an unusual Retry-After', () => {
  const limited = (retryAfter: string): Fault => json(429, { code: 'rate_limited', message: 'Too many requests', status: 429 }, { 'retry-after': retryAfter });

  /** Milliseconds between the first request and the retry, as the server saw them. */
  const gap = (s: FaultServer) => s.requests()[1]!.time - s.requests()[0]!.time;

  it('Retry-After: -5 counts as 0: retried at once', async () => {
    const s = await server([limited('-5'), json(200, [PET])]);
    const r = await cli(s, [...LIST, '--max-retries', '1', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(s.requests()).toHaveLength(2);
    expect(gap(s)).toBeLessThan(900);
  });

  it('Retry-After: abc falls back to exponential backoff (first retry within 1 s)', async () => {
    const s = await server([limited('abc'), json(200, [PET])]);
    const r = await cli(s, [...LIST, '--max-retries', '1', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(s.requests()).toHaveLength(2);
    expect(gap(s)).toBeLessThan(1000 + 900);
  });

  it('Retry-After: 99999999 exceeds --max-wait: exit 6 at once, naming the value (more than a day: no reset time believed), nothing resent', async () => {
    const s = await server([limited('99999999'), json(200, [PET])]);
    const r = await cli(s, [...LIST, '--max-wait', '5']);
    expect(r.exitCode).toBe(6);
    oneClearError(
      r,
      /^error: rate limited: the server asked to wait \d+s before the next request \(Retry-After: 99999999\), more than a day, longer than --max-wait 5s and than any rate-limit window; try again later; if it persists, the server is misconfigured$/,
    );
    expect(s.requests()).toHaveLength(1);
    expect(r.ms).toBeLessThan(4000);
  });

  it('Retry-After: a date in the past counts as 0: retried at once', async () => {
    const s = await server([limited('Wed, 21 Oct 2015 07:28:00 GMT'), json(200, [PET])]);
    const r = await cli(s, [...LIST, '--max-retries', '1', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(s.requests()).toHaveLength(2);
    expect(gap(s)).toBeLessThan(900);
  });

  it('a 429 on POST was not processed, so it is retried after Retry-After and created once', async () => {
    const s = await server([limited('0'), json(201, PET)]);
    const r = await cli(s, [...ADD, '--max-retries', '1', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(methods(s)).toEqual(['POST', 'POST']);
  });

  it('still 429 after the last retry: exit 6 with when the limit resets', async () => {
    const s = await server([limited('0')]);
    const r = await cli(s, [...LIST, '--max-retries', '1']);
    expect(r.exitCode).toBe(6);
    oneClearError(r, /^error: rate limited: still limited after 1 retry; the limit resets at \d\d:\d\d:\d\d \(in \d+s\)/);
    expect(s.requests()).toHaveLength(2);
  });
});

// Redirects (never followed; the key never reaches the target) are in security.test.ts.
