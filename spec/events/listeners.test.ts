/**
 * Issue #37: listeners never break or delay a request. A throwing or rejecting listener leaves the
 * answer as it is without listeners and is reported through Koa's app 'error' event with the request's
 * ctx; one still running after `eventListenerTimeout` is reported once; the answer does not wait for a
 * slow one; off() stops delivery; a wrong type or listener is a TypeError; events are frozen.
 */
import test from 'ava';
import type { Context } from 'koa';
import type { AuthKoaOptions, LoginEvent } from '../../lib/index.js';
import { decodeJwt, parseSetCookie, type Client } from '../helpers/http.js';
import { Browser, startSessionsApp, type SessionsApp } from '../sessions/fixtures.js';
import { UA, record } from './fixtures.js';

/** The reports Koa's app 'error' event receives, with the ctx of the request they came from. */
function reports(app: SessionsApp): Array<{ err: Error; ctx: Context }> {
  const seen: Array<{ err: Error; ctx: Context }> = [];
  app.app.on('error', (err: Error, ctx: Context) => seen.push({ err, ctx }));
  return seen;
}

/** Resolves once `check()` holds; fails after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A login of alice as a client marked `which`: the answer as a test compares it (status, body, cookies without their random parts). */
async function comparableLogin(
  app: SessionsApp,
  which: string,
): Promise<{ status: number; body: unknown; cookies: unknown[]; c: Client }> {
  const c = new Browser(app.url, UA);
  const res = await c.fetch('/auth/direct/login', {
    method: 'POST',
    headers: { 'x-which': which },
    json: { user: 'alice', passwd: 'alice-pw' },
  });
  const cookies = res.headers.getSetCookie().map((raw) => {
    const { name, value, attrs } = parseSetCookie(raw);
    // The token's jti and sid (and so the XSRF value, its jti) are random per login; everything else must match.
    const claims = name === 'JWT' ? { ...decodeJwt(value), jti: 'random', sid: 'random' } : undefined;
    return { name, attrs, claims };
  });
  return { status: res.status, body: await res.json(), cookies, c };
}

test('a throwing and a rejecting listener leave the answer as without listeners (status, body, cookies), and each is reported through app "error" with the request ctx', async (t) => {
  const app = await startSessionsApp(t);
  const seen = reports(app);
  const plain = await comparableLogin(app, 'plain');
  app.auth.on('login', () => {
    throw new Error('listener boom');
  });
  app.auth.on('login', async () => {
    throw new Error('listener rejected');
  });
  const heard = await comparableLogin(app, 'heard');
  t.deepEqual({ ...heard, c: undefined }, { ...plain, c: undefined });
  t.is(heard.status, 200);
  t.is((await heard.c.fetch('/private', { headers: heard.c.xsrf() })).status, 201, 'the session works');

  await until(() => seen.length >= 2, 'two reports');
  t.deepEqual(seen.map((r) => r.err.message).sort(), [
    'authkoa: a "login" event listener failed: listener boom',
    'authkoa: a "login" event listener failed: listener rejected',
  ]);
  for (const { ctx } of seen) {
    t.is(ctx.path, '/auth/direct/login');
    t.is(ctx.get('x-which'), 'heard', 'the ctx of the login that fired the event');
  }
});

test('a listener still running after eventListenerTimeout (50) is reported once, with its ctx; it is left to finish', async (t) => {
  const app = await startSessionsApp(t, { eventListenerTimeout: 50 } as Partial<AuthKoaOptions>);
  const seen = reports(app);
  const releases: Array<() => void> = [];
  let finished = 0;
  app.auth.on('login', async () => {
    await new Promise<void>((resolve) => releases.push(resolve));
    finished++;
  });
  await comparableLogin(app, 'first');
  await until(() => seen.length >= 1, 'the first report');
  // A second login only after the first report, its listener held too: its report comes one timeout
  // later, after any repeat of the first one would have come.
  await comparableLogin(app, 'second');
  await until(() => seen.length >= 2, 'the second report');
  t.deepEqual(
    seen.map((r) => [r.err.message, r.ctx.get('x-which')]),
    [
      ['authkoa: a "login" event listener is still running after 50 ms', 'first'],
      ['authkoa: a "login" event listener is still running after 50 ms', 'second'],
    ],
  );
  for (const release of releases) release();
  await until(() => finished === 2, 'both listeners to finish');
  t.is(seen.length, 2, 'finishing late is not reported');
});

