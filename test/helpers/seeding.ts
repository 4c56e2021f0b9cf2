import { listenOnLoopback } from './loopback.js';
// Helpers for the end-to-end tests that stop a seeding run (`pets add --file`) the hard way and
// continue it: records to seed, `petstore` on PATH as a user has it, the journal as a test sees it
// while the run goes on, the sandbox's pets counted by name, and a proxy that holds chosen requests.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { execa } from 'execa';
import { parseJson } from '../../src/json/int64.js';
import type { SandboxHandle } from '../../src/sandbox/server.js';
import { BIN, type CliResult } from './cli.js';

export interface SeedRecord {
  line: number;
  name: string;
  categoryId: number;
}

/** n records `<prefix>-1`..`<prefix>-n` (categoryId = the number), one per line from line 1. */
export function seedRecords(prefix: string, n: number): SeedRecord[] {
  return Array.from({ length: n }, (_, i) => ({ line: i + 1, name: `${prefix}-${i + 1}`, categoryId: i + 1 }));
}

/** Writes the records as NDJSON (line N = record N). */
export function writeNdjson(path: string, records: SeedRecord[]): string {
  writeFileSync(path, records.map((r) => `{"name":"${r.name}","categoryId":${r.categoryId}}\n`).join(''));
  return path;
}

/** Writes the records as CSV with a header (record N is on file line N + 1; the CLI numbers records by input line). */
export function writeCsv(path: string, records: SeedRecord[]): string {
  writeFileSync(path, `name,categoryId,status\n${records.map((r) => `${r.name},${r.categoryId},available\n`).join('')}`);
  return path;
}

/**
 * A folder holding `petstore`: a small script that runs the built CLI on this test's Node, as an
 * installed petstore would be on a user's PATH. Returns the folder.
 */
export function petstoreOnPath(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  writeFileSync(join(bin, 'petstore'), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(BIN)} "$@"\n`);
  chmodSync(join(bin, 'petstore'), 0o755);
  return bin;
}

/** Runs a command line with bash, `petstore` found on PATH through pathDir; clean environment plus env. */
export async function bash(
  command: string,
  opts: { pathDir: string; env: Record<string, string>; cwd?: string; timeoutMs?: number },
): Promise<CliResult & { signal: string | undefined }> {
  const r = await execa('bash', ['-c', command], {
    env: { PATH: `${opts.pathDir}:${process.env.PATH}`, ...opts.env },
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    stdin: 'ignore',
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    timeout: opts.timeoutMs ?? 25_000,
  });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1, signal: r.signal };
}

export interface JournalLine {
  line?: number;
  status?: string;
  pet?: { name: string };
  record?: { name: string; categoryId: bigint | number };
  journal?: string;
  target?: string;
  finished?: string;
}

export interface JournalView {
  /** Every whole line, parsed, in file order (a torn last line, killed mid-write, is left out). */
  entries: JournalLine[];
  /** Each input line's last word. */
  lastWord: Map<number, string>;
  /** Outcome lines (anything about a record but `sending`). */
  outcomes: number;
  /** Bytes of whole lines. */
  bytes: number;
}

/** The journal as it is on disk now; an empty view while it does not exist yet. */
export function readJournalNow(path: string): JournalView {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const whole = text.slice(0, text.lastIndexOf('\n') + 1);
  const entries = whole
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => parseJson(l) as JournalLine);
  const lastWord = new Map<number, string>();
  let outcomes = 0;
  for (const e of entries) {
    if (e.line === undefined || e.status === undefined) continue;
    lastWord.set(e.line, e.status);
    if (e.status !== 'sending') outcomes++;
  }
  return { entries, lastWord, outcomes, bytes: Buffer.byteLength(whole) };
}

/** Input lines whose last word in the journal is `status`, ascending. */
export function linesWith(view: JournalView, status: string): number[] {
  return [...view.lastWord]
    .filter(([, s]) => s === status)
    .map(([line]) => line)
    .sort((a, b) => a - b);
}

/** Polls probe (every few ms, no fixed sleeps) until it returns something truthy; fails naming what was awaited. */
export async function until<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 4));
  }
}

/** How many pets of each name the sandbox stores (its own view: no paging through GET /pets). */
export function storedByName(sb: SandboxHandle): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of sb.pets()) counts.set(p.name, (counts.get(p.name) ?? 0) + 1);
  return counts;
}

/** Result lines (NDJSON text), parsed. */
export function resultLines(text: string): JournalLine[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => parseJson(l) as JournalLine);
}

interface HeldRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  res: ServerResponse;
  name: string | undefined;
}

export interface HoldingProxy {
  /** http://127.0.0.1:<port>/v1: the base URL the CLI is given. */
  baseUrl: string;
  /** Holds the POST of the record with this name (until release()). */
  holdName(name: string): void;
  /** From now on, holds every request that arrives (until release()). */
  holdEverything(): void;
  /** Names of the records whose requests are held now. */
  held(): string[];
  /** Requests passed on to the sandbox whose answer has not come back yet. */
  forwarding(): number;
  /**
   * Ends the holding. 'forward': the held requests go to the sandbox now, whether or not their client
   * is still there (the server processes what reached it), resolved once the sandbox has answered
   * them all. 'drop': their connections are closed; they never reach the sandbox.
   */
  release(how: 'forward' | 'drop'): Promise<void>;
  close(): Promise<void>;
}

/**
 * A tiny reverse proxy in front of the sandbox that holds chosen requests (by the record name in a
 * POST body, or everything from a moment on) for as long as the test wants, while the others flow.
 */
export async function startHoldingProxy(upstream: string): Promise<HoldingProxy> {
  const target = new URL(upstream);
  const names = new Set<string>();
  let everything = false;
  let held: HeldRequest[] = [];
  let forwarding = 0;

  const forward = (h: HeldRequest): Promise<void> => {
    forwarding++;
    return new Promise((resolve) => {
      const done = () => {
        forwarding--;
        resolve();
      };
      const up = httpRequest({ host: target.hostname, port: target.port, method: h.method, path: h.url, headers: h.headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          if (!h.res.destroyed) {
            try {
              h.res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
            } catch {
              // The client left meanwhile.
            }
          }
          done();
        });
        answer.on('error', () => {
          h.res.destroy();
          done();
        });
      });
      up.on('error', () => {
        h.res.destroy();
        done();
      });
      up.end(h.body);
    });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let name: string | undefined;
      try {
        name = (JSON.parse(body.toString('utf8')) as { name?: string }).name;
      } catch {
        name = undefined;
      }
      const h: HeldRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body, res, name };
      if (everything || (name !== undefined && names.has(name))) held.push(h);
      else void forward(h);
    });
  });
  const lb = await listenOnLoopback(server);
  const { port } = lb;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    holdName: (name) => names.add(name),
    holdEverything: () => {
      everything = true;
    },
    held: () => held.map((h) => h.name ?? '?'),
    forwarding: () => forwarding,
    async release(how) {
      names.clear();
      everything = false;
      const now = held;
      held = [];
      if (how === 'drop') {
        for (const h of now) h.res.socket?.destroy();
        return;
      }
      await Promise.all(now.map(forward));
    },
    close: lb.close,
  };
}

/** The sandbox's pets named `<prefix>-…`, sorted: each record created exactly once shows once. */
export function storedNames(sb: SandboxHandle, prefix: string): string[] {
  return sb
    .pets()
    .map((p) => p.name)
    .filter((n) => n.startsWith(`${prefix}-`))
    .sort();
}

/** `<prefix>-1` … `<prefix>-n`, sorted as storedNames sorts. */
export function expectedNames(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`).sort();
}
