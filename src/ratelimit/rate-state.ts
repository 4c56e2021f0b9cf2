// The rate-limit state shared by every petstore process of one user:
// <configDir>/rate-state.json, 0600 in the 0700 config folder.
//
//   {"version":1,"keys":{"production:3f2a9c1d0b7e4a55":{
//      "quota":{"limit":60,"remaining":57,"resetAt":1767225600000,"seenAt":1767225558000},
//      "gateUntil":0,
//      "leases":{"4242.1.k3j2h1":1767225618000}}}}
//
// Keys are "<environment>:<first 16 hex digits of sha256(API key)>": never the key itself.
// Every change is a read-modify-write under a lock file (rate-state.json.lock, src/fs/lock.ts: a
// lock that is not petstore's, or whose process is gone, is broken at once, a live one after 5 s;
// the wait sleeps with backoff and ends with --timeout or a signal), and the new content replaces
// the file by rename, so readers never see half a file.
// The file is a cache: a corrupt one is ignored (a warning with --debug) and overwritten;
// if the folder cannot be written at all, the state stays in memory for this process.
// It is not fsynced: after a power loss it may be old or gone, which only costs a probe.
//
// Cost: a locked operation is a handful of file-system calls (about 0.6 ms on a local disk,
// mostly the rename); limiters with
// `batch` (src/ratelimit/limiter.ts) need one per block of requests, not two per request. In
// between they only look at the file (stamp(): a stat(2), and on Linux only after the folder's watch
// reported a change) to notice a gate another process saved.

import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { readFileSync, renameSync, statSync, unlinkSync, watch, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InterruptedError } from '../errors/errors.js';
import { FileLock } from '../fs/lock.js';
import { emptyState, type KeyRateState, type RateStateStore } from './limiter.js';
import type { Quota } from './quota.js';
import type { Clock } from '../time/clock.js';

export const RATE_STATE_FILE = 'rate-state.json';

/**
 * On Linux the folder is watched (inotify, through fs.watch), so a look at the file (stamp()) takes a
 * stat(2) only after something changed there, or once this often: a bulk run looked about once a
 * request, ~3 % of its CPU (issue #18, bench/README.md). inotify queues a rename as it happens, so the
 * event reaches this process on the event loop's next poll, which in a bulk run is the next answer's.
 * Elsewhere (macOS's FSEvents reports tens of milliseconds late), and when the folder cannot be
 * watched, every look stats.
 */
const WATCHED_STAT_MS = 50;
/** Looks before the folder is watched: the watch costs ~0.7 ms to start, a look (a stat) ~10 µs, and a command of a request or two looks a few times. */
const WATCH_AFTER_STATS = 64;

/**
 * "<env>:<16 hex of sha256(base URL, key)>": one limit per key on one server. The base URL is in
 * the hash because PETSTORE_BASE_URL can point an environment's name at another server (a sandbox),
 * whose limits have nothing to do with the real one's.
 */
export function rateStateKey(envName: string, baseUrl: string, apiKey: string): string {
  return `${envName}:${bytesToHex(sha256(utf8ToBytes(`${baseUrl}\n${apiKey}`))).slice(0, 16)}`;
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
  /** How long a watched folder's last stat stands without a change event (WATCHED_STAT_MS). */
  watchedStatMs?: number;
  /** How many stats before the folder is watched (WATCH_AFTER_STATS). */
  watchAfterStats?: number;
}

export class FileRateStateStore implements RateStateStore {
  readonly path: string;
  readonly lockPath: string;
  readonly #clock: Clock;
  readonly #debug: (line: string) => void;
  readonly #lock: FileLock;
  readonly #signal: AbortSignal | undefined;
  readonly #watchedStatMs: number;
  /** Stats left before the folder is watched. */
  #statsBeforeWatch: number;
  /** Set when the folder cannot be used: state lives here for the rest of the process. */
  #memory: FileContent | undefined;
  #warnedCorrupt = false;
  /** The last stat's fields and their stamp: an unchanged file's stamp is not written out again. */
  #statOf = [Number.NaN, Number.NaN, Number.NaN, Number.NaN];
  #stampOf = '';
  /** The folder's watch (WATCHED_STAT_MS): whether the file may have changed since the last stat, and when that was. */
  #watch: { changed: boolean; statAt: number } | 'off' | undefined;
  /** What the last stat said (stamp()'s answer while nothing changed). */
  #last = '';

