/**
 * What the Shared Signals tests share: receivers' credentials, an app with `signing` and `ssf` on a durable state
 * store, a direct provider and a password provider (an account made at start), and the calls a receiver makes.
 */
import type { ExecutionContext } from 'ava';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { AuthKoaOptions } from '../../lib/index.js';
import { Client, manualClock, startApp, type TestApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { pemKey, signingWith } from '../verify/fixtures.js';

export const SECRET = 'ssf-test-secret-0123456789abcdefghij';
export const PUSH_CREDENTIAL = 'push-receiver-credential-0123456789abcdef';
export const POLL_CREDENTIAL = 'poll-receiver-credential-0123456789abcdef';
export const AUDIT_CREDENTIAL = 'audit-receiver-credential-0123456789abcdef';
export const PASSWORD = 'correct horse battery';
export const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
export const SESSION_REVOKED = `${CAEP}session-revoked`;
export const CREDENTIAL_CHANGE = `${CAEP}credential-change`;
/** The extension member naming the session a user-wide session-revoked keeps (docs/ssf.md). */
export const KEPT_SID = 'authkoa_kept_sid';

export const quiet = { info() {}, warn() {}, error() {} };

/** The direct provider: the password of `alice` is `alice-pw`. */
export const DIRECT = { kind: 'direct', name: 'direct', checker: (u: string, p: string) => p === `${u}-pw` } as const;
/** The password provider; messages go nowhere (the account is made confirmed). */
export const MEMBERS = { kind: 'password', name: 'members', sender: () => {}, scrypt: { ln: 10, r: 8, p: 1 } } as const;

export interface SsfApp extends TestApp {
  clock: ReturnType<typeof manualClock>;
  /** A direct login of `user` (its client, session id, user id and token). */
  login(user?: string): Promise<Session>;
}

export interface Session {
  c: Client;
  sid: string;
  userId: string;
  token: string;
}

/** An app with ssf (`receivers`), issuer = its URL, an LMDB state store, on a clock by hand; closed at teardown. */
export async function startSsfApp(t: ExecutionContext, receivers: unknown[], more: Partial<AuthKoaOptions> = {}) {
  // Not on a whole second: event_timestamp keeps the milliseconds that iat drops.
  const clock = manualClock(Math.ceil(Date.now() / 1000) * 1000 + 123);
  const dir = tempDir(t, 'authkoa-ssf-');
  let base = '';
  const app = await startApp(
    {
      secret: SECRET,
      clock,
      logger: quiet,
      stateStore: `lmdb://${dir}/state`,
      signing: signingWith(pemKey('EdDSA')),
      accounts: { store: `lmdb://${dir}/accounts` },
      providers: [DIRECT, MEMBERS],
      ...more,
      ssf: { receivers },
    } as unknown as AuthKoaOptions,
    (router, auth) => {
      // The one-line root route docs/ssf.md shows: the document at the site root too.
      router.get('/.well-known/ssf-configuration', (ctx, next) => {
        ctx.path = '/auth/.well-known/ssf-configuration';
        return auth(ctx, next);
      });
    },
  );
  base = app.url;
  t.teardown(() => app.close());
  const login = async (user = 'alice'): Promise<Session> => {
    const c = new Client(base);
    const res = await c.fetch('/auth/direct/login', { method: 'POST', json: { user, passwd: `${user}-pw` } });
    if (res.status !== 200) throw new Error(`login of ${user}: ${res.status} ${await res.text()}`);
    const token = c.jar.get('JWT')!;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string };
    return { c, sid: claims.sid, userId: ((await res.json()) as { id: string }).id, token };
  };
  return Object.assign(app, { clock, login }) as SsfApp;
}

/** One RFC 8936 poll: the answer's status and body. */
export async function poll(url: string, credential: string | undefined, body: object = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(credential && { authorization: `Bearer ${credential}` }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

/** Each SET of a poll answer verified by jose against the app's key set: typ secevent+jwt, iss, aud. */
export async function verifiedSets(
  sets: Record<string, string>,
  jwksUrl: string,
  issuer: string,
  audience: string,
): Promise<JWTPayload[]> {
  const keys = createRemoteJWKSet(new URL(jwksUrl));
  const out: JWTPayload[] = [];
  for (const set of Object.values(sets)) {
    const { payload } = await jwtVerify(set, keys, { typ: 'secevent+jwt', issuer, audience });
    out.push(payload);
  }
  return out;
}

/** Polls (acknowledging what it got) until `until` holds of everything got so far, or the deadline passes. */
export async function pollUntil(
  url: string,
  credential: string,
  until: (sets: Record<string, string>) => boolean,
  deadlineMs = 10_000,
): Promise<Record<string, string>> {
  const got: Record<string, string> = {};
  const end = Date.now() + deadlineMs;
  let ack: string[] = [];
  while (Date.now() < end) {
    const res = await poll(url, credential, { ack, returnImmediately: true });
    if (res.status !== 200) throw new Error(`poll answered ${res.status}: ${JSON.stringify(res.body)}`);
    Object.assign(got, res.body.sets);
    ack = Object.keys(res.body.sets as object);
    if (until(got)) {
      await poll(url, credential, { ack, maxEvents: 0 });
      return got;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`polled ${JSON.stringify(Object.keys(got))} and the condition never held`);
}
