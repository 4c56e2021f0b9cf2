// startSandbox for the e2e suite: the real one, with every exchange held against openapi/petstore.yaml
// (test/helpers/contract.ts). close() fails naming the rules broken, so a test whose sandbox answered
// (or accepted) something the description does not allow fails with it.
import { startSandbox as start, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/server.js';
import { contractViolations } from './contract.js';

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const violations: string[] = [];
  const sb = await start({
    ...options,
    onRequest: (r) => {
      for (const v of contractViolations(r)) if (violations.length < 20) violations.push(v);
      options.onRequest?.(r);
    },
  });
  const close = sb.close;
  return Object.assign(sb, {
    close: async () => {
      await close();
      if (violations.length > 0) throw new Error(`the sandbox broke openapi/petstore.yaml:\n${violations.join('\n')}`);
    },
  });
}
