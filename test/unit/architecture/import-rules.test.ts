// The import rules (.dependency-cruiser.cjs, run by `npm run lint:deps`) must fail on what they
// forbid: run them over a tiny tree with the project's layer names and one of each fault.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const work = tempDir('petstore-deprules-');
afterAll(() => work.cleanup());

function tree(files: Record<string, string>): string {
  const dir = join(work.dir, String(Object.keys(files).length) + Math.random().toString(36).slice(2));
  for (const [path, text] of Object.entries({ 'tsconfig.json': readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'), ...files })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** The rules' verdict on a tree: the violated rule names, [] when clean. */
function violations(dir: string): string[] {
  let out: string;
  try {
    out = execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'),
        'src',
        '--config',
        join(ROOT, '.dependency-cruiser.cjs'),
        '--output-type',
        'json',
      ],
      {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
  } catch (error) {
    // A violation also makes the exit code non-zero.
    out = (error as { stdout: string }).stdout;
  }
  const report = JSON.parse(out) as { summary: { violations: { rule: { name: string } }[] } };
  return report.summary.violations.map((v) => v.rule.name);
}

const main = "import './commands/pets/list.js';\n";

describe('import rules', () => {
  it('a tree that imports only downward passes', () => {
    const dir = tree({
      'src/main.ts': main,
      'src/commands/pets/list.ts': "import { listPets } from '../../api/pets.js';\nexport const run = listPets;\n",
      'src/api/pets.ts': "import type { ApiClient } from '../http/api-client.js';\nexport const listPets = (c: ApiClient) => c;\n",
      'src/http/api-client.ts': "import { first } from '../wire/headers.js';\nexport type ApiClient = { first: typeof first };\n",
      'src/wire/headers.ts': 'export const first = 1;\n',
    });
    expect(violations(dir)).toEqual([]);
  });

  it('an upward import fails, type-only imports included', () => {
    const dir = tree({
      'src/main.ts': main,
      'src/commands/pets/list.ts': "import { first } from '../../wire/headers.js';\nexport const run = first;\n",
      'src/wire/headers.ts': "import type { ApiClient } from '../http/api-client.js';\nexport const first = 1;\nexport type C = ApiClient;\n",
      'src/http/api-client.ts': 'export type ApiClient = { id: number };\n',
    });
    expect(violations(dir)).toContain('no-upward-from-errors');
  });

  it('an import loop fails, through a dynamic import too', () => {
    const dir = tree({
      'src/main.ts': main,
      'src/commands/pets/list.ts': "import { a } from '../../http/a.js';\nexport const run = a;\n",
      'src/http/a.ts': "export const a = () => import('./b.js');\n",
      'src/http/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
    });
    expect(violations(dir)).toContain('no-circular');
  });

  it("a deep import into a library's private files fails", () => {
    const dir = tree({
      'src/main.ts': "import Agent from 'undici/lib/dispatcher/agent.js';\nexport const a = Agent;\n",
      'package.json': '{"name":"fixture","dependencies":{"undici":"*"}}',
      'node_modules/undici/package.json': '{"name":"undici","main":"index.js"}',
      'node_modules/undici/index.js': "module.exports = require('./lib/dispatcher/agent.js');\n",
      'node_modules/undici/lib/dispatcher/agent.js': 'module.exports = class Agent {};\n',
    });
    expect(violations(dir)).toContain('no-private-library-files');
  });
});
