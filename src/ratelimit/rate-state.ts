// The rate-limit state shared by every petstore process of one user: <configDir>/rate-state.json,
// 0600 in the 0700 config folder, {"version":1,"keys":{"<key>":KeyRateState}} (key-state.ts).
// Keys are "<environment>:<16 hex of sha256(base URL, API key)>": never the key itself.
// Every change is a read-modify-write under a lock file (rate-state.json.lock, src/fs/lock.ts), and the
// new content replaces the file by rename, so readers never see half a file. The file is a cache: a
// corrupt one is ignored (a warning with --debug) and overwritten, and if the folder cannot be written
// the state stays in memory for this process. Not fsynced: losing it costs one probe.

import { createHash } from 'node:crypto';
import { readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InterruptedError } from '../errors/errors.js';
import { FileLock } from '../fs/lock.js';
import { emptyState, type KeyRateState, type RateStateStore } from './key-state.js';
import type { Quota } from './quota.js';
import type { Clock } from '../time/clock.js';

export const RATE_STATE_FILE = 'rate-state.json';

/**
 * "<env>:<16 hex of sha256(base URL, key)>": one limit per key on one server. The base URL is in the hash
 * because PETSTORE_BASE_URL can point an environment's name at another server (a sandbox).
 */
export function rateStateKey(envName: string, baseUrl: string, apiKey: string): string {
  return `${envName}:${createHash('sha256').update(`${baseUrl}\n${apiKey}`, 'utf8').digest('hex').slice(0, 16)}`;
}

export function rateStatePath(configDir: string): string {
  return join(configDir, RATE_STATE_FILE);
}

interface FileContent {
  version: 1;
  keys: Record<string, KeyRateState>;
}

/** Entries untouched this long are dropped. */
const FORGET_AFTER_MS = 7 * 24 * 3600 * 1000;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function decodeQuota(v: unknown): Quota | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const q = v as Record<string, unknown>;
  if (!isNum(q.limit) || !isNum(q.remaining) || !isNum(q.resetAt) || !isNum(q.seenAt)) return undefined;
  return { limit: q.limit, remaining: q.remaining, resetAt: q.resetAt, seenAt: q.seenAt };
}

function decodeState(v: unknown): KeyRateState | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const s = v as Record<string, unknown>;
  const state = emptyState();
  const quota = decodeQuota(s.quota);
  if (quota) state.quota = quota;
  if (isNum(s.gateUntil)) state.gateUntil = s.gateUntil;
  if (typeof s.leases === 'object' && s.leases !== null) {
    for (const [id, exp] of Object.entries(s.leases)) if (isNum(exp)) state.leases[id] = exp;
  }
  return state;
}

/** Parses the file; throws on anything that is not our format. */
export function decodeRateState(text: string): FileContent {
  const doc = JSON.parse(text) as unknown;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('the top level is not an object');
  const d = doc as Record<string, unknown>;
  if (d.version !== 1) throw new Error(`unsupported version ${JSON.stringify(d.version)}`);
  if (typeof d.keys !== 'object' || d.keys === null || Array.isArray(d.keys)) throw new Error('"keys" is not an object');
  const keys: Record<string, KeyRateState> = {};
  for (const [k, v] of Object.entries(d.keys)) {
    const s = decodeState(v);
    if (s) keys[k] = s;
  }
  return { version: 1, keys };
}

function lastActivity(s: KeyRateState): number {
  return Math.max(s.quota?.seenAt ?? 0, s.quota?.resetAt ?? 0, s.gateUntil, ...Object.values(s.leases));
}

export interface FileStoreOptions {
  clock: Clock;
  debug?: (line: string) => void;
  /** A lock held longer than this is considered abandoned. Default 5 s. */
  lockStaleMs?: number;
  /** First pause between lock attempts, doubling up to 50 ms. Default 5 ms (plus jitter). */
  lockPollMs?: number;
  /** Give up waiting for the lock after this long (--timeout). Default: wait until it goes stale. */
  lockTimeoutMs?: number;
  /** Stops a wait for the lock (Ctrl-C, SIGTERM) when update() is given no signal of its own. */
  signal?: AbortSignal | undefined;
}

export class FileRateStateStore implements RateStateStore {
  readonly path: string;
  readonly lockPath: string;
  readonly #clock: Clock;
  readonly #debug: (line: string) => void;
  readonly #lock: FileLock;
  readonly #signal: AbortSignal | undefined;
  /** Set when the folder cannot be used: state lives here for the rest of the process. */
  #memory: FileContent | undefined;
  #warnedCorrupt = false;

