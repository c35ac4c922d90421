/**
 * The session list while its state store is away (issue #34): a real redis-server as `stateStore`, killed
 * mid-run. The routes answer 503 JSON `state_store_unavailable`; under strictRevocation every protected
 * request fails closed (503, never 2xx: an ended session is never let through); once redis-server is
 * started again on its port, the same app serves the routes again. The restarted server is empty (no
 * persistence): the sessions are listed again at their next refresh, as the list promises.
 */
import test, { type ExecutionContext } from 'ava';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import type { Client } from '../helpers/http.js';
import {
  codeOf,
  endSession,
  listOf,
  me,
  revokeOthers,
  startSessionsApp,
  TOKEN_MS,
  UA,
  type SessionsApp,
} from './fixtures.js';
import { until } from '../helpers/until.js';

/** A redis-server of the test's own (it is killed), stopped at teardown. */
async function ownRedis(t: ExecutionContext): Promise<RedisPeer> {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  return redis;
}

/** The answer is a 503 JSON `state_store_unavailable`. */
async function unavailable(t: ExecutionContext, res: Response, what: string): Promise<void> {
  t.is(res.status, 503, what);
  t.is(await codeOf(res), 'state_store_unavailable', what);
}

/** The session routes of `c`, each answered while the store is away. */
async function routesDown(t: ExecutionContext, c: Client, other: string): Promise<void> {
  await unavailable(t, await c.fetch('/auth/sessions', { headers: c.xsrf() }), 'GET /auth/sessions');
  await unavailable(t, await endSession(c, other), 'DELETE /auth/sessions/<sid>');
  await unavailable(t, await revokeOthers(c), 'POST /auth/sessions/revoke-others');
}

async function twoBrowsers(app: SessionsApp) {
  const d0 = await app.login('alice', UA.chromeMac);
  app.clock.advance(1000);
  const d1 = await app.login('alice', UA.firefoxLinux);
  return [d0, d1] as const;
}

test('redis-server killed: the session routes answer 503 state_store_unavailable; restarted, they work again in the same app', async (t) => {
  const redis = await ownRedis(t);
  const app = await startSessionsApp(t, { stateStore: `${redis.uri}/0` });
  const [d0, d1] = await twoBrowsers(app);
  t.is((await listOf(d0.c)).length, 2);
  await redis.stop();
  await routesDown(t, d0.c, d1.sid);
  // The revocation channel went down with the store: a token it may have missed the revocation of is not trusted.
  await unavailable(t, await me(d0.c), 'within tokenDuration: checked against the store, which is away');
  app.clock.advance(TOKEN_MS + 1000);
  await unavailable(t, await me(d0.c), 'a refresh needs the revocation check');
  t.true(d0.c.jar.has('JWT'), 'an outage is no reason to log anyone out');

  await redis.start();
  await until(
    async () => (await d0.c.fetch('/auth/sessions', { headers: d0.c.xsrf() })).status === 200,
    'the reconnect',
  );
  t.deepEqual(
    (await listOf(d0.c)).map((s) => [s.sid, s.current]),
    [[d0.sid, true]],
    'the empty server: the session that refreshed since is listed again',
  );
  t.is((await me(d1.c)).status, 201, "d1's refresh");
  t.deepEqual(
    (await listOf(d0.c)).map((s) => s.sid),
    [d1.sid, d0.sid],
  );
  t.is((await endSession(d0.c, d1.sid)).status, 204);
  app.clock.advance(TOKEN_MS + 1000);
  t.is(await codeOf(await me(d1.c)), 'session_revoked');
  t.is((await me(d0.c)).status, 201);
});

test('strictRevocation with redis-server killed: every protected request fails closed with 503, an ended session included; restarted, the same app lets the live ones in again', async (t) => {
  const redis = await ownRedis(t);
  const app = await startSessionsApp(t, { stateStore: `${redis.uri}/0`, strictRevocation: true });
  const [d0, d1] = await twoBrowsers(app);
  const d2 = await app.login('alice', UA.safariIphone);
  t.is((await endSession(d0.c, d2.sid)).status, 204);
  t.is(await codeOf(await me(d2.c)), 'session_revoked');
  // A second copy of the ended session's cookies, not cleared by the refusal above.
  const ended = await app.login('alice', UA.edgeWindows);
  t.is((await endSession(d0.c, ended.sid)).status, 204);

  await redis.stop();
  for (const c of [d0.c, d1.c, ended.c]) await unavailable(t, await me(c), 'a protected request');
  await unavailable(
    t,
    await ended.c.fetch('/private', { method: 'POST', headers: ended.c.xsrf() }),
    'a POST of the ended session',
  );
  await routesDown(t, d0.c, d1.sid);
  t.true(ended.c.jar.has('JWT'), 'no refusal was given, only 503s');

  await redis.start();
  await until(async () => (await me(d0.c)).status !== 503, 'the reconnect');
  t.is((await me(d0.c)).status, 201);
  t.is((await me(d1.c)).status, 201);
  t.is((await listOf(d0.c)).length, 0, 'the empty server lists nothing until the sessions refresh');
});
