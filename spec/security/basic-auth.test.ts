/**
 * Basic auth with `adminPasswd`: a wrong password must take as long as a right one. Tests here never
 * assert on wall time, so this checks the property by construction: every attempt, whatever the
 * password's length or content, goes through exactly one crypto.timingSafeEqual over two 32-byte
 * digests — no early exit on a length difference or a first differing byte. Replacing the compare
 * with `===` (or comparing raw strings of different lengths) fails this test.
 */
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import test from 'ava';
import { Client, startApp } from '../helpers/http.js';

test('every admin basic-auth attempt makes one constant-time compare of equal-length digests', async (t) => {
  const app = await startApp({
    secret: 'security-suite-secret-0123456789',
    providers: [{ kind: 'direct', name: 'direct', checker: () => false }],
    adminPasswd: 'correct horse battery staple',
  });
  const original = crypto.timingSafeEqual;
  const calls: Array<[number, number]> = [];
  crypto.timingSafeEqual = ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    calls.push([a.byteLength, b.byteLength]);
    return original(a, b);
  }) as typeof crypto.timingSafeEqual;
  // Propagates the replacement to every `import { timingSafeEqual } from 'node:crypto'` binding.
  syncBuiltinESMExports();
  t.teardown(async () => {
    crypto.timingSafeEqual = original;
    syncBuiltinESMExports();
    await app.close();
  });

  const attempts: Array<[string, number]> = [
    ['correct horse battery staple', 201],
    ['correct horse battery stapl3', 401],
    ['c', 401],
    ['', 401],
    ['x'.repeat(5000), 401],
    ['correct horse battery staple and more', 401],
  ];
  for (const [password, status] of attempts) {
    calls.length = 0;
    const auth = `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
    const res = await new Client(app.url).fetch('/admin', { headers: { authorization: auth } });
    t.is(res.status, status, password.slice(0, 30));
    t.deepEqual(calls.slice(0, 1), [[32, 32]], `one digest compare for ${JSON.stringify(password.slice(0, 30))}`);
  }
});
