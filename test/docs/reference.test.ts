// The generated command reference (docs/commands/, docs/petstore.1) matches the command tree: a command,
// flag, description or example changed in src/ without `npm run docs` fails here, naming the stale file.
// The man page also carries the README's exit-code table and docs/scripting.md's environment variables,
// so editing those tables means running `npm run docs` too.
// UPDATE_DOCS=1 (what `npm run docs` sets) writes the files instead, and removes pages of commands that
// no longer exist.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { ROOT } from './markdown.js';
import { COMMANDS_DIR, generatedFiles } from './reference.js';

const files = generatedFiles(buildProgram({ lazy: () => async () => {} }));
const update = !!process.env.UPDATE_DOCS;

if (update) {
  mkdirSync(join(ROOT, COMMANDS_DIR), { recursive: true });
  const wanted = new Set(files.map((f) => f.path));
  for (const name of readdirSync(join(ROOT, COMMANDS_DIR))) {
    if (!wanted.has(`${COMMANDS_DIR}/${name}`)) rmSync(join(ROOT, COMMANDS_DIR, name));
  }
  for (const f of files) {
    mkdirSync(dirname(join(ROOT, f.path)), { recursive: true });
    writeFileSync(join(ROOT, f.path), f.text);
  }
}

describe('the generated command reference', () => {
  it('has a page per command, an index and the man page', () => {
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'docs/commands/README.md',
        'docs/commands/petstore.md',
        'docs/commands/petstore_pets.md',
        'docs/commands/petstore_pets_list.md',
        'docs/petstore.1',
      ]),
    );
    expect(new Set(paths).size).toBe(paths.length);
  });

  it.each(files.map((f) => [f.path, f] as const))('%s is current (else run: npm run docs)', (path, f) => {
    const full = join(ROOT, path);
    expect(existsSync(full), `${path} is missing: run npm run docs`).toBe(true);
    const onDisk = readFileSync(full, 'utf8');
    if (onDisk !== f.text) expect.fail(`${path} is stale: the command tree changed; run npm run docs and commit the result`);
  });

  it(`${COMMANDS_DIR}/ holds no page of a command that no longer exists (else run: npm run docs)`, () => {
    const wanted = new Set(files.map((f) => f.path));
    const extra = readdirSync(join(ROOT, COMMANDS_DIR))
      .map((name) => `${COMMANDS_DIR}/${name}`)
      .filter((p) => !wanted.has(p));
    expect(extra).toEqual([]);
  });
});
