/**
 * Node tests of browser/mfa.ts, the deprecated second-factor helpers that wrap `authkoa/client`: importing
 * it touches no browser global; its error class is the client's; the `base` option checked and mapped onto
 * the client (a relative path, an absolute URL); the argument checks that refuse before any request; and
 * the functions against a real authkoa app (absolute `base`, no browser cookies, so the routes refuse and
 * the refusal arrives as an AuthClientError with the server's words). The browser flows are in
 * spec/mfa/browser*.test.ts.
 */
import test from 'ava';
import { AuthClientError } from '../../browser/client.js';
import { helperBase } from '../../browser/helper-client.js';
import {
  confirmTotp,
  MfaError,
  mfaStatus,
  newRecoveryCodes,
  setupTotp,
  verifyMfa,
  verifyMfaWithPasskey,
} from '../../browser/mfa.js';
import { startMfaApp } from '../mfa/fixtures.js';

test('importing the module touched no browser global', (t) => {
  t.is(typeof (globalThis as { window?: unknown }).window, 'undefined');
  t.is(typeof (globalThis as { document?: unknown }).document, 'undefined');
});

test('MfaError is the one error class of the client, under its old name', (t) => {
  t.is(MfaError, AuthClientError);
});

test('helperBase: /auth by default, a path or an absolute URL without trailing slashes; anything else is a TypeError naming the option', (t) => {
  t.deepEqual(helperBase({}, '/auth'), { origin: undefined, path: '/auth' });
  t.deepEqual(helperBase({ base: '/api/auth/' }, '/auth'), { origin: undefined, path: '/api/auth' });
  t.deepEqual(helperBase({ base: 'https://login.example/auth//' }, '/auth'), {
    origin: 'https://login.example',
    path: '/auth',
  });
  t.deepEqual(helperBase({ base: 'http://127.0.0.1:8080' }, '/auth'), { origin: 'http://127.0.0.1:8080', path: '' });
  for (const base of [42, 'auth', 'ftp://x/auth']) {
    t.throws(
      () => helperBase({ base: base as string }, '/auth'),
      { instanceOf: TypeError, message: /^options\.base must be a string, a path such as "\/auth"/ },
      String(base),
    );
  }
});

test('wrong arguments reject with a TypeError before any request; passkeys outside a browser are unsupported, before any request', async (t) => {
  // Port 1 has no server: a request would be a network_error, not these.
  const base = 'http://127.0.0.1:1/auth';
  await t.throwsAsync(verifyMfa({} as { code: string }, { base }), {
    instanceOf: TypeError,
    message: /^mfa\.verify\(answer\): answer must be \{ code: string \}/,
  });
  await t.throwsAsync(verifyMfa({ code: '1', recoveryCode: 'x' }, { base }), {
    instanceOf: TypeError,
    message: /^mfa\.verify\(answer\)/,
  });
  await t.throwsAsync(confirmTotp(123456 as unknown as string, { base }), {
    instanceOf: TypeError,
    message: /^mfa\.confirmTotp\(code\): code must be a string/,
  });
  await t.throwsAsync(setupTotp({ base: 42 as unknown as string }), {
    instanceOf: TypeError,
    message: /^options\.base must be a string/,
  });
  const err = await t.throwsAsync(verifyMfaWithPasskey({ base }), { instanceOf: MfaError });
  t.like(err, { code: 'unsupported', status: 0 });
});

test("against a real app: without a login or a session the routes refuse, and the error carries the server's status and code", async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const base = `${app.url}/auth/`;
  for (const [name, call] of [
    ['mfaStatus', () => mfaStatus({ base })],
    ['setupTotp', () => setupTotp({ base })],
    ['newRecoveryCodes', () => newRecoveryCodes({ base })],
    ['verifyMfa', () => verifyMfa({ code: '123 456' }, { base })],
  ] as const) {
    const err = await t.throwsAsync(call(), { instanceOf: AuthClientError }, name);
    t.is(err?.status, 401, name);
    t.is(err?.name, 'AuthClientError', name);
    t.regex(err?.code ?? '', /^[a-z_]+$/, name);
    t.not(err?.code, 'http_error', `${name}: the server's own code`);
  }
});

test('an aborted signal aborts the request: the AbortError passes unchanged', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const err = await t.throwsAsync(mfaStatus({ base: `${app.url}/auth`, signal: AbortSignal.abort() }), { any: true });
  t.is((err as Error | undefined)?.name, 'AbortError');
});
