import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { withTempDir } from './temp.js';

let certificate: Promise<{ key: string; cert: string }> | undefined;

/**
 * A self-signed certificate for localhost and 127.0.0.1, made once per test process with openssl: for
 * the TLS test peers (the SMTP server) and the https app a browser test opens (with certificate errors
 * ignored).
 */
export function selfSignedCert(): Promise<{ key: string; cert: string }> {
  return (certificate ??= withTempDir('authkoa-tls-', async (dir) => {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    return { key: await readFile(join(dir, 'key.pem'), 'utf8'), cert: await readFile(join(dir, 'cert.pem'), 'utf8') };
  }));
}
