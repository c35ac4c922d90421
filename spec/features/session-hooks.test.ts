/**
 * A feature's session hooks (Feature.sessionStarted, sessionRefreshed, sessionEnded, sessionsRevoked),
 * written against the main entry alone: each runs after its step, in the order of the features; one that
 * fails is logged and neither the login nor the features after it notice. The session list is one of them.
 */
import test, { type ExecutionContext } from 'ava';
import type { AuthKoaOptions, Claims, FeatureModule, ProviderEntry } from '../../lib/index.js';
import { decodeJwt } from '../helpers/http.js';
import { DIRECT, listOf, me, registerPasskey, revokeOthers, startSessionsApp, TOKEN_MS } from '../sessions/fixtures.js';

const PASSKEY = { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' } as ProviderEntry;

/** One hook call as a feature saw it. */
type Call = [feature: string, hook: string, detail: string];

/** A feature that records every hook call in `calls`; `fail` names a hook that throws instead. */
function recorder(name: string, calls: Call[], fail?: string): FeatureModule {
  const record = (hook: string, detail: string) => {
    if (hook === fail) throw new Error(`${name} broke in ${hook}`);
    calls.push([name, hook, detail]);
    return Promise.resolve();
  };
  const sid = (claims: Claims) => String(claims.sid);
  return {
    name,
    create: () => ({
      sessionStarted: (_ctx, claims) => record('sessionStarted', sid(claims)),
      sessionRefreshed: (_ctx, claims) => record('sessionRefreshed', sid(claims)),
      sessionEnded: (_ctx, claims) => record('sessionEnded', sid(claims)),
      sessionsRevoked: (userId, kept) => record('sessionsRevoked', `${userId} but ${String(kept)}`),
    }),
  };
}

async function rig(t: ExecutionContext, fail?: string, extra: Partial<AuthKoaOptions> = {}) {
  const calls: Call[] = [];
  const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
  const logger = {
    info() {},
    error() {},
    warn: (msg: string, fields?: Record<string, unknown>) => warnings.push([msg, fields]),
  };
  const features = [recorder('first', calls, fail), recorder('second', calls)];
  const app = await startSessionsApp(t, { features, logger, ...extra });
  return { app, calls, warnings };
}

test('login, refresh, logout and auth.revokeSessions each call the hooks after the step, in the order of the features', async (t) => {
  const { app, calls } = await rig(t);
  const d = await app.login();
  t.deepEqual(calls, [
    ['first', 'sessionStarted', d.sid],
    ['second', 'sessionStarted', d.sid],
  ]);
  calls.length = 0;
  app.clock.advance(TOKEN_MS + 1000);
  t.is((await me(d.c)).status, 201);
  t.is(decodeJwt(d.c.jar.get('JWT')!).sid, d.sid, 'refreshed: the same session');
  t.deepEqual(calls, [
    ['first', 'sessionRefreshed', d.sid],
    ['second', 'sessionRefreshed', d.sid],
  ]);
  calls.length = 0;
  const other = await app.login();
  calls.length = 0;
  await app.auth.revokeSessions(d.userId, { except: d.sid });
  t.deepEqual(calls, [
    ['first', 'sessionsRevoked', `${d.userId} but ${d.sid}`],
    ['second', 'sessionsRevoked', `${d.userId} but ${d.sid}`],
  ]);
  t.deepEqual(
    (await listOf(d.c)).map((s) => s.sid),
    [d.sid],
    'the session list heard it too: only the kept one is listed',
  );
  calls.length = 0;
  t.is((await d.c.fetch('/auth/logout')).status, 200);
  t.deepEqual(calls, [
    ['first', 'sessionEnded', d.sid],
    ['second', 'sessionEnded', d.sid],
  ]);
  t.not(other.sid, d.sid);
});

test('a hook that throws is logged (feature_hook_failed, naming the feature); the login goes on and so do the hooks after it', async (t) => {
  const { app, calls, warnings } = await rig(t, 'sessionStarted');
  const d = await app.login();
  t.deepEqual(calls, [['second', 'sessionStarted', d.sid]]);
  t.deepEqual(
    (await listOf(d.c)).map((s) => s.sid),
    [d.sid],
    'the built-in session list still recorded the login',
  );
  const warning = warnings.find(([msg]) => msg.includes('sessionStarted failed'));
  t.truthy(warning, JSON.stringify(warnings));
  t.is(warning![0], 'feature "first": sessionStarted failed: first broke in sessionStarted');
  t.like(warning![1], { code: 'feature_hook_failed', feature: 'first', userId: d.userId });
});

test('a passkey registered (a factor change, endOtherSessionsOnFactorChange) tells sessionsRevoked, keeping the session that made it', async (t) => {
  const { app, calls } = await rig(t, undefined, { providers: [DIRECT, PASSKEY] });
  const d = await app.login();
  await app.login();
  calls.length = 0;
  await registerPasskey(d.c);
  t.deepEqual(calls, [
    ['first', 'sessionsRevoked', `${d.userId} but ${d.sid}`],
    ['second', 'sessionsRevoked', `${d.userId} but ${d.sid}`],
  ]);
  t.deepEqual(
    (await listOf(d.c)).map((s) => s.sid),
    [d.sid],
  );
});

test("the session list's own ends of a user's sessions tell every feature: POST revoke-others, and its admin's revokeAll", async (t) => {
  const { app, calls } = await rig(t);
  const d = await app.login();
  await app.login();
  calls.length = 0;
  t.is((await revokeOthers(d.c)).status, 200);
  t.deepEqual(calls, [
    ['first', 'sessionsRevoked', `${d.userId} but ${d.sid}`],
    ['second', 'sessionsRevoked', `${d.userId} but ${d.sid}`],
  ]);
  calls.length = 0;
  const admin = app.auth.features.get('sessions') as { revokeAll(userId: string): Promise<void> };
  await admin.revokeAll(d.userId);
  t.deepEqual(calls, [
    ['first', 'sessionsRevoked', `${d.userId} but undefined`],
    ['second', 'sessionsRevoked', `${d.userId} but undefined`],
  ]);
  // Ended sessions are refused at their token's next refresh (strictRevocation off).
  app.clock.advance(TOKEN_MS + 1000);
  t.is((await me(d.c)).status, 401, 'and the sessions did end');
});
