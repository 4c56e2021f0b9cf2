import { ENV_NAME, hasStoredKey } from '../../config/store.js';
import { checkBaseUrl } from '../../config/target.js';
import type { Factory } from '../../factory.js';
import { UsageError } from '../../errors/errors.js';
import { confirm } from '../../prompt/confirm.js';

export async function command(f: Factory, args: string[], opts: Record<string, unknown> = {}): Promise<void> {
  const name = args[0] ?? '';
  if (!ENV_NAME.test(name)) {
    throw new UsageError(
      `invalid environment name "${name}": use 1 to 32 lower-case letters, digits, "-" or "_", starting with a letter (e.g. staging, eu-west)`,
    );
  }
  const { url, warning } = checkBaseUrl(args[1] ?? '');
  await run(f, { name, baseUrl: url, warning, yes: opts.yes === true });
}

export async function run(f: Factory, options: { name: string; baseUrl: string; warning: string | undefined; yes: boolean }): Promise<void> {
  const config = await f.config();
  const { name, baseUrl } = options;
  const before = config.env(name);
  // A key goes to whatever server the URL names: one stored for the old server, sent to a new one, leaks.
  const moved = hasStoredKey(before) && before?.baseUrl !== undefined && before.baseUrl !== baseUrl;
  const question = `Environment "${name}" has a stored API key for ${before?.baseUrl}. Keep it for ${baseUrl}? (No removes it)`;
  const dropKey = moved && !options.yes && f.io.canPrompt && !(await confirm({ stdin: f.io.stdin, stderr: f.io.stderr.stream }, question, f.signal));
  await config.setBaseUrl(name, baseUrl, { dropKey });
  const what = before === undefined ? 'Added' : before.baseUrl === undefined ? 'Set' : before.baseUrl === baseUrl ? 'Kept' : 'Updated';
  f.info(`${what} environment "${name}": ${baseUrl}`);
  if (dropKey) f.info(`Removed the stored API key of "${name}"; store one for the new URL with: petstore auth login --env ${name}`);
  else if (moved) {
    f.info(`warning: the stored API key of "${name}" stays and will be sent to ${baseUrl}; if it is not for that server: petstore auth logout --env ${name}`);
  }
  if (options.warning) f.info(options.warning);
  if (config.currentEnv() !== name) f.info(`To make it the default: petstore env use ${name}`);
}
