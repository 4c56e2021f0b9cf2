import type { Factory } from '../../factory.js';
import { parseSandboxOptions, runSandbox } from '../../sandbox/run.js';

export async function command(f: Factory, _args: string[], opts: Record<string, unknown>): Promise<void> {
  await runSandbox(parseSandboxOptions(opts), { stdout: f.io.stdout, stderr: f.io.stderr }, f.signal);
}
