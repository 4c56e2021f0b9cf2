// A throwaway self-signed certificate for IP 127.0.0.1 (openssl): the test TLS servers present it, and a
// client trusts it as its own CA (NODE_EXTRA_CA_CERTS=certFile).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** True when the openssl command is available to make a test certificate. */
export function haveOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface TestCert {
  keyFile: string;
  /** The certificate, which is also its own CA. */
  certFile: string;
  remove(): void;
}

export function selfSignedCert(): TestCert {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-tls-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { keyFile, certFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
