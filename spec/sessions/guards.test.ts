/**
 * What the session list's routes refuse (issue #34): another user's session (404 like a missing one),
 * sids no session has, requests without a session, requests from another site, and the wrong methods.
 * Every refusal is followed by a look at the session it must not have ended.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { Client } from '../helpers/http.js';
import { codeOf, endSession, listOf, me, revokeOthers, startSessionsApp, TOKEN_MS, UA } from './fixtures.js';

test("another user's sid is a 404 not_found, like a missing one, and that session goes on", async (t) => {
  const app = await startSessionsApp(t, { strictRevocation: true });
  const alice = await app.login('alice', UA.chromeMac);
  const bob = await app.login('bob', UA.firefoxLinux);
  const res = await endSession(alice.c, bob.sid);
  t.is(res.status, 404);
  t.is(await codeOf(res), 'not_found');
  t.is((await me(bob.c)).status, 201, 'at once, under strictRevocation');
  app.clock.advance(TOKEN_MS + 1000);
  t.is((await me(bob.c)).status, 201, 'and at its refresh');
  t.deepEqual(
    (await listOf(bob.c)).map((s) => [s.sid, s.current]),
    [[bob.sid, true]],
  );
  t.deepEqual(
    (await listOf(alice.c)).map((s) => s.sid),
    [alice.sid],
    "alice's list holds none of bob's",
  );
});

test('an unknown sid, a sid over 128 characters and a 4 kB one are 404 not_found; the caller goes on', async (t) => {
  const app = await startSessionsApp(t);
  const d = await app.login();
  for (const sid of [
    randomBytes(20).toString('hex'),
    'a'.repeat(129),
    `${d.sid}${'0'.repeat(4000)}`,
    'revoke-others-not',
  ]) {
    const res = await endSession(d.c, sid);
    t.is(res.status, 404, sid.slice(0, 50));
    t.is(await codeOf(res), 'not_found');
  }
  t.is((await listOf(d.c)).length, 1);
  app.clock.advance(TOKEN_MS + 1000);
  t.is((await me(d.c)).status, 201);
});

test('no session: GET, DELETE and POST answer 401 JSON', async (t) => {
  const app = await startSessionsApp(t);
  const d = await app.login();
  const anon = new Client(app.url);
  for (const [method, path] of [
    ['GET', '/auth/sessions'],
    ['DELETE', `/auth/sessions/${d.sid}`],
    ['POST', '/auth/sessions/revoke-others'],
  ] as const) {
    const res = await anon.fetch(path, { method });
    t.is(res.status, 401, `${method} ${path}`);
    t.is(await codeOf(res), 'no_token');
  }
  t.is((await me(d.c)).status, 201);
  app.clock.advance(TOKEN_MS + 1000);
  t.is((await me(d.c)).status, 201, 'the DELETE without a session ended nothing');
});

test('a session cookie without the XSRF header is refused (401), and ends nothing', async (t) => {
  const app = await startSessionsApp(t);
  const [d0, d1] = [await app.login(), await app.login()];
  const res = await d0.c.fetch(`/auth/sessions/${d1.sid}`, { method: 'DELETE' });
  t.is(res.status, 401);
  t.is(await codeOf(res), 'xsrf_mismatch');
  app.clock.advance(TOKEN_MS + 1000);
  t.is((await me(d1.c)).status, 201);
});

test('cross-site DELETE and POST (Origin, Sec-Fetch-Site, Referer) are 403 origin_mismatch and end nothing; the same origin is let through', async (t) => {
  const app = await startSessionsApp(t);
  const [d0, d1] = [await app.login('alice', UA.chromeMac), await app.login('alice', UA.firefoxLinux)];
  const foreign: Array<Record<string, string>> = [
    { origin: 'https://evil.example' },
    { origin: 'null' },
    { 'sec-fetch-site': 'cross-site' },
    { referer: 'https://evil.example/page' },
  ];
  for (const headers of foreign) {
    for (const res of [await endSession(d0.c, d1.sid, headers), await revokeOthers(d0.c, headers)]) {
      t.is(res.status, 403, JSON.stringify(headers));
      t.is(await codeOf(res), 'origin_mismatch');
    }
  }
  t.is((await listOf(d0.c)).length, 2);
  app.clock.advance(TOKEN_MS + 1000);
  t.is((await me(d1.c)).status, 201, 'nothing was ended');
  t.is(
    (await endSession(d0.c, d1.sid, { origin: app.url, 'sec-fetch-site': 'same-origin' })).status,
    204,
    'the app itself may',
  );
});

test('the wrong method is a 405 method_not_allowed on each route, and ends nothing', async (t) => {
  const app = await startSessionsApp(t);
  const [d0, d1] = [await app.login(), await app.login()];
  for (const [method, path] of [
    ['POST', '/auth/sessions'],
    ['DELETE', '/auth/sessions'],
    ['PUT', '/auth/sessions'],
    ['GET', '/auth/sessions/revoke-others'],
    ['DELETE', '/auth/sessions/revoke-others'],
    ['GET', `/auth/sessions/${d1.sid}`],
    ['POST', `/auth/sessions/${d1.sid}`],
  ] as const) {
    const res = await d0.c.fetch(path, { method, headers: d0.c.xsrf() });
    t.is(res.status, 405, `${method} ${path}`);
    t.is(await codeOf(res), 'method_not_allowed');
  }
  app.clock.advance(TOKEN_MS + 1000);
  t.is((await me(d1.c)).status, 201);
  t.is((await listOf(d0.c)).length, 2);
});
