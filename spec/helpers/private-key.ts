import { generateKeyPairSync } from 'node:crypto';

/** A new private key as PKCS#8 PEM, and the middle of its base64 body: what a printed key would show. */
export function privateKeyPem(type: 'ed25519' | 'ec' = 'ed25519'): { pem: string; body: string } {
  const pair = type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const pem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const body = pem
    .split('\n')
    .filter((l) => l && !l.startsWith('-----'))
    .join('');
  return { pem, body: body.slice(8, 40) };
}
