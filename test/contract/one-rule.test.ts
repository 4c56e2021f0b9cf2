// Change one rule of the description (the largest page) and both sides follow it: the CLI's --limit and the
// sandbox's limit check read the generated module, mocked here as `npm run contract` would write it from
// the changed YAML; and the staleness check notices the change.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { readContract, renderContract } from './generate.js';

const changed = readFileSync(new URL('../../openapi/petstore.yaml', import.meta.url), 'utf8').replace(/(name: limit[\s\S]*?maximum: )100/, '$150');

vi.mock('../../src/contract/petstore.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/contract/petstore.js')>();
  const { readContract } = await import('./generate.js');
  const { readFileSync } = await import('node:fs');
  const text = readFileSync(new URL('../../openapi/petstore.yaml', import.meta.url), 'utf8').replace(/(name: limit[\s\S]*?maximum: )100/, '$150');
  return { ...original, LIST_LIMIT: readContract(text).limit };
});

describe('one rule changed in openapi/petstore.yaml (limit maximum 100 -> 50)', () => {
  it('the generated module no longer matches: the staleness check fails until npm run contract', () => {
    expect(readContract(changed).limit.max).toBe(50);
    expect(renderContract(readContract(changed))).not.toBe(readFileSync(new URL('../../src/contract/petstore.ts', import.meta.url), 'utf8'));
  });

  it('the CLI and the sandbox both take the new maximum', async () => {
    const { parseLimit } = await import('../../src/flag-values.js');
    const { parseListQuery } = await import('../../src/sandbox/validate.js');
    expect(parseLimit('50')).toBe(50);
    expect(() => parseLimit('51')).toThrow(/1 to 50/);
    expect(parseListQuery('limit=50').limit).toBe(50);
    expect(() => parseListQuery('limit=51')).toThrow(/from 1 to 50/);
  });
});
