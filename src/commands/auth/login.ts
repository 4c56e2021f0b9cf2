import { KEYRING_SERVICE, keyringAccount } from '../../config/keyring.js';
import { keyProblem, maskKey, requireBaseUrl, resolveBaseUrl, resolveEnvName } from '../../config/target.js';
import { AuthError, CliError, InterruptedError, UsageError } from '../../errors/errors.js';
import type { Factory } from '../../factory.js';
import { bodyKind } from '../../api/errors.js';
import { checkKey } from '../../api/pets.js';
import { toPets } from '../../pets/pet.js';
import { readAll, readHidden } from '../../prompt/hidden.js';

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  await run(f, { verify: opts.verify !== false, insecureStorage: opts.insecureStorage === true });
}

const PIPE_HINT = 'pipe it instead (echo "$KEY" | petstore auth login) or set PETSTORE_API_KEY';

function keyOf(raw: string): string {
  const key = raw.trim();
  if (key.length === 0) throw new UsageError('no API key given: the input was empty', { code: 'empty_key' });
  const problem = keyProblem(key);
  if (problem !== undefined) {
    throw new UsageError(
      `invalid API key: ${problem}; a key that contains spaces, line breaks or non-ASCII characters cannot be sent in a header (expected a single token), nothing was stored`,
      { code: 'invalid_key' },
    );
  }
  return key;
}

async function readKey(f: Factory, question: string): Promise<string> {
  if (!f.io.stdinIsTTY) {
    const text = await readAll(f.io.stdin);
    if (text.trim() === '') {
      throw new UsageError(
        'no API key given: stdin is not a terminal, so there is no prompt, and it was empty; pipe the key (echo "$KEY" | petstore auth login) or set PETSTORE_API_KEY',
        { code: 'empty_key' },
      );
    }
    return keyOf(text);
  }
  if (!f.globals.input) throw new UsageError(`--no-input: not prompting for the API key; ${PIPE_HINT}`);
  if (!f.io.canPrompt) throw new UsageError(`cannot prompt for the API key: stderr is not a terminal; ${PIPE_HINT}`);
  return keyOf(await readHidden({ stdin: f.io.stdin, stderr: f.io.stderr.stream }, question, f.signal));
}

export async function run(f: Factory, options: { verify: boolean; insecureStorage: boolean }): Promise<void> {
  const config = await f.config();
  // Everything that can fail without the key fails before asking for it.
  const { envName, entry } = resolveEnvName(config, f.env, f.globals.env);
  // Verifying needs a URL: without one, the usage error naming the "env set" command. The old key is not read.
  const baseUrl = options.verify ? requireBaseUrl(entry, f.env, envName).url : resolveBaseUrl(entry, f.env, envName)?.url;
  const where = `${envName}${baseUrl ? ` (${baseUrl})` : ''}`;
  const key = await readKey(f, `API key for ${where}: `);
  if (options.verify && baseUrl) await verify(f, envName, baseUrl, key);
  const stored = await config.setKey(envName, key, options.insecureStorage ? undefined : keyringAccount(envName, baseUrl));
  const place = stored.inKeyring ? 'the system keyring' : `${config.path} (mode 0600)`;
  if (stored.problem) f.info(`note: no usable system keyring (${stored.problem}), so the key goes to the config file`);
  if (stored.leftover) f.info(`warning: could not remove the old key from the system keyring (${KEYRING_SERVICE}: ${stored.leftover})`);
  f.info(
    `${options.verify ? `Logged in to ${where} with key ${maskKey(key)}` : `Stored key ${maskKey(key)} for ${where} without checking it`}; the key is in ${place}`,
  );
  if (f.env.PETSTORE_API_KEY) f.info('note: PETSTORE_API_KEY is set and overrides the stored key until you unset it');
}

async function verify(f: Factory, envName: string, baseUrl: string, key: string): Promise<void> {
  const client = await f.clientFor({ envName, baseUrl }, key);
  const res = await checkKey(client).catch((error: unknown) => {
    if (error instanceof AuthError) {
      throw new AuthError(`the server did not accept the key, nothing was stored: ${error.message}`, {
        code: error.code,
        status: error.status,
        hint: `petstore auth login --env ${envName}`,
        cause: error,
      });
    }
    if (error instanceof CliError && !(error instanceof InterruptedError)) {
      f.info(`note: could not check the key, nothing was stored; to store it unchecked: petstore auth login --env ${envName} --no-verify`);
    }
    throw error;
  });
  // A 200 from a captive portal or a wrong URL is no proof: only the documented list of pets is.
  if (!toPets(res.json)) {
    throw new AuthError(
      `this does not look like the pet store API at ${baseUrl}: GET /pets answered ${bodyKind(res)} (HTTP ${res.status}); nothing was stored`,
      {
        code: 'not_pet_store',
        status: res.status,
        hint: `petstore env set ${envName} https://<host>/v1`,
      },
    );
  }
}
