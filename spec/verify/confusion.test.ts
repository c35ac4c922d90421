/**
 * Key and algorithm confusion (issue #35): an app that signs its sessions with EdDSA or RS256 refuses
 * every token a header could steer to another key or algorithm, by X-JWT and by the cookie. Each forged
 * token keeps the real token's claims; a control forged the same way with a clean header and the real
 * key is accepted, so each refusal is the manipulation's doing, not the forger's.
 */
import { createHmac, sign as cryptoSign, type KeyObject } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import type { Context } from 'koa';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type Router from '@koa/router';
import type { AuthError, AuthKoa } from '../../lib/index.js';
import type { SigningAlg } from '../../lib/session/signing.js';
import { Client, decodeJwt } from '../helpers/http.js';
import { loginToken, pemKey, signingWith, startSignedApp, type SignedApp, type TestKey } from './fixtures.js';
import { internalsOf } from '../../lib/instance.js';
import type { TokenService } from '../../lib/session/token-service.js';

type Signer = (input: string) => Buffer;

/** A compact token of `header` and `payload`, signed by `signer` over the encoded segments. */
function forge(header: object, payload: object, signer: Signer): string {
  const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(payload))}`;
  return `${input}.${signer(input).toString('base64url')}`;
}

const b64 = (text: string) => Buffer.from(text).toString('base64url');
const hmac =
  (secret: string): Signer =>
  (input) =>
    createHmac('sha256', secret).update(input).digest();
const none: Signer = () => Buffer.alloc(0);

/** A signature by `key` as `alg` signs: whatever the key's own type (the pinning is what refuses a mismatch). */
function signedBy(alg: SigningAlg, key: KeyObject): Signer {
  return (input) => {
    const data = Buffer.from(input);
    if (alg === 'EdDSA') return cryptoSign(null, data, key);
    if (alg === 'ES256') return cryptoSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
    return cryptoSign('sha256', data, key);
  };
}

const otherAlg: Record<SigningAlg, SigningAlg> = { EdDSA: 'RS256', RS256: 'ES256', ES256: 'EdDSA' };

/** The answer of /auth/user to `token` by X-JWT and by the cookie (with its XSRF header). */
async function answers(app: SignedApp, token: string): Promise<Array<[number, string | undefined]>> {
  const byHeader = await fetch(`${app.url}/auth/user`, { headers: { 'X-JWT': token } });
  const c = new Client(app.url);
  c.jar.set('JWT', token);
  c.jar.set('XSRF-TOKEN', String(decodeJwt(token).jti));
  const byCookie = await c.fetch('/auth/user', { headers: c.xsrf() });
  const code = async (r: Response) => (r.status === 200 ? undefined : ((await r.json()) as { code: string }).code);
  return [
    [byHeader.status, await code(byHeader)],
    [byCookie.status, await code(byCookie)],
  ];
}

/** The setting of one alg: the app, its key and kid, a real session token and its claims, an attacker's key of the same type. */
async function setting(t: ExecutionContext, alg: SigningAlg) {
  const key = pemKey(alg);
  const app = await startSignedApp(t, signingWith(key));
  const token = await loginToken(app);
  const kid = await calculateJwkThumbprint(key.publicJwk as JWK);
  const attacker = pemKey(alg);
  const attackerKid = await calculateJwkThumbprint(attacker.publicJwk as JWK);
  return { app, key, kid, token, claims: decodeJwt(token), attacker, attackerKid };
}

/** The forged tokens, each named by what it tries. */
async function forgeries(
  t: ExecutionContext,
  s: Awaited<ReturnType<typeof setting>>,
): Promise<Array<[string, string]>> {
  const { key, kid, claims, attacker, attackerKid } = s;
  const alg = key.alg;
  const real = signedBy(alg, key.privateKey);
  const publishedJwk = JSON.stringify(
    ((await (await fetch(`${s.app.url}/auth/.well-known/jwks.json`)).json()) as { keys: JWK[] }).keys[0],
  );
  const other = pemKey(otherAlg[alg]);
  const legacy = await startSignedApp(t, undefined);
  const [h, p, sig] = s.token.split('.') as [string, string, string];
  return [
    ['an HS256 session token the app minted with the secret before signing was set', await loginToken(legacy)],
    [
      'HS256 with the public key PEM as the HMAC secret',
      forge({ alg: 'HS256', typ: 'JWT' }, claims, hmac(key.publicPem)),
    ],
    [
      'HS256 with the public key PEM as the HMAC secret, naming the kid',
      forge({ alg: 'HS256', kid, typ: 'JWT' }, claims, hmac(key.publicPem)),
    ],
    [
      'HS256 with the published JWK JSON as the HMAC secret',
      forge({ alg: 'HS256', typ: 'JWT' }, claims, hmac(publishedJwk)),
    ],
    [
      'HS256 with the published JWK JSON as the HMAC secret, naming the kid',
      forge({ alg: 'HS256', kid, typ: 'JWT' }, claims, hmac(publishedJwk)),
    ],
    ['alg none', forge({ alg: 'none', typ: 'JWT' }, claims, none)],
    ['alg none naming the kid', forge({ alg: 'none', kid, typ: 'JWT' }, claims, none)],
    [
      "an embedded jwk: the attacker's key, the signature valid for it",
      forge({ alg, kid: attackerKid, jwk: attacker.publicJwk, typ: 'JWT' }, claims, signedBy(alg, attacker.privateKey)),
    ],
    [
      "an embedded jwk of the attacker's key under the real kid",
      forge({ alg, kid, jwk: attacker.publicJwk, typ: 'JWT' }, claims, signedBy(alg, attacker.privateKey)),
    ],
    [
      'an embedded jwk, even of the real key and signed by it',
      forge({ alg, kid, jwk: key.publicJwk, typ: 'JWT' }, claims, real),
    ],
    ['jku, signed by the real key', forge({ alg, kid, jku: 'http://127.0.0.1:1/jwks.json', typ: 'JWT' }, claims, real)],
    ['x5u, signed by the real key', forge({ alg, kid, x5u: 'http://127.0.0.1:1/cert.pem', typ: 'JWT' }, claims, real)],
    ['crit, signed by the real key', forge({ alg, kid, crit: ['exp'], typ: 'JWT' }, claims, real)],
    ['an unknown kid, signed by the real key', forge({ alg, kid: 'no-such-key', typ: 'JWT' }, claims, real)],
    ['no kid, signed by the real key', forge({ alg, typ: 'JWT' }, claims, real)],
    [
      'the real kid with the alg of another key type, signed by a key of that type',
      forge({ alg: other.alg, kid, typ: 'JWT' }, claims, signedBy(other.alg, other.privateKey)),
    ],
    [
      'the real kid with the alg of another key type, signed by the real key',
      forge({ alg: other.alg, kid, typ: 'JWT' }, claims, real),
    ],
    [
      'a valid signature by a key not in the set, under its own kid',
      forge({ alg, kid: attackerKid, typ: 'JWT' }, claims, signedBy(alg, attacker.privateKey)),
    ],
    [
      'a valid signature by a key not in the set, under the real kid',
      forge({ alg, kid, typ: 'JWT' }, claims, signedBy(alg, attacker.privateKey)),
    ],
    ['the real token truncated by one character', s.token.slice(0, -1)],
    ['the real token without its signature', `${h}.${p}.`],
    ['the real token without its signature segment', `${h}.${p}`],
    ['the real signature re-encoded non-canonically (same bytes)', `${h}.${p}.${nonCanonical(t, sig)}`],
    [
      'the payload re-encoded as padded base64 and signed by the real key',
      `${h}.${padded(p)}.${real(`${h}.${padded(p)}`).toString('base64url')}`,
    ],
  ];
}

/** `seg` with its last character's unused bits set: another text for the same bytes. */
function nonCanonical(t: ExecutionContext, seg: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const changed = seg.slice(0, -1) + alphabet[alphabet.indexOf(seg.at(-1)!) | 1];
  t.not(changed, seg);
  t.true(
    Buffer.from(changed, 'base64url').equals(Buffer.from(seg, 'base64url')),
    'the re-encoding decodes to the same signature',
  );
  return changed;
}

/** `seg` in standard base64 with `=` padding, the same bytes. */
function padded(seg: string): string {
  return Buffer.from(seg, 'base64url').toString('base64');
}

for (const alg of ['EdDSA', 'RS256'] as const) {
  test(`${alg}: the control, a token forged with a clean header and the real key, is accepted by X-JWT and the cookie`, async (t) => {
    const s = await setting(t, alg);
    const control = forge({ alg, kid: s.kid, typ: 'JWT' }, s.claims, signedBy(alg, s.key.privateKey));
    t.deepEqual(await answers(s.app, control), [
      [200, undefined],
      [200, undefined],
    ]);
  });

  test(`${alg}: every confusion token is refused, 401 token_invalid, by X-JWT and by the cookie`, async (t) => {
    const s = await setting(t, alg);
    const tokens = await forgeries(t, s);
    t.true(tokens.length >= 20);
    const refused = JSON.stringify([
      [401, 'token_invalid'],
      [401, 'token_invalid'],
    ]);
    const notRefused: Array<[string, unknown]> = [];
    for (const [what, token] of tokens) {
      const got = await answers(s.app, token);
      if (JSON.stringify(got) !== refused) notRefused.push([what, got]);
    }
    t.deepEqual(notRefused, [], 'tokens not refused with 401 token_invalid by X-JWT and by the cookie');
  });
}

/** How a route saw the request's token: from the verified-token cache (peek answered at once) or verified now, and the outcome. */
interface Peeked {
  cached: boolean;
  status: number;
  code?: string;
}

/**
 * A route that reports whether the token service had the request's token verified already: peek()
 * answers synchronously (a value, or a throw from the expiry check) only for a token in its cache, and
 * with a promise for one it has to verify.
 */
function peekRoute(router: Router, auth: AuthKoa): void {
  const outcome = (cached: boolean, err: unknown): Peeked => ({
    cached,
    status: (err as AuthError).status,
    code: (err as AuthError).code,
  });
  router.get('/peek', async (ctx: Context) => {
    let seen: ReturnType<TokenService['peek']>;
    try {
      seen = internalsOf(auth).tokenService.peek(ctx);
    } catch (err) {
      ctx.body = outcome(true, err);
      return;
    }
    const cached = !(seen instanceof Promise);
    try {
      await seen;
      ctx.body = { cached, status: 200 } satisfies Peeked;
    } catch (err) {
      ctx.body = outcome(cached, err);
    }
  });
}

async function peek(app: SignedApp, token: string): Promise<Peeked> {
  return (await (await fetch(`${app.url}/peek`, { headers: { 'X-JWT': token } })).json()) as Peeked;
}

test('the verified-token cache holds signed tokens, per instance: a second read is a hit, a new instance verifies again, one without the kid refuses, and a hit still checks expiry', async (t) => {
  const a: TestKey = pemKey('EdDSA');
  const app1 = await startSignedApp(t, signingWith(a), {}, peekRoute);
  const token = await loginToken(app1);
  t.deepEqual(await peek(app1, token), { cached: false, status: 200 }, 'the first read verifies');
  t.deepEqual(await peek(app1, token), { cached: true, status: 200 }, 'the second comes from the cache');

  const same = await startSignedApp(t, signingWith(a), { clock: app1.clock }, peekRoute);
  t.deepEqual(await peek(same, token), { cached: false, status: 200 }, 'another instance has its own cache');
  const rotated = await startSignedApp(t, signingWith(pemKey('EdDSA')), { clock: app1.clock }, peekRoute);
  t.deepEqual(
    await peek(rotated, token),
    { cached: false, status: 401, code: 'token_invalid' },
    'an instance without the kid refuses',
  );
  t.deepEqual(
    await peek(rotated, token),
    { cached: false, status: 401, code: 'token_invalid' },
    'and a refusal is not cached as a pass',
  );

  app1.clock.advance(16 * 60_000);
  t.deepEqual(
    await peek(app1, token),
    { cached: true, status: 401, code: 'token_expired' },
    'a cache hit still checks exp',
  );
});
