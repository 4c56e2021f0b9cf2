// What makes an API key unfit for `Authorization: Bearer <key>` (issue #15, item 5), and the trim.

import { describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { ConfigStore, type EnvEntry } from '../../../src/config/store.js';
import { checkKeyText, keyProblem, resolveKey } from '../../../src/config/target.js';
import { UsageError } from '../../../src/errors/errors.js';

describe('keyProblem / checkKeyText', () => {
  it.each([
    ['sk_live_abc123', undefined],
    ['a.b-c_d~e+f/g=', undefined],
    ['', 'it is empty'],
    ['ab\ncd', 'it contains a line break'],
    ['ab\rcd', 'it contains a line break'],
    ['ab cd', 'it contains a space or a tab'],
    ['ab\tcd', 'it contains a space or a tab'],
    ['ab\u0000cd', 'it contains a control character'],
    ['ab\u007fcd', 'it contains a control character'],
    ['ab\u00e9cd', 'it contains a non-ASCII character'],
    ['ab\u20accd', 'it contains a character outside Latin-1, which an HTTP header cannot carry'],
    ['ab\u{1f600}cd', 'it contains a character outside Latin-1, which an HTTP header cannot carry'],
  ])('%j: %s', (key, problem) => {
    expect(keyProblem(key)).toBe(problem);
  });

  it('trims, and names the source and the problem but never the key', () => {
    expect(checkKeyText('  sk_abc\r\n', 'PETSTORE_API_KEY')).toBe('sk_abc');
    const key = 'sk_secret_part_one\u0001sk_secret_part_two';
    let error: unknown;
    try {
      checkKeyText(key, 'PETSTORE_API_KEY');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/^invalid API key from PETSTORE_API_KEY: it contains a control character; nothing was sent/);
    expect((error as UsageError).message).not.toContain('secret');
  });
});

describe('resolveKey trims', () => {
  it('PETSTORE_API_KEY and the stored key alike; whitespace only counts as unset', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const dir = mkdtempSync(`${tmpdir()}/petstore-key-`);
    const config = new ConfigStore(dir);
    const key = (entry: EnvEntry, env: Record<string, string>) => resolveKey(config, 'production', entry, env);
    expect(await key({ apiKey: 'stored' }, { PETSTORE_API_KEY: ' env\n' })).toEqual({ apiKey: 'env', keySource: 'PETSTORE_API_KEY' });
    expect(await key({ apiKey: ' stored\n' }, {})).toEqual({ apiKey: 'stored', keySource: 'config' });
    expect(await key({ apiKey: 'stored' }, { PETSTORE_API_KEY: ' \n' })).toEqual({ apiKey: 'stored', keySource: 'config' });
    expect(await key({ apiKey: '  ' }, {})).toEqual({ apiKey: undefined, keySource: undefined });
    rmSync(dir, { recursive: true, force: true });
  });
});
