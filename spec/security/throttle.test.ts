/**
 * Throttling of failed credential logins (direct provider), on by default: counted per user name and
 * per client IP in the service's state store, with lock-outs that double and always end. The clock is
 * injected; nothing here waits for real time.
 */
import test, { type ExecutionContext } from 'ava';
import { authKoa } from '../../lib/index.js';
import { Client, manualClock, startApp } from '../helpers/http.js';

const SECRET = 'throttle-test-secret-0123456789abcdef';

async function rig(t: ExecutionContext, extra: Record<string, unknown> = {}) {
  const clock = manualClock();
  const calls: string[] = [];
  const app = await startApp({
    secret: SECRET,
    clock,
    providers: [
      {
        kind: 'direct',
        name: 'local',
        checker: (user: string, passwd: string) => {
          calls.push(user);
          return user === 'alice' && passwd === 'right';
        },
      },
    ],
    ...extra,
  });
  t.teardown(() => app.close());
  const client = new Client(app.url);
  const login = (user: string, passwd: string) =>
    client.fetch('/auth/local/login', { method: 'POST', form: { user, passwd } });
  return { clock, calls, client, login };
}

test('50 wrong passwords for one user: 403 until the 5th, then 429 with Retry-After and the checker not called; a success after the lock-out logs in and resets the count', async (t) => {
  const r = await rig(t);
  const statuses: number[] = [];
  let locked: Response | undefined;
  for (let i = 0; i < 50; i++) {
    const res = await r.login('alice', `wrong-${i}`);
    statuses.push(res.status);
    if (res.status === 429) locked ??= res;
  }
  t.deepEqual(statuses.slice(0, 5), [403, 403, 403, 403, 403]);
  t.deepEqual(new Set(statuses.slice(5)), new Set([429]));
  t.is(r.calls.length, 5, 'the checker ran only for the five attempts before the lock-out');
  t.is(locked!.headers.get('retry-after'), '60');
  t.deepEqual(await locked!.json(), { error: 'too many failed login attempts, try again later', code: 'rate_limited' });

  t.is((await r.login('alice', 'right')).status, 429, 'the right password too, while locked out');
  r.clock.advance(60_000);
  t.is((await r.login('alice', 'right')).status, 200, 'after the lock-out');
  t.true(r.client.jar.has('JWT'));
  for (let i = 0; i < 4; i++) t.is((await r.login('alice', 'wrong')).status, 403, 'the success forgot the failures');
  t.is((await r.login('alice', 'wrong')).status, 403);
  t.is((await r.login('alice', 'wrong')).status, 429);
});

test('repeated lock-outs double, up to maxLockout, and each one ends', async (t) => {
  const r = await rig(t);
  const retryAfter: string[] = [];
  for (let lock = 0; lock < 6; lock++) {
    for (let i = 0; i < 5; i++) t.is((await r.login('bob', 'wrong')).status, 403);
    const res = await r.login('bob', 'wrong');
    t.is(res.status, 429);
    retryAfter.push(res.headers.get('retry-after')!);
    r.clock.advance(Number(retryAfter.at(-1)) * 1000);
  }
  t.deepEqual(retryAfter, ['60', '120', '240', '480', '900', '900']);
  r.clock.advance(60 * 60_000 + 1);
  for (let i = 0; i < 5; i++) await r.login('bob', 'wrong');
  t.is((await r.login('bob', 'wrong')).headers.get('retry-after'), '60', 'an hour without failures starts over');
});

test('an unknown user and a wrong password get the same answer, locked out alike', async (t) => {
  const r = await rig(t);
  const answers = async (user: string) => {
    const out: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await r.login(user, 'wrong');
      out.push(`${res.status} ${res.headers.get('retry-after')} ${await res.text()}`);
    }
    return out;
  };
  t.deepEqual(await answers('nobody-by-this-name'), await answers('alice'));
});

test('one IP failing for 50 different names is locked out, even for a right password', async (t) => {
  const r = await rig(t);
  for (let i = 0; i < 50; i++) t.is((await r.login(`user${i}`, 'wrong')).status, 403);
  t.is((await r.login('alice', 'right')).status, 429);
  t.is(r.calls.length, 50);
});

