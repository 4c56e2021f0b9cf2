import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/errors.js';
import { parseDuration, parseSandboxOptions } from '../../src/sandbox/options.js';

describe('parseSandboxOptions', () => {
  it('has the documented defaults', () => {
    expect(parseSandboxOptions({})).toEqual({ host: '127.0.0.1', port: 4010, keys: [], plan: 'free', ban: true, log: false });
  });

  it('reads every flag as commander gives it', () => {
    const opts = parseSandboxOptions({
      host: 'localhost',
      port: '0',
      key: ['a', 'b', 'a'],
      plan: 'Pro',
      perMinute: '5',
      perDay: '100',
      window: '3s',
      dayWindow: '1m',
      data: 'pets.json',
      firstId: '9007199254740993',
      ban: false,
      banSeconds: '7',
      log: true,
    });
    expect(opts).toEqual({
      host: 'localhost',
      port: 0,
      keys: ['a', 'b'],
      plan: 'pro',
      perMinute: 5,
      perDay: 100,
      windowMs: 3000,
      dayWindowMs: 60_000,
      dataFile: 'pets.json',
      firstId: '9007199254740993',
      ban: false,
      banSeconds: 7,
      log: true,
    });
    expect(parseSandboxOptions({ key: 'single' }).keys).toEqual(['single']);
    expect(parseSandboxOptions({ port: 8080 }).port).toBe(8080);
  });

  it.each([
    [{ port: '99999' }, '--port'],
    [{ port: 'abc' }, '--port'],
    [{ port: '-1' }, '--port'],
    [{ plan: 'gold' }, '--plan'],
    [{ plan: 'enterprise' }, '--plan'],
    [{ firstId: 'abc' }, '--first-id'],
    [{ firstId: '0' }, '--first-id'],
    [{ firstId: '-5' }, '--first-id'],
    [{ firstId: '9223372036854775808' }, '--first-id'],
    [{ perMinute: '0' }, '--per-minute'],
    [{ perMinute: '1.5' }, '--per-minute'],
    [{ perDay: 'many' }, '--per-day'],
    [{ window: '3x' }, '--window'],
    [{ window: '0s' }, '--window'],
    [{ window: '0.1ms' }, '--window'],
    [{ dayWindow: 'forever' }, '--day-window'],
    [{ banSeconds: '0' }, '--ban-seconds'],
    [{ key: ['has space'] }, '--key'],
    [{ key: [''] }, '--key'],
    [{ host: '' }, '--host'],
    [{ data: '' }, '--data'],
  ])('rejects %o naming %s', (raw, flag) => {
    let error: unknown;
    try {
      parseSandboxOptions(raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(flag);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['3s', 3000],
    ['1.5s', 1500],
    ['1m', 60_000],
    ['24h', 86_400_000],
    ['1d', 86_400_000],
    ['2', 2000],
    [' 60S ', 60_000],
  ])('%s = %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});
