// Environment names are data, not code paths: the names of Object.prototype's members are unknown until
// added, then ordinary environments; names outside the documented pattern are refused with one line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2e, type E2E } from '../helpers/e2e.js';

let t: E2E;
beforeAll(async () => {
  t = await e2e();
});
afterAll(() => t.close());

describe('environment names', () => {
  for (const name of ['constructor', 'hasownproperty']) {
    it.concurrent(`"${name}": unknown until added (exit 2, nothing changed), then an ordinary environment`, async () => {
      const use = await t.cli(['env', 'use', name]);
      expect(use.exitCode).toBe(2);
      expect(use.stderr).toMatch(new RegExp(`^error: unknown environment "${name}"`));
      const viaFlag = await t.cli(['--env', name, 'pets', 'list']);
      expect(viaFlag.exitCode).toBe(2);
      expect(viaFlag.stderr).toContain(`unknown environment "${name}"`);

      expect((await t.cli(['env', 'set', name, t.sb.baseUrl])).exitCode).toBe(0);
      const list = await t.cli(['--env', name, 'pets', 'list', '-o', 'json']);
      expect(list.exitCode, list.stderr).toBe(0);
      const shown = await t.cli(['env', 'list', '-o', 'json']);
      expect(JSON.parse(shown.stdout).map((e: { name: string }) => e.name)).toContain(name);
    });
  }

  it.concurrent.each(['__proto__', 'prototype!', 'Constructor', `a${'b'.repeat(32)}`, ''])('"%s" is refused with one line, exit 2', async (name) => {
    const r = await t.cli(['env', 'set', name, t.sb.baseUrl]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: /);
  });
});