test('user names count case-insensitively and without surrounding space', async (t) => {
  const r = await rig(t);
  for (const name of ['carol', 'Carol', ' CAROL', 'carol ', 'cArOl']) t.is((await r.login(name, 'wrong')).status, 403);
  t.is((await r.login('CAROL', 'wrong')).status, 429);
});

test('loginThrottle tunes the limits, false turns it off; bad values are TypeErrors naming the option', async (t) => {
  const tuned = await rig(t, { loginThrottle: { perUser: 2, lockout: '10s' } });
  t.is((await tuned.login('dave', 'x')).status, 403);
  t.is((await tuned.login('dave', 'x')).status, 403);
  const res = await tuned.login('dave', 'x');
  t.is(res.status, 429);
  t.is(res.headers.get('retry-after'), '10');

  const off = await rig(t, { loginThrottle: false });
  for (let i = 0; i < 60; i++) t.is((await off.login('erin', 'x')).status, 403);
  t.is(off.calls.length, 60);

  const base = {
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    providers: [{ kind: 'direct' as const, name: 'l', checker: () => true }],
  };
  t.throws(() => authKoa({ ...base, loginThrottle: { perUser: 0 } }), {
    instanceOf: TypeError,
    message: 'authKoa: loginThrottle.perUser must be a positive integer',
  });
  t.throws(() => authKoa({ ...base, loginThrottle: { lockout: 'soon' } as never }), {
    instanceOf: TypeError,
    message: /^authKoa: loginThrottle\.lockout/,
  });
  t.throws(() => authKoa({ ...base, loginThrottle: { lockout: '1h', maxLockout: '1m' } }), {
    instanceOf: TypeError,
    message: /maxLockout must not be shorter than lockout/,
  });
  t.throws(() => authKoa({ ...base, loginThrottle: true as never }), {
    instanceOf: TypeError,
    message: /^authKoa: loginThrottle must be false or/,
  });
});

const basic = (user: string, passwd: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${passwd}`).toString('base64')}`,
});

test('basic auth (adminPasswd): 5 wrong passwords, then 429 JSON with Retry-After and no compare, until the lock-out ends', async (t) => {
  const clock = manualClock();
  const app = await startApp({
    secret: SECRET,
    clock,
    adminPasswd: 'correct horse',
    providers: [{ kind: 'direct', name: 'local', checker: () => false }],
  });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++)
    statuses.push((await c.fetch('/admin', { headers: basic('admin', `guess-${i}`) })).status);
  t.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
  const locked = await c.fetch('/admin', { headers: basic('admin', 'correct horse') });
  t.is(locked.status, 429, 'the right password waits out the lock-out too');
  t.is(locked.headers.get('retry-after'), '60');
  t.deepEqual(await locked.json(), { error: 'too many failed login attempts, try again later', code: 'rate_limited' });
  clock.advance(60_000);
  t.is((await c.fetch('/admin', { headers: basic('admin', 'correct horse') })).status, 201);
});

test('basicAuthChecker: only ok === true admits; a refusal counts toward the lock-out, a checker that throws does not', async (t) => {
  const results: Record<string, unknown> = {
    yes: { ok: true },
    'string-false': { ok: 'false' },
    one: { ok: 1 },
    object: { ok: {} },
    promise: { ok: Promise.resolve(true) },
  };
  let throws = 0;
  const app = await startApp({
    secret: SECRET,
    providers: [{ kind: 'direct', name: 'local', checker: () => false }],
    basicAuthChecker: (user: string) => {
      if (user === 'broken') {
        throws++;
        throw new Error('directory down');
      }
      return results[user] as never;
    },
  });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.is((await c.fetch('/private', { headers: basic('yes', 'x') })).status, 201);
  for (const name of ['string-false', 'one', 'object', 'promise']) {
    const res = await c.fetch('/private', { headers: basic(name, 'x') });
    t.is(res.status, 401, name);
    t.is(((await res.json()) as { code: string }).code, 'basic_auth_failed', name);
  }
  for (let i = 0; i < 4; i++) t.is((await c.fetch('/private', { headers: basic('one', 'x') })).status, 401);
  t.is(
    (await c.fetch('/private', { headers: basic('one', 'x') })).status,
    429,
    "'one' was refused 5 times: locked out",
  );
  for (let i = 0; i < 8; i++) t.is((await c.fetch('/private', { headers: basic('broken', 'x') })).status, 401);
  t.is(throws, 8, 'a failing checker is not a failed attempt: never locked out');
});
