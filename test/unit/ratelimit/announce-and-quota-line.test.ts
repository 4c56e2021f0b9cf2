import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createWaitAnnouncer } from '../../../src/ratelimit/wait-announcer.js';
import { createIO } from '../../../src/io/io.js';
import { renderQuotaLine } from '../../../src/ratelimit/quota-line.js';
import { quotaTone } from '../../../src/ratelimit/quota.js';
import { FakeClock } from '../http/fake-clock.js';

function stderr(terminal: boolean) {
  const s = new PassThrough() as PassThrough & Record<string, unknown>;
  let text = '';
  s.on('data', (c: Buffer) => (text += c.toString()));
  if (terminal) {
    Object.assign(s, { isTTY: true, columns: 80, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  }
  return { s, text: () => text };
}

function io(terminal: boolean, quiet = false) {
  const err = stderr(terminal);
  const out = new PassThrough();
  const inp = new PassThrough();
  return { io: createIO({ stdout: out, stderr: err.s, stdin: inp, env: {}, quiet }), text: err.text };
}

const notice = (ms: number, until: number) => ({
  reason: 'rate_limited' as const,
  ms,
  until,
  text: (left: number) => `rate limited; retrying in ${Math.ceil(left / 1000)}s (attempt 1/3)`,
});

describe('wait announcements', () => {
  it('not a terminal: one plain line per wait', async () => {
    const { io: i, text } = io(false);
    const end = await createWaitAnnouncer({ io: i, clock: new FakeClock(), quiet: false })(notice(12_000, 0));
    expect(end).toBeUndefined();
    expect(text()).toBe('rate limited; retrying in 12s (attempt 1/3)\n');
  });

  it('--quiet: nothing', async () => {
    const { io: i, text } = io(true, true);
    await createWaitAnnouncer({ io: i, clock: new FakeClock(), quiet: true })(notice(12_000, 0));
    expect(text()).toBe('');
  });

  it('a terminal: a spinner that leaves the announcement when the wait ends', async () => {
    const { io: i, text } = io(true);
    const clock = new FakeClock();
    const end = await createWaitAnnouncer({ io: i, clock, quiet: false })(notice(3000, clock.now() + 3000));
    expect(typeof end).toBe('function');
    (end as () => void)();
    await new Promise((r) => setImmediate(r));
    expect(text()).toContain('rate limited; retrying in 3s (attempt 1/3)');
  });
});

describe('quota line', () => {
  it('text', () => {
    expect(renderQuotaLine({ limit: 60, remaining: 57, resetAt: 41_200, seenAt: 0 }, 0, false)).toBe('quota: 57/60 left, resets in 42s');
    expect(renderQuotaLine({ limit: 60, remaining: 0, resetAt: 0, seenAt: 0 }, 5000, false)).toBe('quota: 0/60 left, resets in 0s');
  });

  it('levels: red at 0, yellow under 10%, dim otherwise', () => {
    expect(quotaTone({ remaining: 0, limit: 60 })).toBe('red');
    expect(quotaTone({ remaining: 5, limit: 60 })).toBe('yellow');
    expect(quotaTone({ remaining: 6, limit: 60 })).toBeUndefined();
    expect(quotaTone({ remaining: 1, limit: 5 })).toBeUndefined();
    expect(quotaTone({ remaining: 0, limit: 0 })).toBe('red');
  });

  it('colours only when asked', () => {
    const q = (remaining: number) => ({ limit: 60, remaining, resetAt: 42_000, seenAt: 0 });
    expect(renderQuotaLine(q(57), 0, true)).toBe('\u001b[2mquota: 57/60 left, resets in 42s\u001b[22m');
    expect(renderQuotaLine(q(5), 0, true)).toBe('\u001b[33mquota: 5/60 left, resets in 42s\u001b[39m');
    expect(renderQuotaLine(q(0), 0, true)).toBe('\u001b[31mquota: 0/60 left, resets in 42s\u001b[39m');
    expect(renderQuotaLine(q(0), 0, false)).toBe('quota: 0/60 left, resets in 42s');
  });
});
