// The rate-limit state shared by every petstore process of one user: <configDir>/rate-state.json (0600), each
// change a read-modify-write under a lock file. A cache: a corrupt file is overwritten, an unwritable folder
// keeps the state in memory.

import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InterruptedError } from '../errors/errors.js';
import { FileLock } from '../fs/lock.js';
import { emptyState, type KeyRateState, type RateStateStore } from './key-state.js';
import { type Clock, MAX_WINDOW_MS } from '../time/clock.js';

/** "<env>:<16 hex of sha256(base URL, key)>", never the key: one limit per key on one server (PETSTORE_BASE_URL may differ). */
export function rateStateKey(envName: string, baseUrl: string, apiKey: string): string {
  return `${envName}:${createHash('sha256').update(`${baseUrl}\n${apiKey}`, 'utf8').digest('hex').slice(0, 16)}`;
}

export function rateStatePath(configDir: string): string {
  return join(configDir, 'rate-state.json');
}

interface FileContent {
  version: 1;
  keys: Record<string, KeyRateState>;
}

const FORGET_AFTER_MS = 7 * 24 * 3600 * 1000;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A gate or reset more than a day ahead would lock the key out: it is ignored. */
function believable(at: number, now: number, what: string, debug: (line: string) => void): boolean {
  if (at <= now + MAX_WINDOW_MS) return true;
  debug(`rate-limit state: ${what} ${at} (more than a day ahead) is ignored`);
  return false;
}

function decodeKey(v: Record<string, unknown>, now: number, debug: (line: string) => void): KeyRateState {
  const state = emptyState();
  const q = v.quota;
  if (
    isObject(q) &&
    isNum(q.limit) &&
    isNum(q.remaining) &&
    isNum(q.resetAt) &&
    isNum(q.seenAt) &&
    believable(q.resetAt, now, 'a quota window resetting at', debug)
  ) {
    state.quota = { limit: q.limit, remaining: q.remaining, resetAt: q.resetAt, seenAt: q.seenAt };
  }
  if (isNum(v.gateUntil) && believable(v.gateUntil, now, 'a gate until', debug)) state.gateUntil = v.gateUntil;
  if (isObject(v.leases)) for (const [id, exp] of Object.entries(v.leases)) if (isNum(exp)) state.leases[id] = exp;
  return state;
}

/** The file's content, each key's well-formed fields only; throws on another shape or version. */
function decodeRateState(text: string, now: number, debug: (line: string) => void): FileContent {
  const doc = JSON.parse(text) as unknown;
  if (!isObject(doc)) throw new Error('the top level is not an object');
  if (doc.version !== 1) throw new Error(`unsupported version ${JSON.stringify(doc.version)}`);
  if (!isObject(doc.keys)) throw new Error('"keys" is not an object');
  const keys: Record<string, KeyRateState> = {};
  for (const [k, v] of Object.entries(doc.keys)) if (isObject(v)) keys[k] = decodeKey(v, now, debug);
  return { version: 1, keys };
}

interface FileStoreOptions {
  clock: Clock;
  debug?: (line: string) => void;
  /** Give up waiting for the lock after this long (--timeout). Default: wait until it goes stale. */
  lockTimeoutMs?: number;
  /** Stops a wait for the lock (Ctrl-C). */
  signal?: AbortSignal | undefined;
}

export class FileRateStateStore implements RateStateStore {
  readonly path: string;
  readonly #clock: Clock;
  readonly #debug: (line: string) => void;
  readonly #lock: FileLock;
  /** Set when the folder cannot be used: the state lives here for the rest of the process. */
  #memory: FileContent | undefined;
  #warnedCorrupt = false;

  constructor(path: string, opts: FileStoreOptions) {
    this.path = path;
    this.#clock = opts.clock;
    this.#debug = opts.debug ?? (() => {});
    this.#lock = new FileLock(`${path}.lock`, {
      clock: opts.clock,
      staleMs: 5000,
      pollMs: 5,
      maxPollMs: 50, // a holder keeps it only briefly
      timeoutMs: opts.lockTimeoutMs,
      signal: opts.signal,
      debug: this.#debug,
    });
  }

  async get(key: string): Promise<KeyRateState | undefined> {
    const s = (this.#memory ?? this.#read()).keys[key];
    return s && structuredClone(s);
  }

  /** The file's version from a stat: every write is a rename, so a new inode and change time. */
  stamp(): string {
    if (this.#memory) return 'memory';
    try {
      const st = statSync(this.path, { throwIfNoEntry: false });
      return st ? `${st.ino}:${st.ctimeMs}:${st.mtimeMs}:${st.size}` : 'none';
    } catch {
      return 'unreadable';
    }
  }

  async update<T>(key: string, change: (state: KeyRateState) => T, saved?: (stamp: unknown) => void): Promise<T> {
    // A wait for the lock interrupted: the run winds down, what is left goes to memory.
    const locked = !this.#memory && (await this.#lock.acquire().catch((e: unknown) => (e instanceof InterruptedError ? false : Promise.reject(e))));
    if (!locked) {
      this.#toMemory();
      const { value } = this.#apply(this.#memory!, key, change);
      saved?.('memory');
      return value;
    }
    try {
      const content = this.#read();
      const { value, changed } = this.#apply(content, key, change);
      try {
        if (changed) this.#write(content);
      } catch (error) {
        // `change` has run: keep what it did, in memory (it must not run twice).
        this.#toMemory(error as Error, content);
        return value;
      }
      // Still under the lock: no other process's write can hide behind this stamp.
      saved?.(this.stamp());
      return value;
    } finally {
      this.#lock.release();
    }
  }

  #toMemory(error?: Error, content?: FileContent): void {
    if (this.#memory) return;
    this.#debug(`cannot use ${this.path} (${error?.message ?? 'lock not available'}); rate-limit state stays in this process`);
    this.#memory = content ?? this.#read();
  }

  #apply<T>(content: FileContent, key: string, change: (state: KeyRateState) => T): { value: T; changed: boolean } {
    const state = content.keys[key] ?? emptyState();
    const before = JSON.stringify(content.keys[key] ?? null);
    const value = change(state);
    const after = JSON.stringify(state);
    content.keys[key] = state;
    const now = this.#clock.now();
    let changed = before !== after;
    for (const [k, s] of Object.entries(content.keys)) {
      const lastActivity = Math.max(s.quota?.seenAt ?? 0, s.quota?.resetAt ?? 0, s.gateUntil, ...Object.values(s.leases));
      if (k !== key && now - lastActivity > FORGET_AFTER_MS) {
        delete content.keys[k];
        changed = true;
      }
    }
    return { value, changed };
  }

  #read(): FileContent {
    try {
      return decodeRateState(readFileSync(this.path, 'utf8'), this.#clock.now(), this.#debug);
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      if (code !== undefined && code !== 'ENOENT' && code !== 'ENOTDIR') this.#debug(`cannot read ${this.path}: ${message}`);
      if (code === undefined && !this.#warnedCorrupt) {
        this.#warnedCorrupt = true;
        this.#debug(`warning: ignoring corrupt rate-limit state ${this.path} (${message}); it will be rewritten`);
      }
      return { version: 1, keys: {} };
    }
  }

  /** A temp file renamed over the file: a temp file left by a crash is never read. */
  #write(content: FileContent): void {
    const tmp = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
    try {
      writeFileSync(tmp, `${JSON.stringify(content)}\n`, { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch (error) {
      rmSync(tmp, { force: true });
      throw new Error(`cannot write ${this.path}: ${(error as Error).message}`);
    }
  }
}