  constructor(path: string, opts: FileStoreOptions) {
    this.path = path;
    this.lockPath = `${path}.lock`;
    this.#clock = opts.clock;
    this.#debug = opts.debug ?? (() => {});
    this.#signal = opts.signal;
    this.#watchedStatMs = opts.watchedStatMs ?? WATCHED_STAT_MS;
    this.#statsBeforeWatch = opts.watchAfterStats ?? WATCH_AFTER_STATS;
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

  /**
   * Identifies the file's current version from a stat(2): a rename (every write) gives a new inode
   * and change time. 'memory' once the state lives in this process only. Not a bigint stat: its
   * dozen BigInts cost more than the system call, and a change time in ms carries sub-microsecond
   * digits, finer than two writes can follow each other.
   */
  stamp(): string {
    const w = this.#watch;
    // Real time, whatever clock the limiter is given: the bound on a missed event is a real one.
    if (typeof w === 'object' && !w.changed && !this.#memory && Date.now() - w.statAt < this.#watchedStatMs) return this.#last;
    this.#last = this.#stat();
    return this.#last;
  }

  #stat(): string {
    if (this.#memory) return 'memory';
    const w = this.#watch;
    if (typeof w === 'object') {
      w.changed = false;
      w.statAt = Date.now();
    }
    try {
      const st = statSync(this.path, { throwIfNoEntry: false });
      if (!st) return 'none';
      if (w === undefined && --this.#statsBeforeWatch <= 0) this.#startWatch();
      // A bulk run stats once a millisecond, nearly always the same file: four numbers compared
      // instead of four made into text (a change time's float the dearest).
      const was = this.#statOf;
      if (st.ino === was[0] && st.ctimeMs === was[1] && st.mtimeMs === was[2] && st.size === was[3]) return this.#stampOf;
      this.#statOf = [st.ino, st.ctimeMs, st.mtimeMs, st.size];
      this.#stampOf = `${st.ino}:${st.ctimeMs}:${st.mtimeMs}:${st.size}`;
      return this.#stampOf;
    } catch {
      return 'unreadable';
    }
  }

  /** Watches the folder (Linux): see WATCHED_STAT_MS. Started once the file exists, so the folder does. */
  #startWatch(): void {
    if (process.platform !== 'linux') {
      this.#watch = 'off';
      return;
    }
    // Changed until the next stat: a change between the stat that found the file and the watch's start is seen.
    const state = { changed: true, statAt: 0 };
    const name = basename(this.path);
    try {
      const watcher = watch(dirname(this.path), { persistent: false }, (_event, file) => {
        if (file === null || file === name) state.changed = true;
      });
      watcher.on('error', () => {
        this.#watch = 'off';
        watcher.close();
      });
      this.#watch = state;
    } catch {
      this.#watch = 'off';
    }
  }

  async update<T>(key: string, change: (state: KeyRateState) => T, signal?: AbortSignal, saved?: (stamp: unknown) => void): Promise<T> {
    if (!this.#memory) {
      let locked: boolean;
      try {
        locked = await this.#lock.acquire(signal ?? this.#signal);
      } catch (error) {
        // Interrupted while another process holds the lock: the run is winding down, and what is
        // left to save (the leases, the last quota) goes to memory; the file's leases lapse.
        if (!(error instanceof InterruptedError)) throw error;
        locked = false;
      }
      if (locked) {
        let result: { value: T; changed: boolean; content: FileContent } | undefined;
        try {
          result = this.#apply(this.#read(), key, change);
          if (result.changed) this.#write(result.content);
          // Still under the lock: no other process's write can hide behind this stamp. A fresh one: the
          // watch reports this write only later.
          if (typeof this.#watch === 'object') this.#watch.changed = true;
          saved?.(this.stamp());
          return result.value;
        } catch (error) {
          // `change` has run: keep what it did, in memory (it must not run twice).
          if (error instanceof WriteFailed && result) {
            this.#toMemory(error, result.content);
            return result.value;
          }
          throw error;
        } finally {
          this.#lock.release();
        }
      }
    }
    this.#toMemory(undefined);
    const value = this.#apply(this.#memory!, key, change).value;
    saved?.('memory');
    return value;
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

  /**
   * Temp file + rename by hand, not write-file-atomic (tried, issue #13): every command that sends a
   * request writes here, and loading that library loads node:crypto and worker_threads (`pets list`
   * 60.4 -> 68.5 ms median, 40 interleaved runs); each locked update took ~2x as long (~230 -> ~480 us:
   * realpath, stat, chown, chmod, signal-exit hooks), seeding 5,000 records ~10 % slower. Its extras buy
   * nothing here: the lock serialises writers, and a temp file left by a crash is never read. No fsync,
   * on purpose: the file is a cache of server headers, and losing it in a crash costs one probe.
   */
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
