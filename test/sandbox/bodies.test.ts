// How the sandbox reads POST bodies: in pieces, with a byte order mark, and from clients that leave halfway.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';
import { call, sleep } from './helpers.js';

let sb: SandboxHandle | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

/** Sends `parts` as separate TCP writes, `gap` ms apart; resolves with what came back once the server closes or `end` is not asked. */
function raw(port: number, parts: Array<string | Uint8Array>, gap: number, leave = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d) => {
      got += d.toString();
      if (/\r\n\r\n[\s\S]*\}$/.test(got)) socket.end();
    });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
    void (async () => {
      for (const part of parts) {
        socket.write(part);
        await sleep(gap);
      }
      if (leave) socket.destroy();
    })();
  });
}

const head = (length: number) =>
  `POST /v1/pets HTTP/1.1\r\nhost: x\r\nauthorization: Bearer k\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\nconnection: close\r\n\r\n`;

describe('sandbox POST bodies', () => {
  it('a body that arrives in pieces is read whole', async () => {
    sb = await startSandbox({ keys: ['k'] });
    const body = '{"name":"Piecemeal","categoryId":7,"status":"sold"}';
    const answer = await raw(sb.port, [head(body.length), body.slice(0, 10), body.slice(10, 30), body.slice(30)], 20);
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(answer).toContain('{"id":1,"name":"Piecemeal","categoryId":7,"status":"sold"}');
    expect(sb.pets()).toEqual([{ id: 1n, name: 'Piecemeal', categoryId: 7n, status: 'sold' }]);
  });

  it('a UTF-8 byte order mark before the JSON is skipped, as a TextDecoder does', async () => {
    sb = await startSandbox({ keys: ['k'] });
    const r = await call(sb, 'POST', '/v1/pets', {
      body: new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"name":"été","categoryId":1}')]),
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(201);
    expect(sb.pets()).toEqual([{ id: 1n, name: 'été', categoryId: 1n }]);
  });

  it('a client that leaves halfway through its body: nothing stored, nothing left in flight, the next request answered', async () => {
    sb = await startSandbox({ keys: ['k'] });
    await raw(sb.port, [head(100), '{"name":"Half'], 30, true);
    for (let i = 0; i < 50 && sb.stats().inFlight > 0; i++) await sleep(20);
    expect(sb.stats().inFlight).toBe(0);
    expect(sb.pets()).toEqual([]);
    expect((await call(sb, 'GET', '/v1/pets')).status).toBe(200);
  });
});
