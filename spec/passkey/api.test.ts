/** The passkey provider without a browser: options, the routes' guards, and the store over a StateStore. */
import test from 'ava';
import { authKoa } from '../../lib/index.js';
import { statePasskeyStore, type Passkey } from '../../lib/providers/passkey/store.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { Client, manualClock } from '../helpers/http.js';
import { startPasskeyApp } from './fixtures.js';
import { useStateBackends, type OpenStore } from '../helpers/state-backends.js';
import { internalsOf } from '../../lib/instance.js';

const base = { secret: 'passkey-api-secret-0123456789abcdef', url: 'http://localhost:1', logger: () => {} };

test('passkey options are checked at start-up, naming the option', async (t) => {
  const cases: Array<[Record<string, unknown>, RegExp, string?]> = [
    [{ kind: 'passkey' }, /providers\[0\] \(passkey\): rpName .* is required/],
    [{ kind: 'passkey', rpName: 'x', rpID: 'example.com' }, /rpID must be the host of url \(localhost\)/],
    [
      { kind: 'passkey', rpName: 'x', userVerification: 'always' },
      /userVerification must be 'preferred' or 'required'/,
    ],
    [{ kind: 'passkey', rpName: 'x', rpId: 'localhost' }, /unknown option "rpId" \(did you mean "rpID"\?\)/],
  ];
  for (const [entry, message, url] of cases) {
    const auth = authKoa({ ...base, url: url ?? base.url, providers: [entry as never] });
    await t.throwsAsync(auth.ready, { instanceOf: TypeError, message }, message.source);
    await auth.close();
  }
});

test('an IP address as rpID starts (the rest of the app may run on one) but says browsers will refuse passkeys', async (t) => {
  const logs: string[] = [];
  const auth = authKoa({
    ...base,
    url: 'http://127.0.0.1:1',
    allowVolatileStores: true,
    logger: { info: () => {}, warn: (m: string) => logs.push(m), error: () => {} },
    providers: [{ kind: 'passkey', rpName: 'x' }],
  });
  t.teardown(() => auth.close());
  await t.notThrowsAsync(auth.ready);
  t.true(
    logs.some((l) => /passkey: rpID 127\.0\.0\.1 is an IP address, which browsers refuse for passkeys/.test(l)),
    logs.join('\n'),
  );
});

test('the routes: login/options for anyone, register/options, list and DELETE only with a session, JSON errors, POST only', async (t) => {
  const app = await startPasskeyApp(t, undefined, [{ kind: 'passkey', rpName: 'tests' }]);
  const c = new Client(app.url);
  const options = await c.fetch('/auth/passkey/login/options', { method: 'POST' });
  t.is(options.status, 200);
  const json = (await options.json()) as { challenge: string; rpId: string };
  t.regex(json.challenge, /^[A-Za-z0-9_-]{20,}$/);
  t.is(json.rpId, 'localhost');
  t.is(options.headers.get('cache-control'), 'no-store');
  t.truthy(
    await app.state.get('passkey-challenge', `passkey:${json.challenge}`),
    'the challenge waits in the state store, under the provider',
  );

  const noSession = await c.fetch('/auth/passkey/register/options', { method: 'POST' });
  t.is(noSession.status, 401);
  t.is(((await noSession.json()) as { code: string }).code, 'no_token');
  t.is((await c.fetch('/auth/passkey/list')).status, 401);
  t.is((await c.fetch('/auth/passkey/someid', { method: 'DELETE' })).status, 401, 'DELETE needs a session');
  t.is((await c.fetch('/auth/passkey/login/options')).status, 405, 'GET');
  const garbage = await c.fetch('/auth/passkey/login', { method: 'POST', json: { id: 42 } });
  t.is(garbage.status, 400);
  t.is(((await garbage.json()) as { code: string }).code, 'bad_request');
  const unknown = await c.fetch('/auth/passkey/login', { method: 'POST', json: { id: 'AAAA', response: {} } });
  t.is(unknown.status, 401);
  t.is(((await unknown.json()) as { code: string }).code, 'passkey_unknown');
  t.is((await c.fetch('/auth/passkey/no/such/route')).status, 404);
});

