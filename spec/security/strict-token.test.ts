/**
 * Strict token form, over real HTTP against a real authkoa app: a session token must carry `exp`, and each
 * of its three parts must be the one canonical base64url text of its bytes (no second text for one token).
 * Time comes from a hand-moved clock per app.
 */
import { createHmac } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { forgeToken, payloadOf } from '../helpers/attack.js';
import { Client, manualClock, startApp, type TestApp } from '../helpers/http.js';
import type { AuthKoaOptions } from '../../lib/index.js';
import { internalsOf } from '../../lib/instance.js';

const SECRET = 'strict-token-secret-0123456789abcdef';
const TOKEN_DURATION_S = 600;
const SOURCES = ['cookie', 'header', 'query'] as const;
type Source = (typeof SOURCES)[number];
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

interface Setup {
  app: TestApp;
  clock: ReturnType<typeof manualClock>;
  /** A genuine session token of `mallory`, fresh from a login. */
  genuine: string;
  claims: Record<string, any>;
}

async function setup(t: ExecutionContext, extra: Partial<AuthKoaOptions> = {}): Promise<Setup> {
  const clock = manualClock();
  const app = await startApp({
    secret: SECRET,
    tokenDuration: `${TOKEN_DURATION_S}s`,
    providers: [{ kind: 'direct', name: 'direct', checker: () => true }],
    clock,
    ...extra,
  });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const res = await c.fetch('/auth/direct/login?user=mallory&passwd=x');
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  const genuine = c.jar.get('JWT')!;
  return { app, clock, genuine, claims: payloadOf(genuine) };
}

/** GET /private with `token` from one source (a cookie comes with the XSRF header of `jti`); [status, error code]. */
async function send(app: TestApp, token: string, source: Source, jti?: string): Promise<[number, string]> {
  const headers: Record<string, string> = {};
  let path = '/private';
  if (source === 'cookie') {
    headers.cookie = `JWT=${token}`;
    if (jti) headers['X-XSRF-TOKEN'] = jti;
  } else if (source === 'header') headers['X-JWT'] = token;
  else path += `?token=${encodeURIComponent(token)}`;
  const res = await new Client(app.url).fetch(path, { headers });
  return [res.status, ((await res.json()) as { code?: string }).code ?? ''];
}

/** HS256 over the segments exactly as given (forgeToken encodes objects itself, always canonically). */
function signRaw(headerB64: string, payloadB64: string, secret = SECRET): string {
  return `${headerB64}.${payloadB64}.${createHmac('sha256', secret).update(`${headerB64}.${payloadB64}`).digest('base64url')}`;
}

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

/**
 * The other texts of a base64url segment that decode to the very same bytes: its last character with other
 * values in the low bits the decoder ignores (4 of them after a 2-character remainder, 2 after a 3-character one).
 */
function sameBytesVariants(seg: string): string[] {
  const unused = ({ 2: 4, 3: 2 } as Record<number, number>)[seg.length % 4] ?? 0;
  const last = ALPHABET.indexOf(seg.at(-1)!);
  const out: string[] = [];
  for (let low = 1; low < 1 << unused; low++)
    out.push(seg.slice(0, -1) + ALPHABET[(last & ~((1 << unused) - 1)) | low]);
  return out;
}

/** `o` with a filler field sized so its base64url text's length is `mod` modulo 4 (2 or 3: spare bits at its end). */
function sized<T extends object>(o: T, mod: number): T & { pad: string } {
  for (let n = 0; ; n++) {
    const padded = { ...o, pad: 'x'.repeat(n) };
    if (b64(padded).length % 4 === mod) return padded;
  }
}

test('a token signed with the app secret but without exp is refused from the cookie, the X-JWT header and ?token=', async (t) => {
  const { app, claims } = await setup(t);
  const { exp, ...noExp } = claims;
  t.is(typeof exp, 'number');
  const control = forgeToken({ ...claims, exp: exp + 60 }, SECRET);
  const forged = forgeToken(noExp, SECRET);
  for (const source of SOURCES) {
    t.deepEqual(await send(app, control, source, claims.jti), [201, ''], `control with exp, ${source}`);
    t.deepEqual(await send(app, forged, source, claims.jti), [401, 'token_invalid'], `no exp, ${source}`);
  }
  const err = await t.throwsAsync(internalsOf(app.auth).tokenService.parse(forged), { message: 'missing exp claim' });
  t.like(err, { status: 401, code: 'token_invalid' });
});