  constructor(path: string, opts: FileStoreOptions) {
    this.path = path;
    this.lockPath = `${path}.lock`;
    this.#clock = opts.clock;
    this.#debug = opts.debug ?? (() => {});
    this.#signal = opts.signal;
    this.#lock = new FileLock(this.lockPath, {
      clock: opts.clock,
      staleMs: opts.lockStaleMs ?? 5000,
      pollMs: opts.lockPollMs ?? 5,
      // A holder keeps it for about a millisecond: a waiter that backed off far would idle needlessly.
      maxPollMs: 50,
      ...(opts.lockTimeoutMs !== undefined ? { timeoutMs: opts.lockTimeoutMs } : {}),
      signal: opts.signal,
      debug: this.#debug,
    });
  }

  async get(key: string): Promise<KeyRateState | undefined> {
    const s = (this.#memory ?? this.#read()).keys[key];
    return s && structuredClone(s);
  }

  /** Every key's state (for diagnostics). */
  all(): Record<string, KeyRateState> {
    return structuredClone((this.#memory ?? this.#read()).keys);
  }

  /** The file's version from a stat(2): every write is a rename, so a new inode and change time. 'memory' once the state lives here. */
  stamp(): string {
    if (this.#memory) return 'memory';
    try {
      const st = statSync(this.path, { throwIfNoEntry: false });
      return st ? `${st.ino}:${st.ctimeMs}:${st.mtimeMs}:${st.size}` : 'none';
    } catch {
      return 'unreadable';
    }
  }

  async update<T>(key: string, change: (state: KeyRateState) => T, signal?: AbortSignal, saved?: (stamp: unknown) => void): Promise<T> {
    if (!this.#memory && (await this.#locked(signal))) {
      try {
        return this.#updateFile(key, change, saved);
      } finally {
        this.#lock.release();
      }
    }
    this.#toMemory(undefined);
    const value = this.#apply(this.#memory!, key, change).value;
    saved?.('memory');
    return value;
  }

  /** Takes the lock; false when the wait was interrupted (the run is winding down: what is left to save goes to memory). */
  async #locked(signal: AbortSignal | undefined): Promise<boolean> {
    try {
      return await this.#lock.acquire(signal ?? this.#signal);
    } catch (error) {
      if (error instanceof InterruptedError) return false;
      throw error;
    }
  }

  #updateFile<T>(key: string, change: (state: KeyRateState) => T, saved?: (stamp: unknown) => void): T {
    let result: { value: T; changed: boolean; content: FileContent } | undefined;
    try {
      result = this.#apply(this.#read(), key, change);
      if (result.changed) this.#write(result.content);
      // Still under the lock: no other process's write can hide behind this stamp.
      saved?.(this.stamp());
      return result.value;
    } catch (error) {
      // `change` has run: keep what it did, in memory (it must not run twice).
      if (!(error instanceof WriteFailed && result)) throw error;
      this.#toMemory(error, result.content);
      return result.value;
    }
  }

  #toMemory(error: Error | undefined, content?: FileContent): void {
    if (this.#memory) return;
    this.#debug(`cannot use ${this.path} (${error?.message ?? 'lock not available'}); rate-limit state stays in this process`);
    this.#memory = content ?? this.#read();
  }

  #apply<T>(content: FileContent, key: string, change: (state: KeyRateState) => T): { value: T; changed: boolean; content: FileContent } {
    const state = content.keys[key] ?? emptyState();
    const before = JSON.stringify(content.keys[key] ?? null);
    const value = change(state);
    const after = JSON.stringify(state);
    content.keys[key] = state;
    const now = this.#clock.now();
    let changed = before !== after;
    for (const [k, s] of Object.entries(content.keys)) {
      if (k !== key && now - lastActivity(s) > FORGET_AFTER_MS) {
        delete content.keys[k];
        changed = true;
      }
    }
    return { value, changed, content };
  }

  #read(): FileContent {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.#debug(`cannot read ${this.path}: ${(error as Error).message}`);
      return { version: 1, keys: {} };
    }
    try {
      return decodeRateState(text);
    } catch (error) {
      if (!this.#warnedCorrupt) {
        this.#warnedCorrupt = true;
        this.#debug(`warning: ignoring corrupt rate-limit state ${this.path} (${(error as Error).message}); it will be rewritten`);
      }
      return { version: 1, keys: {} };
    }
  }

  /** A temp file renamed over the file: the lock serialises writers, and a temp file left by a crash is never read. */
  #write(content: FileContent): void {
    const tmp = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
    try {
      writeFileSync(tmp, `${JSON.stringify(content)}\n`, { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch (error) {
      try {
        unlinkSync(tmp);
      } catch {
        // Never created.
      }
      throw new WriteFailed(`cannot write ${this.path}: ${(error as Error).message}`);
    }
  }
}

class WriteFailed extends Error {}
