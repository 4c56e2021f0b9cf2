import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';

let sb: SandboxHandle | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

describe('a client that leaves while its request waits', () => {
  it('is let go: nothing stored, nothing left in flight, close() does not hang', async () => {
    sb = await startSandbox({ keys: ['k'], latencyMs: 200 });
    const { port } = sb;
    await new Promise<void>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/pets',
        headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      });
      req.on('error', () => resolve());
      req.end('{"name":"Gone","categoryId":1}');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    while (sb.stats().inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    expect(sb.pets()).toEqual([]);
    await sb.close();
  });
});
