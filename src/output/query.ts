// --query: a JMESPath expression applied to the JSON value a command prints (as the AWS and Azure CLIs do),
// loaded only with the flag and compiled by cli.ts first, so a broken expression is exit 2 with nothing sent.
import { UsageError } from '../errors/errors.js';

type Jmespath = typeof import('@jmespath-community/jmespath');

export interface Query {
  readonly text: string;
  /** The expression's result for `value` (int64s above 2^53 keep their exact digits); a failure is a usage error. */
  search(value: unknown): unknown;
}

function mapLeaves(value: unknown, leaf: (v: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => mapLeaves(v, leaf));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapLeaves(v, leaf)]));
  return leaf(value);
}

/** The library compares Numbers only: bigints go in as Numbers, and a result's Number of an int64 above 2^53 comes back exact (unless two such round to it). */
function searchExact(jp: Jmespath, text: string, value: unknown): unknown {
  const exact = new Map<number, bigint | null>();
  const input = mapLeaves(value, (v) => {
    if (typeof v !== 'bigint') return v;
    const n = Number(v);
    if (!Number.isSafeInteger(n)) exact.set(n, exact.has(n) && exact.get(n) !== v ? null : v);
    return n;
  });
  const result = jp.search(input as Parameters<Jmespath['search']>[0], text);
  return mapLeaves(result, (v) => (typeof v === 'number' ? (exact.get(v) ?? v) : v));
}

function functionNames(node: unknown): string[] {
  if (node === null || typeof node !== 'object') return [];
  const own = (node as { type?: unknown }).type === 'Function' ? [String((node as { name?: unknown }).name)] : [];
  return [...own, ...Object.values(node).flatMap(functionNames)];
}

/** The column (from 1) where the expression goes wrong: the token at which its shortest failing prefix fails the same way, or the end. */
function errorColumn(jp: Jmespath, text: string, message: string): number {
  const unknown = /^Unknown function: (\w+)/.exec(message);
  if (unknown) return text.search(new RegExp(`\\b${unknown[1]}\\s*\\(`)) + 1;
  if (/\bEOF\b/.test(message)) return text.length + 1;
  for (let p = 1; p <= text.length; p++) {
    try {
      jp.compile(text.slice(0, p));
    } catch (error) {
      if ((error as Error).message !== message) continue;
      try {
        return (jp.tokenize(text.slice(0, p)).at(-1)?.start ?? p - 1) + 1;
      } catch {
        return p;
      }
    }
  }
  return text.length + 1;
}

export async function compileQuery(text: string): Promise<Query> {
  const jp = await import('@jmespath-community/jmespath');
  try {
    const unknown = functionNames(jp.compile(text)).find((name) => !jp.isRegistered(name));
    if (unknown !== undefined) throw new Error(`Unknown function: ${unknown}()`);
  } catch (error) {
    const message = (error as Error).message;
    throw new UsageError(`invalid --query "${text}" at column ${errorColumn(jp, text, message)}: ${message.replace(/^Syntax error:\s*/i, '')}`, {
      hint: 'petstore help formatting',
    });
  }
  return {
    text,
    search(value) {
      try {
        return searchExact(jp, text, value);
      } catch (error) {
        throw new UsageError(`--query "${text}" failed on the data: ${(error as Error).message}`);
      }
    },
  };
}
