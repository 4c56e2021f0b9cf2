// The documentation a newcomer reads: every relative link and #anchor in README.md, SECURITY.md, docs/
// and bench/README.md resolves (GitHub's anchor rules), the README stays short, and its exit-code table
// lists exactly the codes the CLI uses (src/errors/exit-codes.ts).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, SIGNAL_EXIT } from '../../src/errors/exit-codes.js';
import { anchors, markdownFiles, ROOT, relativeLinks, slug } from './markdown.js';

describe('GitHub anchors', () => {
  it('are the heading in lower case, punctuation and backticks dropped, spaces as hyphens', () => {
    expect(slug('A shared limiter (Redis)')).toBe('a-shared-limiter-redis');
    expect(slug('`petstore quota`')).toBe('petstore-quota');
    expect(slug('Seeding data: `pets add --file`')).toBe('seeding-data-pets-add---file');
    expect(slug('What was done, and what each step bought')).toBe('what-was-done-and-what-each-step-bought');
    expect([...anchors('# A\n## A\n```sh\n# not a heading\n```\n## A\n')]).toEqual(['a', 'a-1', 'a-2']);
  });
});

describe('links in the documentation', () => {
  const files = markdownFiles();
  const cache = new Map<string, Set<string>>();
  const anchorsOf = (file: string) => {
    let a = cache.get(file);
    if (!a) cache.set(file, (a = anchors(readFileSync(join(ROOT, file), 'utf8'))));
    return a;
  };

  it('covers the README, docs/ and bench/README.md', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'bench/README.md', 'docs/seeding.md', 'docs/commands/README.md']));
  });

  it.each(files)('%s: every relative link and #anchor resolves', (file) => {
    const broken: string[] = [];
    for (const link of relativeLinks(file)) {
      const [path = '', anchor] = link.target.split('#') as [string, string | undefined];
      const target = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
      const where = `${file}:${link.line} → ${link.target}`;
      if (target.startsWith('..') || !existsSync(join(ROOT, target))) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!target.endsWith('.md') || statSync(join(ROOT, target)).isDirectory()) {
        broken.push(`${where}: an anchor into a file that is not Markdown`);
      } else if (!anchorsOf(target).has(anchor)) {
        broken.push(`${where}: no heading "#${anchor}" in ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('README.md', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('is at most 12 KB: the rest belongs in docs/', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12 * 1024);
  });

  it('lists exactly the exit codes of src/errors/exit-codes.ts, in order', () => {
    const section = readme.slice(readme.indexOf('\n## Exit codes\n'));
    expect(section.length, 'a "## Exit codes" section').toBeLessThan(readme.length);
    const table = section.slice(0, section.indexOf('\n## ', 1));
    const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    const used = [...new Set([...Object.values(ExitCode), ...Object.values(SIGNAL_EXIT)])].sort((a, b) => a - b);
    expect(documented).toEqual(used);
  });

  it('tells how to run the tests: npm test, in a Development section', () => {
    const dev = readme.slice(readme.indexOf('\n## Development\n'));
    expect(dev).toMatch(/^npm test\b/m);
  });
});
