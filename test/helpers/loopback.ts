import { type AddressInfo, connect, type Server, type Socket } from 'node:net';

export interface Loopback {
  port: number;
  /** Also destroyed by close(): a socket the server did not accept (an upstream connection). */
  track(socket: Socket): void;
  /** Destroys every open socket, then closes the server. */
  close(): Promise<void>;
}

/** Starts a test server on 127.0.0.1 at an ephemeral port, tracking its connections so close() never waits on one. */
export async function listenOnLoopback(server: Server): Promise<Loopback> {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  server.on('connection', track);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    track,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What a connection to 127.0.0.1:port meets: 'open', or the error code (ECONNREFUSED when nothing listens). */
export function probePort(port: number): Promise<'open' | string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}
