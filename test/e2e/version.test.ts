// `petstore --version` prints the version alone (bin/petstore answers it without loading the bundle);
// with --verbose, and `petstore version`, a second line names the commit and build date, as gh does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const SECOND_LINE = /^commit ([0-9a-f]{12}|unknown), built \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

describe('the version', () => {
  it.each([['--version'], ['-V']])('%s prints the version alone', async (flag) => {
    expect(await runCli([flag])).toEqual({ stdout: `${version}\n`, stderr: '', exitCode: 0 });
  });

  it.each([{ args: ['--version', '--verbose'] }, { args: ['--verbose', '--version'] }, { args: ['-v', '-V'] }, { args: ['version'] }])(
    '$args adds the commit and build date on a second line',
    async ({ args }) => {
      const r = await runCli(args);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      const [first, second, ...rest] = r.stdout.split('\n');
      expect(first).toBe(version);
      expect(second).toMatch(SECOND_LINE);
      expect(rest).toEqual(['']);
    },
  );
});