test('credential ids are checked at the edge: 600 characters at login or in a DELETE, or not base64url, are a 4xx JSON answer, never a 500', async (t) => {
  const app = await startPasskeyApp(t, undefined, [
    { kind: 'dev', port: 0 },
    { kind: 'passkey', rpName: 'tests' },
  ]);
  const c = new Client(app.url);
  for (const id of ['A'.repeat(600), 'A'.repeat(2000), 'not base64url!', '']) {
    const res = await c.fetch('/auth/passkey/login', { method: 'POST', json: { id, response: {} } });
    t.true(res.status === 400 || res.status === 401, `login with a ${id.length}-character id: ${res.status}`);
    t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  }
  // A logged-in user removing an id of any shape: "no such passkey", like a missing one.
  const user = internalsOf(app.auth).tokenService;
  // A token as a login issues it (sid, auth_time): only a full login manages passkeys.
  const token = await user.create({
    user: { id: 'dev_x', name: 'x', picture: '' },
    sid: 's'.repeat(40),
    auth_time: user.now(),
  } as never);
  for (const id of ['A'.repeat(600), '%00%00', 'x'.repeat(5000)]) {
    const res = await c.fetch(`/auth/passkey/${id}`, { method: 'DELETE', headers: { 'x-jwt': token } });
    t.is(res.status, 404, `DELETE of a ${id.length}-character id`);
    t.is(((await res.json()) as { code: string }).code, 'not_found');
  }
  // A stored credential with an id longer than a store key is still found (kept under its SHA-256).
  const store = statePasskeyStore(app.state);
  const long = 'B'.repeat(1300);
  t.true(await store.save(passkey(long, 'u9')));
  t.is((await store.get(long))?.id, long);
  t.deepEqual(
    (await store.listByUser('u9')).map((p) => p.id),
    [long],
  );
  t.true(await store.remove(long));
});

test('login challenges are limited per client (rateLimit, 30 per 5 minutes by default): 429 with Retry-After, and each client counts apart', async (t) => {
  // A clock that stands still: the wait is the whole window whatever the machine's speed (it read 59 on a loaded one).
  const clock = manualClock();
  const app = await startPasskeyApp(
    t,
    // The store counts the window on its own clock: the standing one too (it read 59 with the real one).
    memoryStateStore({ clock }),
    [{ kind: 'passkey', rpName: 'tests', rateLimit: { perIP: 3, window: '1m' } }],
    'localhost',
    0,
    clock,
  );
  const ask = (ip?: string) =>
    fetch(`${app.url}/auth/passkey/login/options`, { method: 'POST', headers: ip ? { 'x-forwarded-for': ip } : {} });
  for (let i = 0; i < 3; i++) t.is((await ask()).status, 200);
  const refused = await ask();
  t.is(refused.status, 429);
  t.is(refused.headers.get('retry-after'), '60');
  t.is(((await refused.json()) as { code: string }).code, 'rate_limited');
  await t.throwsAsync(startPasskeyApp(t, undefined, [{ kind: 'passkey', rpName: 'tests', rateLimit: { perIP: 0 } }]), {
    message: /rateLimit\.perIP must be a positive integer/,
  });
});

function passkey(id: string, userId: string, counter = 0): Passkey {
  return { id, publicKey: 'cHVi', counter, userId, userName: userId, userHandle: 'h', createdAt: 1 };
}

// The passkey store runs on every state-store backend.
for (const [label, open] of [['memory', async () => memoryStateStore()], ...useStateBackends(test)] as Array<
  [string, OpenStore]
>) {
  test(`passkey store over ${label}: save once, list by user, counters only forward, remove`, async (t) => {
    const state = await open(t);
    t.teardown(() => state.close());
    const store = statePasskeyStore(state);
    const handle = await store.userHandle('u1');
    t.regex(handle, /^[A-Za-z0-9_-]{43}$/);
    t.is(await store.userHandle('u1'), handle, 'one handle per user');
    t.not(await store.userHandle('u2'), handle);
    t.true(await store.save(passkey('a', 'u1')));
    t.false(await store.save(passkey('a', 'u2')), 'a credential id is registered once');
    t.true(await store.save(passkey('b', 'u1', 5)));
    t.true(await store.save(passkey('c', 'u2')));
    t.deepEqual((await store.listByUser('u1')).map((p) => p.id).sort(), ['a', 'b']);
    t.true(await store.updateCounter('b', 6, 100));
    t.false(await store.updateCounter('b', 6, 101), 'not forward');
    t.false(await store.updateCounter('b', 3, 102), 'backwards');
    t.true(await store.updateCounter('a', 0, 103), 'an authenticator that does not count');
    t.is((await store.get('b'))?.counter, 6);
    t.is((await store.get('b'))?.lastUsedAt, 100);
    const racing = await Promise.all([7, 8, 9].map((n) => store.updateCounter('b', n, 200)));
    t.true(racing.some(Boolean));
    t.true(await store.remove('a'));
    t.false(await store.remove('a'));
    t.deepEqual(
      (await store.listByUser('u1')).map((p) => p.id),
      ['b'],
    );
    t.is(await store.get('a'), undefined);
  });
}
