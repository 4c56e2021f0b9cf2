import { describe, expect, it } from 'vitest';
import { mockedCli } from '../../helpers/mock-api.js';

const cli = mockedCli();
const run = cli.run;

const TTY = { stdoutTTY: true, stderrTTY: true, env: { NO_COLOR: '1' } };
const pets = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `pet${i + 1}`, categoryId: 1, status: 'available' })));
const QUOTA = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 30) };
/** Every unsafe kind at once: OSC title, clear screen, C1 CSI, DEL, RLO, an isolate, tab and newline. */
const HOSTILE = 'a\u001b]0;pwned\u0007b\u001b[2J\u009b31m\u007f\u202egpj.exe\u2066\tx\ny';
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('--no-headers', () => {
  it('drops the header line of tables, TSV and CSV in every command that prints them', async () => {
    cli.api.on('GET', /^\/v1\/pets\?/, { status: 200, body: pets(1), headers: QUOTA });
    cli.api.on('GET', '/v1/pets/1', { status: 200, body: JSON.parse(pets(1))[0] });
    expect((await run(['pets', 'list', '--limit', '5', '--no-headers'])).stdout).toBe('1\tpet1\t1\tavailable\n');
    expect((await run(['pets', 'list', '--limit', '5', '--no-headers', '-o', 'csv'])).stdout).toBe('1,pet1,1,available\n');
    expect((await run(['pets', 'list', '--limit', '5', '--no-headers'], TTY)).stdout).toBe('1  pet1  1  available\n');
    expect((await run(['pets', 'get', '1', '--no-headers', '-o', 'csv'])).stdout).toBe('1,pet1,1,available\n');
    expect((await run(['env', 'list', '--no-headers'])).stdout).not.toContain('baseUrl');
    expect((await run(['env', 'show', '--no-headers', '-o', 'csv'])).stdout).not.toContain('baseUrl');
    const quota = await run(['quota', '--no-headers', '-o', 'csv']);
    expect(quota.stdout).toMatch(/^production,60,59,/);
    expect(quota.stdout.split('\n')).toHaveLength(2);
    // With headers (the default), the same commands print them.
    expect((await run(['pets', 'list', '--limit', '5', '-o', 'csv'])).stdout).toMatch(/^id,name,categoryId,status\n/);
  });

  it('is in the help of the commands that print data, and leaves JSON alone', async () => {
    for (const cmd of [['pets', 'list'], ['pets', 'get'], ['env', 'list'], ['auth', 'status'], ['quota']]) {
      expect((await run([...cmd, '--help'])).stdout).toContain('--no-headers');
    }
    cli.api.on('GET', /^\/v1\/pets\?/, { status: 200, body: pets(1) });
    expect((await run(['pets', 'list', '--limit', '5', '--no-headers', '-o', 'json'])).stdout).toBe(`${pets(1)}\n`);
  });
});

describe('-o json on a terminal', () => {
  it('is coloured only when colour is on: never with NO_COLOR, --no-color or TERM=dumb, and never piped, even with FORCE_COLOR', async () => {
    cli.api.on('GET', /^\/v1\/pets\?/, { status: 200, body: pets(1) });
    const ansi = /\u001b\[/;
    expect((await run(['pets', 'list', '--limit', '5', '-o', 'json'], { stdoutTTY: true })).stdout).toMatch(ansi);
    for (const [flags, env] of [
      [[], { NO_COLOR: '1' }],
      [['--no-color'], {}],
      [[], { TERM: 'dumb' }],
    ] as const) {
      const r = await run(['pets', 'list', '--limit', '5', '-o', 'json', ...flags], { stdoutTTY: true, env });
      expect(r.stdout).toBe(`${JSON.stringify(JSON.parse(pets(1)), null, 2)}\n`);
    }
    expect((await run(['pets', 'list', '--limit', '5', '-o', 'json'], { env: { FORCE_COLOR: '1' } })).stdout).toBe(`${pets(1)}\n`);
  });
});

describe('the "there may be more" hint of pets list', () => {
  it('shows on stderr on a terminal when a full page came back; never a total', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: pets(20) });
    const r = await run(['pets', 'list'], TTY);
    expect(r.stderr).toBe('Showing 20 pets; there may be more: use --limit (max 100)\n');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(21);
  });

  it('is dim with colour, and names --status at the maximum page', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: pets(100) });
    const r = await run(['pets', 'list', '--limit', '100'], { stdoutTTY: true, stderrTTY: true });
    expect(r.stderr).toBe('\u001b[2mShowing 100 pets, the most one request returns; there may be more: narrow the list with --status\u001b[22m\n');
  });

  it('is not shown for a short page, when piped, or with -q', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body: pets(5) });
    expect((await run(['pets', 'list', '--limit', '6'], TTY)).stderr).toBe('');
    expect((await run(['pets', 'list', '--limit', '5'], { env: {} })).stderr).toBe('');
    expect((await run(['pets', 'list', '--limit', '5'], { stdoutTTY: false, stderrTTY: true })).stderr).toBe('');
    expect((await run(['-q', 'pets', 'list', '--limit', '5'], TTY)).stderr).toBe('');
    expect((await run(['pets', 'list', '--limit', '5'], TTY)).stderr).toContain('Showing 5 pets');
  });
});

