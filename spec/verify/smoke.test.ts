import test from 'ava';
import { generateKeyPairSync } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Client, startApp } from '../helpers/http.js';
import { tamperedSignature } from '../helpers/tamper.js';

test('smoke: EdDSA session verifies with jose through the JWKS', async (t) => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const app = await startApp({
    secret: 'verify-test-secret-0123456789abcdef',
    signing: { alg: 'EdDSA', key: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string },
    providers: [{ kind: 'direct', name: 'direct', checker: () => true }],
  });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.is((await c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'alice', passwd: 'x' } })).status, 200);
  const token = c.jar.get('JWT')!;
  const jwks = createRemoteJWKSet(new URL(`${app.url}/auth/.well-known/jwks.json`));
  const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: 'authkoa' });
  t.is(protectedHeader.alg, 'EdDSA');
  t.is((payload.user as { name: string }).name, 'alice');
  t.is((await c.fetch('/auth/user', { headers: c.xsrf() })).status, 200);
});

test('smoke: authkoa/verify accepts the session token from the JWKS URL', async (t) => {
  const { verifier } = await import('../../lib/verify/index.js');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const app = await startApp({
    secret: 'verify-test-secret-0123456789abcdef',
    signing: { alg: 'ES256', key: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string },
    providers: [{ kind: 'direct', name: 'direct', checker: () => true }],
  });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  await c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'alice', passwd: 'x' } });
  const v = verifier({ jwks: `${app.url}/auth/.well-known/jwks.json` });
  const claims = await v.verify(c.jar.get('JWT')!);
  t.is(claims.user?.name, 'alice');
  await t.throwsAsync(v.verify(tamperedSignature(c.jar.get('JWT')!)), { message: /signature/ });
});
