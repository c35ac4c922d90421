/**
 * Node tests of browser/sessions.ts: importing it touches no browser global; the error made of a
 * refusal; the argument check that refuses before any request; and the three functions against a real
 * authkoa app without a session (absolute `base`, no browser cookies): each refusal arrives as a
 * SessionError with the server's status and code. Listing and ending sessions with a session runs in
 * real Chromium in spec/sessions/browser.test.ts.
 */
import test from 'ava';
import { endOtherSessions, endSession, listSessions, SessionError, _sessionError } from '../../browser/sessions.js';
import { endSession as endSessionFromIndex, SessionError as SessionErrorFromIndex } from '../../browser/index.js';
import { startApp } from '../helpers/http.js';

test('importing the module touched no browser global', (t) => {
  t.is(typeof (globalThis as { window?: unknown }).window, 'undefined');
  t.is(typeof (globalThis as { document?: unknown }).document, 'undefined');
});

test('authkoa/browser exports the same functions and error', (t) => {
  t.is(endSessionFromIndex, endSession);
  t.is(SessionErrorFromIndex, SessionError);
});

test("_sessionError: the server's error and code; HTTP <status> and http_error when the body has none", (t) => {
  const e = _sessionError(404, { error: 'no such session', code: 'not_found' });
  t.true(e instanceof SessionError);
  t.like(e, { name: 'SessionError', message: 'no such session', code: 'not_found', status: 404 });
  t.like(_sessionError(503, undefined), { message: 'HTTP 503', code: 'http_error', status: 503 });
  t.like(_sessionError(500, { error: 7, code: null }), { message: 'HTTP 500', code: 'http_error' });
});

test('endSession without a sid string rejects with a TypeError naming the argument, before any request', async (t) => {
  for (const bad of [undefined, '', 42, { sid: 'x' }]) {
    await t.throwsAsync(endSession(bad as string), { instanceOf: TypeError, message: /^endSession\(sid\): sid must be a session id string/ }, JSON.stringify(bad));
  }
  await t.throwsAsync(listSessions({ base: 42 as unknown as string }), { instanceOf: TypeError, message: /options\.base must be a string/ });
});

test("against a real app without a session: each function rejects with a SessionError carrying the server's 401 and code", async (t) => {
  const app = await startApp({ secret: 'sessions-unit-secret-0123456789abcdef', providers: [{ kind: 'direct', name: 'local', checker: () => true }] });
  t.teardown(() => app.close());
  const base = `${app.url}/auth/`;
  for (const [name, call] of [
    ['listSessions', () => listSessions({ base })],
    ['endSession', () => endSession('0'.repeat(40), { base })],
    ['endOtherSessions', () => endOtherSessions({ base })],
  ] as const) {
    const err = await t.throwsAsync(call(), { instanceOf: SessionError }, name);
    t.like(err, { status: 401, code: 'no_token' }, name);
  }
});