test('the answer does not wait for a slow listener: it arrives while the listener is still pending', async (t) => {
  const app = await startSessionsApp(t);
  let answered!: () => void;
  const gate = new Promise<void>((resolve) => (answered = resolve));
  const steps: string[] = [];
  app.auth.on('login', async () => {
    steps.push('listener started');
    await gate;
    steps.push('listener finished');
  });
  // Were the answer to wait for the listener, it would never come (the listener waits for it): the
  // deadline turns that into a failure instead of a hang.
  const deadline = setTimeout(() => {
    steps.push('deadline');
    answered();
  }, 20_000);
  const res = await new Browser(app.url, UA).fetch('/auth/direct/login', {
    method: 'POST',
    json: { user: 'alice', passwd: 'alice-pw' },
  });
  steps.push(`answered ${res.status}`);
  answered();
  clearTimeout(deadline);
  await until(() => steps.includes('listener finished'), 'the listener to finish');
  t.deepEqual(steps, ['listener started', 'answered 200', 'listener finished']);
});

test('off() stops delivery to that listener; the others still hear', async (t) => {
  const app = await startSessionsApp(t);
  const events = record(app.auth);
  const heard: LoginEvent[] = [];
  const listener = (e: LoginEvent) => {
    heard.push(e);
  };
  app.auth.on('login', listener);
  await app.login('alice', UA);
  await events.until('login');
  t.is(heard.length, 1);
  app.auth.off('login', listener);
  await app.login('alice', UA);
  // Delivered to the recorder in the same turn as it would have been to the listener.
  await events.until('login', 2);
  t.is(heard.length, 1, 'not delivered after off()');
});

test('on() with an unknown type is a TypeError naming the type meant; a listener that is not a function is a TypeError', async (t) => {
  const app = await startSessionsApp(t);
  t.throws(() => app.auth.on('logins' as never, () => {}), {
    instanceOf: TypeError,
    message: /unknown event type "logins" \(did you mean "login"\?\)/,
  });
  t.throws(() => app.auth.off('logins' as never, () => {}), { instanceOf: TypeError, message: /did you mean "login"/ });
  t.throws(() => app.auth.on('login', 'not a function' as never), {
    instanceOf: TypeError,
    message: /listener must be a function/,
  });
  t.throws(() => app.auth.on('login', undefined as never), {
    instanceOf: TypeError,
    message: /listener must be a function/,
  });
});

test('events are frozen, their amr list too: a listener can neither set, delete nor add a field of what the next one sees', async (t) => {
  const app = await startSessionsApp(t);
  const attempts: boolean[] = [];
  app.auth.on('login', (e) => {
    attempts.push(
      Reflect.set(e, 'userId', 'mallory'),
      Reflect.set(e, 'ip', '203.0.113.9'),
      Reflect.deleteProperty(e, 'sid'),
      Reflect.defineProperty(e, 'extra', { value: 1 }),
    );
    // The nested list too: pushing onto it throws (frozen), and the next listener still sees it whole.
    attempts.push(Reflect.set(e.amr, 0, 'hwk'), Reflect.defineProperty(e.amr, e.amr.length, { value: 'x' }));
  });
  const next: LoginEvent[] = [];
  app.auth.on('login', (e) => {
    next.push(structuredClone(e));
  });
  const device = await app.login('alice', UA);
  await until(() => next.length === 1, 'the second listener');
  t.deepEqual(attempts, [false, false, false, false, false, false], 'every change refused');
  t.like(next[0], { userId: device.userId, ip: '127.0.0.1', sid: device.sid });
  t.deepEqual(next[0]!.amr, ['pwd']);
  t.false('extra' in next[0]!);
});
