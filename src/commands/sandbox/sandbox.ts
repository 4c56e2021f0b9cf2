import { CliError, UsageError } from '../../errors/errors.js';
import type { Factory } from '../../factory.js';
import { parseSandboxOptions, runSandbox, SandboxOptionError, SandboxStartError, type SandboxCommandOptions } from '../../sandbox/run.js';

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  let options: SandboxCommandOptions;
  try {
    options = parseSandboxOptions(opts);
  } catch (error) {
    if (error instanceof SandboxOptionError) throw new UsageError(error.message);
    throw error;
  }
  await run(f, options);
}

export async function run(f: Factory, options: SandboxCommandOptions): Promise<void> {
  try {
    await runSandbox(options, { stdout: f.io.stdout.stream, stderr: f.io.stderr.stream }, f.signal);
  } catch (error) {
    if (error instanceof SandboxStartError) throw new CliError('failure', error.message, { code: 'sandbox_start', cause: error });
    throw error;
  }
}
