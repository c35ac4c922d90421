/**
 * A credential change ends the user's other sessions (issue #34, `endOtherSessionsOnFactorChange`,
 * default true): TOTP turned on or off, a passkey registered or removed, each over real HTTP. The
 * session that made the change goes on; another user's sessions are not touched; with the option
 * false nothing ends. Each other session is seen to survive a refresh before the change, so the
 * refusal after it is the change's doing.
 */
import test, { type ExecutionContext } from 'ava';
import type { AuthKoaOptions, ProviderEntry } from '../../lib/index.js';
import { Client } from '../helpers/http.js';
import { enrollTotp, loginWithTotp, passwordLogin, startMfaApp, type MfaApp } from '../mfa/fixtures.js';
import { codeOf, DIRECT, me, quiet, registerPasskey, startSessionsApp, TOKEN_MS, UA, Browser } from './fixtures.js';

/** An MFA app (alice, bob), tokenDuration TOKEN_MS, a factor change allowed for an hour after login; closed at teardown. */
async function mfaApp(t: ExecutionContext, opts: Partial<AuthKoaOptions> = {}): Promise<MfaApp> {
  const app = await startMfaApp({
    logger: quiet,
    tokenDuration: TOKEN_MS,
    ...opts,
    mfa: { fresh: '1h' } as AuthKoaOptions['mfa'],
  });
  t.teardown(() => app.close());
  return app;
}

/** A browser of `user` logged in with the password alone. */
async function browser(app: MfaApp, user = 'alice', ua: string = UA.chromeMac): Promise<Browser> {
  const c = new Browser(app.url, ua);
  const res = await passwordLogin(c, user);
  if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
  return c;
}

/** Moves the clock past tokenDuration, and answers each browser's next protected request: its status, or its refusal's code. */
async function afterRefresh(
  app: { clock: { advance(ms: number): void } },
  ...clients: Client[]
): Promise<Array<number | string | undefined>> {
  app.clock.advance(TOKEN_MS + 1000);
  const out: Array<number | string | undefined> = [];
  for (const c of clients) {
    const res = await me(c);
    out.push(res.status === 401 ? await codeOf(res) : res.status);
  }
  return out;
}

test('TOTP turned on in one session ends the other session of the user (refused at refresh); the one that turned it on and other users go on', async (t) => {
  const app = await mfaApp(t);
  const [a, b, bob] = [await browser(app), await browser(app, 'alice', UA.firefoxLinux), await browser(app, 'bob')];
  t.deepEqual(await afterRefresh(app, a, b, bob), [201, 201, 201]);
  await enrollTotp(app, a);
  const userId = (await (await me(a)).json()).user.id as string;
  t.is((await app.auth.sessions.list(userId)).length, 1, 'the list keeps the changing session only');
  t.deepEqual(await afterRefresh(app, a, b, bob), [201, 'session_revoked', 201]);
});

test('TOTP removed in one session ends the other session of the user; the one that removed it goes on', async (t) => {
  const app = await mfaApp(t);
  const a = await browser(app);
  const { otpauthUrl } = await enrollTotp(app, a);
  const b = new Browser(app.url, UA.firefoxLinux);
  t.is((await loginWithTotp(app, b, otpauthUrl)).status, 200);
  t.deepEqual(await afterRefresh(app, a, b), [201, 201], 'both alive after the TOTP was turned on');
  const removed = await a.fetch('/auth/mfa/totp', { method: 'DELETE', headers: a.xsrf() });
  t.is(removed.status, 200, await removed.clone().text());
  t.false(((await removed.json()) as { totp: boolean }).totp);
  t.deepEqual(await afterRefresh(app, a, b), [201, 'session_revoked']);
});

test('endOtherSessionsOnFactorChange: false: turning TOTP on and off ends no session', async (t) => {
  const app = await mfaApp(t, { endOtherSessionsOnFactorChange: false });
  const [a, b] = [await browser(app), await browser(app, 'alice', UA.firefoxLinux)];
  await enrollTotp(app, a);
  t.deepEqual(await afterRefresh(app, a, b), [201, 201]);
  const removed = await a.fetch('/auth/mfa/totp', { method: 'DELETE', headers: a.xsrf() });
  t.is(removed.status, 200);
  t.deepEqual(await afterRefresh(app, a, b), [201, 201]);
  const userId = (await (await me(a)).json()).user.id as string;
  t.is((await app.auth.sessions.list(userId)).length, 2);
});

const PASSKEY = { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' } as ProviderEntry;

test('a passkey registered in one session ends the other session of the user, and one removed ends the sessions begun since', async (t) => {
  const app = await startSessionsApp(t, { providers: [DIRECT, PASSKEY] });
  const [a, b, bob] = [
    await app.login('alice', UA.chromeMac),
    await app.login('alice', UA.firefoxLinux),
    await app.login('bob'),
  ];
  t.deepEqual(await afterRefresh(app, a.c, b.c, bob.c), [201, 201, 201]);
  const id = await registerPasskey(a.c);
  t.deepEqual(
    (await app.auth.sessions.list(a.userId)).map((r) => r.sid),
    [a.sid],
  );
  t.deepEqual(await afterRefresh(app, a.c, b.c, bob.c), [201, 'session_revoked', 201]);

  const c = await app.login('alice', UA.safariIphone);
  t.deepEqual(await afterRefresh(app, a.c, c.c), [201, 201]);
  const removed = await a.c.fetch(`/auth/passkey/${id}`, { method: 'DELETE', headers: a.c.xsrf() });
  t.is(removed.status, 204);
  t.deepEqual(await afterRefresh(app, a.c, c.c, bob.c), [201, 'session_revoked', 201]);
});

test('endOtherSessionsOnFactorChange: false: registering and removing a passkey ends no session', async (t) => {
  const app = await startSessionsApp(t, { providers: [DIRECT, PASSKEY], endOtherSessionsOnFactorChange: false });
  const [a, b] = [await app.login('alice'), await app.login('alice', UA.firefoxLinux)];
  const id = await registerPasskey(a.c);
  t.deepEqual(await afterRefresh(app, a.c, b.c), [201, 201]);
  t.is((await a.c.fetch(`/auth/passkey/${id}`, { method: 'DELETE', headers: a.c.xsrf() })).status, 204);
  t.deepEqual(await afterRefresh(app, a.c, b.c), [201, 201]);
});