describe('server data on a terminal is escaped in every format; piped, the data formats are exact', () => {
  const body = JSON.stringify([{ id: 1, name: HOSTILE, categoryId: 2 }]);

  it.each([['table'], ['csv'], ['json'], ['ndjson']])('-o %s', async (format) => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 200, body });
    const tty = await run(['pets', 'list', '-o', format], { stdoutTTY: true });
    expect(tty.exitCode).toBe(0);
    // Colour codes are ours; none of the data's own controls remain.
    expect(tty.stdout.replace(/\u001b\[\d+m/g, '')).not.toMatch(UNSAFE);
    if (format === 'json' || format === 'ndjson') {
      expect(JSON.parse(tty.stdout.replace(/\u001b\[\d+m/g, ''))).toEqual(format === 'json' ? JSON.parse(body) : JSON.parse(body)[0]);
    } else {
      expect(tty.stdout).toContain('a\\x1b]0;pwned\\x07b\\x1b[2J\\x9b31m\\x7f\\u202egpj.exe\\u2066\\tx\\ny');
    }
    const piped = await run(['pets', 'list', '-o', format]);
    if (format === 'json') expect(piped.stdout).toBe(`${body}\n`);
    if (format === 'ndjson') expect(piped.stdout).toBe(`${JSON.stringify(JSON.parse(body)[0])}\n`);
    if (format === 'csv') expect(piped.stdout).toBe(`id,name,categoryId,status\n1,"${HOSTILE}",2,\n`);
    // Piped tables are TSV: one line per record, escaped as on a terminal.
    if (format === 'table')
      expect(piped.stdout).toBe(`id\tname\tcategoryId\tstatus\n1\ta\\x1b]0;pwned\\x07b\\x1b[2J\\x9b31m\\x7f\\u202egpj.exe\\u2066\\tx\\ny\t2\t\n`);
  });

  it('petstore api: the body and the -i headers on a terminal; the bytes as sent when piped', async () => {
    cli.api.on('GET', '/v1/pets', { status: 200, body, headers: { 'x-note': 'ok\u001b[2Jevil\u009b' } });
    cli.api.on('GET', '/v1/text', { status: 200, body: `line1\n${HOSTILE}`, headers: { 'content-type': 'text/plain' } });
    const json = await run(['api', '/pets', '-i'], { stdoutTTY: true, stderrTTY: true });
    expect(json.stdout.replace(/\u001b\[\d+m/g, '')).not.toMatch(UNSAFE);
    expect(json.stdout).toContain('\\u001b]0;pwned\\u0007b');
    expect(json.stderr).toContain('x-note: ok\\x1b[2Jevil');
    expect(json.stderr.replace(/\n/g, '')).not.toMatch(UNSAFE);
    const text = await run(['api', '/text'], { stdoutTTY: true });
    expect(text.stdout).toBe('line1\na\\x1b]0;pwned\\x07b\\x1b[2J\\x9b31m\\x7f\\u202egpj.exe\\u2066\tx\ny\n');
    expect((await run(['api', '/text'])).stdout).toBe(`line1\n${HOSTILE}`);
  });

  it('an error quoting the server escapes it too', async () => {
    cli.api.on('GET', /^\/v1\/pets/, { status: 400, body: { code: 'bad', message: `no pet named ${HOSTILE}`, status: 400 } });
    const r = await run(['pets', 'list'], { stderrTTY: true });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.replace(/\u001b\[\d+m/g, '')).not.toMatch(UNSAFE);
    expect(r.stderr).toContain('\\u202egpj.exe');
    // With -o json the error is also a JSON object: escaped the JSON way on a terminal, exact in a pipe.
    const json = await run(['pets', 'list', '-o', 'json'], { stderrTTY: true, env: { NO_COLOR: '1' } });
    const object = json.stderr.split('\n')[1] as string;
    expect(object).not.toMatch(UNSAFE);
    expect(JSON.parse(object).error.message).toContain(`no pet named ${HOSTILE}`);
    const piped = await run(['pets', 'list', '-o', 'json']);
    expect(piped.stderr).toContain(JSON.stringify(`no pet named ${HOSTILE}`).slice(1, -1));
  });
});
