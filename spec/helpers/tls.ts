import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
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

let authority: Promise<{ ca: string; key: string; cert: string }> | undefined;

/**
 * A throwaway certificate authority and a server certificate it issued for localhost and 127.0.0.1, made once per
 * test process with openssl: for an https peer that the code under test must trust through its CA alone (given as
 * NODE_EXTRA_CA_CERTS to a child process, or as an injected `ca`), as a real server's certificate is trusted.
 */
export function localCA(): Promise<{ ca: string; key: string; cert: string }> {
  return (authority ??= withTempDir('authkoa-ca-', async (dir) => {
    // Each command as one line of words (no word has a space), the files in `dir`.
    const openssl = (words: string) =>
      promisify(execFile)('openssl', words.split(' '), { cwd: dir }).then(() => undefined);
    const key = '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes';
    await openssl(
      `req -x509 ${key} -days 1 -subj /CN=authkoa-test-CA -keyout ca.key -out ca.pem ` +
        '-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign',
    );
    await openssl(`req -new ${key} -subj /CN=localhost -keyout key.pem -out req.csr`);
    await writeFile(
      join(dir, 'ext.cnf'),
      'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
    );
    await openssl(
      'x509 -req -in req.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile ext.cnf -out cert.pem',
    );
    const read = (name: string) => readFile(join(dir, name), 'utf8');
    return { ca: await read('ca.pem'), key: await read('key.pem'), cert: await read('cert.pem') };
  }));
}
