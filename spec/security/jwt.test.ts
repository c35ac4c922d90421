/**
 * RFC 8725 attacks on the session token, each over real HTTP against a real authkoa app: the attacker
 * holds a genuine token of their own and edits, re-signs or relabels it.
 */
import { generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import { forgeToken, payloadOf } from '../helpers/attack.js';
import { Client, serve, startApp, type TestApp } from '../helpers/http.js';

const SECRET = 'security-suite-secret-0123456789';
const providers = [{ kind: 'direct' as const, name: 'direct', checker: () => true }];

let app: TestApp;
let genuine: string;
let claims: Record<string, any>;

test.before(async () => {
  app = await startApp({ secret: SECRET, providers, audiences: ['site-a', 'site-b'] });
  const c = new Client(app.url);
  await c.fetch('/auth/direct/login?user=mallory&passwd=x&aud=site-a');
  genuine = c.jar.get('JWT')!;
  claims = payloadOf(genuine);
});
test.after.always(() => app.close());

async function statusWith(token: string): Promise<[number, string]> {
  const res = await new Client(app.url).fetch('/private', { headers: { 'X-JWT': token } });
  return [res.status, ((await res.json()) as { code?: string }).code ?? ''];
}

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

test('control: the genuine token is accepted', async (t) => {
  t.deepEqual(await statusWith(genuine), [201, '']);
});

test('alg none is refused', async (t) => {
  const [, p] = genuine.split('.');
  t.deepEqual(await statusWith(`${b64({ alg: 'none', typ: 'JWT' })}.${p}.`), [401, 'token_invalid']);
  t.deepEqual(await statusWith(`${b64({ alg: 'None' })}.${p}.`), [401, 'token_invalid']);
});

test('HS/RS confusion: an RS256 header HMAC-signed with a public key is refused', async (t) => {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  t.deepEqual(await statusWith(forgeToken(claims, pem, { alg: 'RS256', typ: 'JWT' })), [401, 'token_invalid']);
  // And with our real secret under an RS256 label: the algorithm is pinned, not read from the header.
  t.deepEqual(await statusWith(forgeToken(claims, SECRET, { alg: 'RS256', typ: 'JWT' })), [401, 'token_invalid']);
});

test('kid, jku and x5u headers are ignored: a token pointing at the attacker’s live JWKS is refused and the URLs are never fetched', async (t) => {
  // A real server for the attacker's keys, counting requests: a closed port could not tell a fetch from none.
  const fetched: string[] = [];
  const attacker = await serve((req, res) => {
    fetched.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        keys: [{ kty: 'oct', kid: 'attacker', k: Buffer.from('attacker-key').toString('base64url'), alg: 'HS256' }],
      }),
    );
  });
  t.teardown(() => attacker.close());
  const header = {
    alg: 'HS256',
    typ: 'JWT',
    kid: 'attacker',
    jku: `${attacker.url}/jwks.json`,
    x5u: `${attacker.url}/x5u`,
  };
  const forged = forgeToken({ ...claims, user: { ...claims.user, name: 'admin' } }, 'attacker-key', header);
  t.deepEqual(await statusWith(forged), [401, 'token_invalid']);
  const probe = await fetch(`${attacker.url}/probe`);
  t.is(probe.status, 200, 'the attacker server was up and answering during the check');
  t.deepEqual(fetched, ['/probe'], 'nothing but our own probe reached it');
});

test('signature stripped or truncated is refused', async (t) => {
  const [h, p, s] = genuine.split('.');
  t.deepEqual(await statusWith(`${h}.${p}.`), [401, 'token_invalid']);
  t.deepEqual(await statusWith(`${h}.${p}`), [401, 'token_invalid']);
  t.deepEqual(await statusWith(`${h}.${p}.${s!.slice(0, -4)}`), [401, 'token_invalid']);
});

test('an edited payload or header under the original signature is refused, also once the genuine token is cached', async (t) => {
  // Verified tokens are cached by a key taken from their signature: the edited token lands on the genuine
  // token's entry, and only the comparison of the whole text keeps it out.
  t.deepEqual(await statusWith(genuine), [201, '']);
  const [h, , s] = genuine.split('.');
  const edited = b64({ ...claims, user: { ...claims.user, attrs: { admin: true } } });
  t.deepEqual(await statusWith(`${h}.${edited}.${s}`), [401, 'token_invalid']);
  t.deepEqual(await statusWith(`${b64({ alg: 'HS256', typ: 'JWT', kid: 'x' })}.${genuine.split('.')[1]}.${s}`), [
    401,
    'token_invalid',
  ]);
  t.deepEqual(await statusWith(genuine), [201, '']);
});

test('an expired token (by header) is refused', async (t) => {
  t.deepEqual(await statusWith(forgeToken({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 }, SECRET)), [
    401,
    'token_expired',
  ]);
});

test('a not-yet-valid token is refused', async (t) => {
  t.deepEqual(await statusWith(forgeToken({ ...claims, nbf: Math.floor(Date.now() / 1000) + 600 }, SECRET)), [
    401,
    'token_not_valid_yet',
  ]);
});

test('a token of another issuer is refused', async (t) => {
  t.deepEqual(await statusWith(forgeToken({ ...claims, iss: 'go-pkgz/auth' }, SECRET)), [401, 'token_invalid']);
});

test('a token for an audience outside the list is refused', async (t) => {
  t.deepEqual(await statusWith(forgeToken({ ...claims, aud: 'site-z' }, SECRET)), [401, 'aud_rejected']);
  t.deepEqual(await statusWith(forgeToken({ ...claims, aud: ['site-a', 'site-b'] }, SECRET)), [401, 'token_invalid']);
});

test('a token from another secret is refused', async (t) => {
  t.deepEqual(await statusWith(forgeToken(claims, 'a different secret entirely')), [401, 'token_invalid']);
});

test('a handshake-shaped token is not a session', async (t) => {
  t.deepEqual(await statusWith(forgeToken({ ...claims, handshake: { state: 'abc' } }, SECRET)), [401, 'token_invalid']);
});

test('type confusion in claims is refused, not crashed on', async (t) => {
  for (const bad of [
    { exp: '9999999999' },
    { user: 'admin' },
    { user: { id: 1, name: 'x' } },
    { user: { ...claims.user, attrs: [1] } },
    { aud: 5 },
    { handshake: 'x' },
  ]) {
    t.deepEqual(
      await statusWith(forgeToken({ ...claims, ...bad }, SECRET)),
      [401, 'token_invalid'],
      JSON.stringify(bad),
    );
  }
});
