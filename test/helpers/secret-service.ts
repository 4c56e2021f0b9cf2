// A real Secret Service for the keyring tests: a private D-Bus session bus (what dbus-run-session starts)
// with gnome-keyring-daemon on it, its login keyring made and unlocked with a password, in the test's HOME.
// Tests use `describe.skipIf(missingTool('gnome-keyring-daemon, dbus-daemon, secret-tool', hasSecretService()))`.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export function hasSecretService(): boolean {
  return ['gnome-keyring-daemon', 'dbus-daemon', 'secret-tool'].every(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0,
  );
}

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS of the private bus. */
  address: string;
  /** The password of the entry (service petstore, account), read with secret-tool; undefined when there is none. */
  lookup(account: string): string | undefined;
  /** Stops the keyring daemon (SIGSTOP): it keeps its name on the bus and never answers. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0] ?? '');
    });
    child.once('exit', () => reject(new Error('dbus-daemon exited before printing its address')));
  });
}

export async function startSecretService(home: string): Promise<SecretService> {
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const address = await firstLine(bus);
  const env = { PATH: process.env.PATH, HOME: home, DBUS_SESSION_BUS_ADDRESS: address };
  const daemon = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
  daemon.stdin?.end('test-keyring-password');
  const owned = () =>
    spawnSync(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.NameHasOwner',
        'string:org.freedesktop.secrets',
      ],
      {
        env,
        encoding: 'utf8',
      },
    ).stdout.includes('boolean true');
  for (let i = 0; !owned(); i++) {
    if (i > 100) throw new Error('gnome-keyring-daemon did not take org.freedesktop.secrets within 10 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    address,
    lookup(account) {
      const r = spawnSync('secret-tool', ['lookup', 'service', 'petstore', 'username', account], { env, encoding: 'utf8' });
      return r.status === 0 ? r.stdout : undefined;
    },
    freeze: () => daemon.kill('SIGSTOP'),
    thaw: () => daemon.kill('SIGCONT'),
    async stop() {
      daemon.kill('SIGCONT');
      daemon.kill('SIGTERM');
      bus.kill('SIGTERM');
      await Promise.all([exited(daemon), exited(bus)]);
    },
  };
}
