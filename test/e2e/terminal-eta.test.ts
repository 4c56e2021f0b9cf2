// The live seeding line's ETA on a real pseudo-terminal (issue #34, item 2): 200 records at 60 per 5 s,
// each ETA the line shows compared with the time the run actually took from then on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { E2E_KEY } from '../helpers/e2e.js';
import { hasScript, runOnPty } from '../helpers/pty.js';
import { startSandbox } from '../helpers/sandbox.js';

const tmp = tempDir('petstore-eta-');
afterAll(() => tmp.cleanup());

function seconds(text: string): number {
  const m = /^(?:(\d+)m)?(\d+)s$/.exec(text);
  return m ? Number(m[1] ?? 0) * 60 + Number(m[2]) : Number.NaN;
}

describe.skipIf(!hasScript)('the seeding ETA on a terminal', () => {
  it('200 records at 60 per 5 s: every ETA shown once the window is known is within 40 % of the time left', async () => {
    const sb = await startSandbox({ keys: [E2E_KEY], perMinute: 60, windowMs: 5000, perDay: 10_000_000 });
    const file = join(tmp.dir, 'pets.ndjson');
    writeFileSync(file, Array.from({ length: 200 }, (_, i) => `{"name":"eta-${i}","categoryId":${i}}\n`).join(''));
    try {
      const env = { PETSTORE_CONFIG_DIR: join(tmp.dir, 'cfg'), PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: E2E_KEY, HOME: tmp.dir };
      const r = await runOnPty(['pets', 'add', '--file', file, '--yes', '--results', join(tmp.dir, 'r.ndjson')], { env, timeoutMs: 60_000 });
      expect(r.exitCode, r.output).toBe(0);
      // The run's end: its summary replacing the live line (not the process's exit, which a loaded machine delays).
      const end = r.timeline.find((c) => c.text.includes('created 200'))?.at ?? r.exitedAt;
      const shown = r.timeline.flatMap(({ at, text }) => [...text.matchAll(/ETA (\S+)/g)].map((m) => ({ left: (end - at) / 1000, eta: m[1]! })));
      const numbers = shown.filter((s) => s.eta !== '?');
      expect(numbers.length, r.output).toBeGreaterThan(5);
      for (const { left, eta } of numbers) {
        // Whole seconds, rounded up: one second of slack above.
        expect(seconds(eta), `ETA ${eta} with ${left.toFixed(1)} s left`).toBeGreaterThanOrEqual(left * 0.6 - 0.5);
        expect(seconds(eta), `ETA ${eta} with ${left.toFixed(1)} s left`).toBeLessThanOrEqual(left * 1.4 + 1);
      }
      // "?" only in the first window, before the length of a window has been seen.
      const firstNumber = shown.findIndex((s) => s.eta !== '?');
      expect(
        shown.slice(firstNumber).filter((s) => s.eta === '?'),
        r.output,
      ).toEqual([]);
    } finally {
      await sb.close();
    }
  }, 90_000);

  it('the daily limit binding: the line says when the run will resume instead of an ETA', async () => {
    const sb = await startSandbox({ keys: [E2E_KEY], perMinute: 1000, perDay: 20, latencyMs: 30 });
    const file = join(tmp.dir, 'daily.ndjson');
    writeFileSync(file, Array.from({ length: 30 }, (_, i) => `{"name":"day-${i}","categoryId":${i}}\n`).join(''));
    try {
      const env = { PETSTORE_CONFIG_DIR: join(tmp.dir, 'cfg-day'), PETSTORE_BASE_URL: sb.baseUrl, PETSTORE_API_KEY: E2E_KEY, HOME: tmp.dir };
      const started = Date.now();
      const r = await runOnPty(['pets', 'add', '--file', file, '--yes', '--concurrency', '1', '--results', join(tmp.dir, 'day.ndjson')], {
        env,
        timeoutMs: 60_000,
      });
      // The sandbox's day starts at the key's first request: it resets a day later, shown to the minute.
      const shown = /seeding \d+\/30 \(\d+%\) · .* · daily limit: resumes tomorrow (\d\d:\d\d)/.exec(r.output)?.[1];
      const pad = (n: number) => String(n).padStart(2, '0');
      const local = (d: Date) => `${pad(d.getHours())}:${pad(d.getMinutes())}`;
      expect([local(new Date(started + 86_400_000)), local(new Date(started + 86_460_000))], r.output).toContain(shown);
      expect(r.exitCode, r.output).toBe(6);
    } finally {
      await sb.close();
    }
  }, 90_000);
});
