/**
 * Node tests of browser/sessions.ts, the deprecated sessions-per-device helpers that wrap
 * `authkoa/client`: importing it touches no browser global; its error class is the client's; the argument
 * check that refuses before any request; and the three functions against a real authkoa app without a
 * session (absolute `base`, no browser cookies): each refusal arrives as an AuthClientError with the
 * server's status and code. Listing and ending sessions with a session runs in real Chromium in
 * spec/sessions/browser.test.ts (through the client) and in spec/client/.
 */
import test from 'ava';
import { AuthClientError } from '../../browser/client.js';
import { endOtherSessions, endSession, listSessions, SessionError } from '../../browser/sessions.js';
import {
  AuthClientError as AuthClientErrorFromIndex,
  endSession as endSessionFromIndex,
  SessionError as SessionErrorFromIndex,
} from '../../browser/index.js';
import { startApp } from '../helpers/http.js';

test('importing the module touched no browser global', (t) => {
  t.is(typeof (globalThis as { window?: unknown }).window, 'undefined');
  t.is(typeof (globalThis as { document?: unknown }).document, 'undefined');
});

test('authkoa/browser exports the same functions; SessionError is the one error class of the client', (t) => {
  t.is(endSessionFromIndex, endSession);
  t.is(SessionErrorFromIndex, SessionError);
  t.is(SessionError, AuthClientError);
  t.is(AuthClientErrorFromIndex, AuthClientError);
});

test('endSession without a sid string rejects with a TypeError naming the argument, before any request', async (t) => {
  // Port 1 has no server: a request would be a network_error, not a TypeError.
  const base = 'http://127.0.0.1:1/auth';
  for (const bad of [undefined, '', 42, { sid: 'x' }]) {
    await t.throwsAsync(
      endSession(bad as string, { base }),
      { instanceOf: TypeError, message: /^sessions\.end\(sid\): sid must be a session id string/ },
      JSON.stringify(bad),
    );
  }
  await t.throwsAsync(listSessions({ base: 42 as unknown as string }), {
    instanceOf: TypeError,
    message: /options\.base must be a string/,
  });
});

test("against a real app without a session: each function rejects with an AuthClientError carrying the server's 401 and code", async (t) => {
  const app = await startApp({
    secret: 'sessions-unit-secret-0123456789abcdef',
    providers: [{ kind: 'direct', name: 'local', checker: () => true }],
  });
  t.teardown(() => app.close());
  const base = `${app.url}/auth/`;
  for (const [name, call] of [
    ['listSessions', () => listSessions({ base })],
    ['endSession', () => endSession('0'.repeat(40), { base })],
    ['endOtherSessions', () => endOtherSessions({ base })],
  ] as const) {
    const err = await t.throwsAsync(call(), { instanceOf: SessionError }, name);
    t.like(err, { status: 401, code: 'no_token', name: 'AuthClientError' }, name);
  }
});