test('every token authkoa mints carries exp: create() without one, and a ClaimsUpdater that drops it', async (t) => {
  const dropExp = (c: Record<string, unknown>) => {
    const { exp: _exp, ...rest } = c;
    return rest;
  };
  const { app, clock, genuine, claims } = await setup(t, { claimsUpdater: dropExp });
  const now = Math.floor(clock() / 1000);
  t.is(claims.exp, now + TOKEN_DURATION_S, 'the login token, after the updater dropped exp');
  for (const source of SOURCES) t.deepEqual(await send(app, genuine, source, claims.jti), [201, ''], source);
  const minted = await app.auth.tokens.create({ aud: '', jti: 'j1', user: { name: 'x', id: 'direct_x', picture: '' } });
  t.is(payloadOf(minted).exp, now + TOKEN_DURATION_S, 'create() without exp');
  t.is((await internalsOf(app.auth).tokenService.parse(minted)).exp, now + TOKEN_DURATION_S);
  // A refresh drops exp on purpose and lets mint fill a fresh one.
  clock.advance((TOKEN_DURATION_S + 1) * 1000);
  const c = new Client(app.url);
  c.jar.set('JWT', genuine);
  c.jar.set('XSRF-TOKEN', claims.jti);
  t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 201);
  const refreshed = c.jar.get('JWT')!;
  t.not(refreshed, genuine);
  t.is(payloadOf(refreshed).exp, now + TOKEN_DURATION_S + 1 + TOKEN_DURATION_S);
});

test('a signature re-encoded in its unused bits (same bytes, other text) is refused; the genuine token is accepted', async (t) => {
  const { app, genuine, claims } = await setup(t);
  const [h, p, s] = genuine.split('.') as [string, string, string];
  const variants = sameBytesVariants(s).map((v) => `${h}.${p}.${v}`);
  t.is(variants.length, 3, 'an HS256 signature is 43 characters: 2 spare bits');
  for (const v of variants)
    t.true(Buffer.from(v.split('.')[2]!, 'base64url').equals(Buffer.from(s, 'base64url')), 'same signature bytes');
  for (const source of SOURCES) {
    // Before and after the genuine token is in the verified-token cache.
    for (const v of variants)
      t.deepEqual(await send(app, v, source, claims.jti), [401, 'token_invalid'], `${source} ${v.slice(-2)}`);
    t.deepEqual(await send(app, genuine, source, claims.jti), [201, ''], `genuine, ${source}`);
    for (const v of variants)
      t.deepEqual(
        await send(app, v, source, claims.jti),
        [401, 'token_invalid'],
        `${source} ${v.slice(-2)}, genuine cached`,
      );
  }
});

test('an expired cookie whose signature is re-encoded is not refreshed (the refresh cache is keyed by token text)', async (t) => {
  const { app, clock, genuine, claims } = await setup(t);
  const [h, p, s] = genuine.split('.') as [string, string, string];
  clock.advance((TOKEN_DURATION_S + 1) * 1000);
  for (const v of sameBytesVariants(s)) {
    const c = new Client(app.url);
    const res = await c.fetch('/private', { headers: { cookie: `JWT=${h}.${p}.${v}`, 'X-XSRF-TOKEN': claims.jti } });
    t.is(res.status, 401);
    t.is(((await res.json()) as { code: string }).code, 'token_invalid');
  }
});

test('header and payload segments must be canonical base64url too, even when signed over as sent', async (t) => {
  const { app, claims } = await setup(t);
  for (const mod of [2, 3]) {
    const payload = b64(sized(claims, mod));
    const header = b64(sized({ alg: 'HS256', typ: 'JWT' }, mod));
    const control = signRaw(header, payload);
    const pv = sameBytesVariants(payload);
    const hv = sameBytesVariants(header);
    t.is(pv.length, mod === 2 ? 15 : 3);
    for (const source of SOURCES) {
      t.deepEqual(await send(app, control, source, claims.jti), [201, ''], `canonical control, ${source}`);
      for (const v of pv)
        t.deepEqual(
          await send(app, signRaw(header, v), source, claims.jti),
          [401, 'token_invalid'],
          `payload …${v.slice(-2)}, ${source}`,
        );
      for (const v of hv)
        t.deepEqual(
          await send(app, signRaw(v, payload), source, claims.jti),
          [401, 'token_invalid'],
          `header …${v.slice(-2)}, ${source}`,
        );
    }
  }
  // A lone trailing character encodes nothing: the decoder drops it, so it too is a second text of the same bytes.
  const whole = b64(sized(claims, 0));
  t.deepEqual(await send(app, signRaw(b64({ alg: 'HS256', typ: 'JWT' }), whole), 'header'), [201, ''], 'control');
  t.deepEqual(await send(app, signRaw(b64({ alg: 'HS256', typ: 'JWT' }), `${whole}A`), 'header'), [
    401,
    'token_invalid',
  ]);
});
