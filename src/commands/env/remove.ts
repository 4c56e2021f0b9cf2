import { hasStoredKey, isBuiltin } from '../../config/store.js';
import { UsageError } from '../../errors/errors.js';
import type { Factory } from '../../factory.js';
import { confirm, noPromptReason } from '../../prompt/confirm.js';

export async function command(f: Factory, args: string[], opts: Record<string, unknown>): Promise<void> {
  await run(f, { name: args[0] ?? '', yes: opts.yes === true });
}

export async function run(f: Factory, options: { name: string; yes: boolean }): Promise<void> {
  const config = await f.config();
  const { name } = options;
  const entry = config.env(name);
  if (!entry) {
    const known = Object.keys(config.envs()).sort().join(', ');
    throw new UsageError(`unknown environment "${name}" (known: ${known}); nothing was removed`);
  }
  const builtin = isBuiltin(name);
  if (builtin && entry.baseUrl === undefined && !hasStoredKey(entry)) {
    f.info(`Built-in environment "${name}" has no base URL or stored key; nothing to remove (built-in environments always exist).`);
    return;
  }
  const url = entry.baseUrl ? ` (${entry.baseUrl})` : '';
  const key = hasStoredKey(entry) ? ' and its stored API key' : '';
  // Built-ins always exist: removing one forgets what was set for it, and it stays listed.
  const forgotten = [entry.baseUrl !== undefined ? 'its base URL' : '', hasStoredKey(entry) ? 'its stored API key' : ''].filter(Boolean).join(' and ');
  const what = builtin ? `reset built-in environment "${name}"${url}: forget ${forgotten}` : `remove environment "${name}"${url}${key}`;
  if (!options.yes) {
    if (!f.io.canPrompt) throw new UsageError(`refusing to ${what} without confirmation: pass --yes (${noPromptReason(f.io, f.globals.input)})`);
    const question = `${what[0]?.toUpperCase()}${what.slice(1)}?`;
    if (!(await confirm({ stdin: f.io.stdin, stderr: f.io.stderr.stream }, question, f.signal))) throw new UsageError('not confirmed; nothing was removed');
  }
  const { defaultReset } = await config.removeEnv(name);
  f.info(
    builtin ? `Reset built-in environment "${name}": no base URL, no stored key (built-in environments always exist).` : `Removed environment "${name}"${key}.`,
  );
  if (defaultReset)
    f.info(`"${name}" was the default environment; the default is now ${config.currentEnv()} (built-in). Choose another with: petstore env use <name>`);
  if (!builtin && f.env.PETSTORE_ENV === name) f.info(`note: PETSTORE_ENV=${name} is set in this shell and names it: unset PETSTORE_ENV`);
}
