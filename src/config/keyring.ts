// The OS credential store through @napi-rs/keyring. Its calls block their thread (a Secret Service session waits
// on D-Bus, unbounded), so each runs in a worker thread that alone loads the binding: a timer can end a store that
// never answers, and commands that need no key never load it.
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { AuthError, InterruptedError } from '../errors/errors.js';
import type { Clock } from '../time/clock.js';

/** The service every entry is filed under; the account names the environment and its base URL. */
export const KEYRING_SERVICE = 'petstore';

export function keyringAccount(envName: string, baseUrl: string | undefined): string {
  return baseUrl ? `${envName} (${baseUrl})` : envName;
}

/** The store cannot be used (none, locked, no answer within the bound); the message says why. */
export class KeyringUnavailableError extends AuthError {}

// CommonJS run by the worker. On Linux only the Secret Service: the kernel keyring the binding would
// fall back to forgets keys at logout and is refused in most containers.
const WORKER = `
const { parentPort, workerData: w } = require('node:worker_threads');
try {
  const { Entry } = require(w.binding);
  parentPort.postMessage('loaded');
  const entry = new Entry(w.service, w.account, { linux: { store: 'secret-service' } });
  const value = w.op === 'get' ? entry.getPassword() : w.op === 'set' ? entry.setPassword(w.password) : entry.deleteCredential();
  parentPort.postMessage({ value: value === undefined ? null : value });
} catch (error) {
  parentPort.postMessage({ error: String((error && error.message) || error) });
}`;

export interface KeyringOptions {
  clock: Clock;
  /** How long a call may take before the store counts as unusable. */
  timeoutMs: number;
  /** Called once a call has taken a second (a person may have to unlock the store). */
  onSlow?: (() => void) | undefined;
  signal?: AbortSignal | undefined;
  /** A private folder where a single executable writes the binding it carries (scripts/package.mjs). */
  bindingDir?: string | undefined;
}

/** The binding's file: the package's from node_modules, or the one a single executable carries, written once to `dir`. */
function bindingFile(dir: string | undefined): string {
  const sea = process.getBuiltinModule('node:sea');
  if (!sea.isSea()) return createRequire(import.meta.url).resolve('@napi-rs/keyring');
  const bytes = new Uint8Array(sea.getAsset('keyring.node'));
  if (dir === undefined) throw new Error('no folder for the keyring binding');
  const { createHash } = process.getBuiltinModule('node:crypto');
  const file = join(dir, `keyring-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.node`);
  if (!existsSync(file)) {
    writeFileSync(`${file}.${process.pid}`, bytes, { mode: 0o700 });
    renameSync(`${file}.${process.pid}`, file);
  }
  return file;
}

/** What a store that did not answer in time gets called, whether the bound or D-Bus's own timeout (2 s in the Secret Service client) ended the wait. */
const noAnswer = (ms: number): string => `no answer within ${Math.max(1, Math.floor(ms / 1000))} s`;

type Request = { op: 'get' } | { op: 'set'; password: string } | { op: 'delete' };
type Answer = { value: string | boolean | null } | { error: string };

export class Keyring {
  // A store that failed once in this run is not asked again (auth status --all asks for every environment).
  #failed: KeyringUnavailableError | undefined;

  constructor(private readonly opts: KeyringOptions) {}

  async get(account: string): Promise<string | undefined> {
    const value = await this.#call(account, { op: 'get' });
    return typeof value === 'string' ? value : undefined;
  }

  async set(account: string, password: string): Promise<void> {
    await this.#call(account, { op: 'set', password });
  }

  async delete(account: string): Promise<void> {
    await this.#call(account, { op: 'delete' });
  }

  async #call(account: string, request: Request): Promise<string | boolean | null> {
    if (this.#failed) throw this.#failed;
    const { clock, timeoutMs, onSlow, signal } = this.opts;
    if (signal?.aborted) throw new InterruptedError();
    let binding: string;
    try {
      binding = bindingFile(this.opts.bindingDir);
    } catch {
      throw new KeyringUnavailableError('@napi-rs/keyring is not installed', { code: 'keyring_unavailable' });
    }
    const done = new AbortController();
    // Loaded here: node:worker_threads costs every start-up that imports this module (env list) otherwise.
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    const worker = new Worker(WORKER, { eval: true, workerData: { binding, service: KEYRING_SERVICE, account, ...request } });
    // The bound starts once the binding is loaded: it measures the store, not a busy machine starting a thread.
    let loadedAt = clock.now();
    const answer = new Promise<Answer>((resolve) => {
      worker.on('message', (message: Answer | 'loaded') => {
        if (message !== 'loaded')
          resolve('error' in message && /Did not receive a reply/.test(message.error) ? { error: noAnswer(clock.now() - loadedAt) } : message);
        else {
          loadedAt = clock.now();
          clock.sleep(timeoutMs, done.signal).then(
            () => resolve({ error: noAnswer(timeoutMs) }),
            () => {},
          );
          if (onSlow) clock.sleep(1000, done.signal).then(onSlow, () => {});
        }
      });
      worker.once('error', (error) => resolve({ error: error.message }));
    });
    const interrupted = new Promise<never>((_, reject) =>
      signal?.addEventListener('abort', () => reject(new InterruptedError()), { once: true, signal: done.signal }),
    );
    try {
      const result = await Promise.race([answer, interrupted]);
      if ('value' in result) return result.value;
      this.#failed = new KeyringUnavailableError(result.error.replace(/^Platform failure: /, '').slice(0, 200), { code: 'keyring_unavailable' });
      throw this.#failed;
    } finally {
      done.abort();
      // A worker stuck in the store is left behind: it does not keep the process alive.
      worker.unref();
      void worker.terminate();
    }
  }
}
