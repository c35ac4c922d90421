/**
 * Node tests of browser/mfa.ts: importing it touches no browser global; its pure helpers (URLs, the
 * XSRF header, the verify body, errors); the argument checks that refuse before any request; and the
 * functions against a real authkoa app (absolute `base`, no browser cookies, so the routes refuse and
 * the refusal arrives as an MfaError with the server's words). The browser flows are in spec/mfa/browser*.test.ts.
 */
import test from 'ava';
import { confirmTotp, MfaError, mfaStatus, newRecoveryCodes, setupTotp, verifyMfa, verifyMfaWithPasskey, _errorFrom, _headers, _url, _verifyBody } from '../../browser/mfa.js';
import { startMfaApp } from '../mfa/fixtures.js';

test('importing the module touched no browser global', (t) => {
  t.is(typeof (globalThis as { window?: unknown }).window, 'undefined');
  t.is(typeof (globalThis as { document?: unknown }).document, 'undefined');
});

test('_url: the MFA routes under /auth by default, under a given base without its trailing slashes', (t) => {
  t.is(_url(undefined, '/mfa/verify'), '/auth/mfa/verify');
  t.is(_url('/api/auth/', '/mfa'), '/api/auth/mfa');
  t.is(_url('https://login.example/auth//', '/mfa/totp'), 'https://login.example/auth/mfa/totp');
  t.throws(() => _url(42 as unknown as string, '/mfa'), { instanceOf: TypeError, message: /options\.base must be a string/ });
});

test('_headers: JSON content type only with a body, the XSRF token from the cookie string (decoded) when there is one', (t) => {
  t.deepEqual(_headers('', {}, false), { accept: 'application/json' });
  t.deepEqual(_headers('a=1; XSRF-TOKEN=abc%2Fdef; b=2', {}, true), { accept: 'application/json', 'content-type': 'application/json', 'X-XSRF-TOKEN': 'abc/def' });
  t.deepEqual(_headers('XSRF-TOKEN=x; MY-XSRF=y', { xsrfCookie: 'MY-XSRF', xsrfHeader: 'X-My-Token' }, false), { accept: 'application/json', 'X-My-Token': 'y' });
  t.deepEqual(_headers('OTHER-XSRF-TOKEN=x', {}, false), { accept: 'application/json' }, 'a cookie whose name only ends the same is not it');
});

test('_verifyBody: a code without its spaces, a recovery code trimmed; anything else is a TypeError naming the argument', (t) => {
  t.deepEqual(_verifyBody({ code: ' 123 456 ' }), { code: '123456' });
  t.deepEqual(_verifyBody({ recoveryCode: '  abcd-efgh-ijkl-mnop\n' }), { recoveryCode: 'abcd-efgh-ijkl-mnop' });
  for (const bad of [undefined, null, '123456', {}, { code: 123456 }, { recoveryCode: ['x'] }, { code: '1', recoveryCode: 'x' }]) {
    t.throws(() => _verifyBody(bad), { instanceOf: TypeError, message: /^verifyMfa\(answer\): answer must be \{ code: string \}/ }, JSON.stringify(bad));
  }
});

test("_errorFrom: the server's error and code; HTTP <status> and http_error when the body has none", (t) => {
  const e = _errorFrom(403, { error: 'the code is not valid', code: 'invalid_code' });
  t.true(e instanceof MfaError);
  t.like(e, { name: 'MfaError', message: 'the code is not valid', code: 'invalid_code', status: 403 });
  t.like(_errorFrom(502, undefined), { message: 'HTTP 502', code: 'http_error', status: 502 });
  t.like(_errorFrom(500, { error: 7, code: null }), { message: 'HTTP 500', code: 'http_error' });
});

test('wrong arguments reject with a TypeError before any request; passkeys outside a browser are unsupported', async (t) => {
  await t.throwsAsync(verifyMfa({} as { code: string }), { instanceOf: TypeError, message: /^verifyMfa\(answer\)/ });
  await t.throwsAsync(confirmTotp(123456 as unknown as string), { instanceOf: TypeError, message: /^confirmTotp\(code\): code must be a string/ });
  const err = await t.throwsAsync(verifyMfaWithPasskey(), { instanceOf: MfaError });
  t.like(err, { code: 'unsupported', status: 0 });
});

test("against a real app: without a login or a session the routes refuse, and the MfaError carries the server's status and code", async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const base = `${app.url}/auth`;
  for (const [name, call] of [
    ['mfaStatus', () => mfaStatus({ base })],
    ['setupTotp', () => setupTotp({ base })],
    ['newRecoveryCodes', () => newRecoveryCodes({ base })],
    ['verifyMfa', () => verifyMfa({ code: '123456' }, { base })],
  ] as const) {
    const err = await t.throwsAsync(call(), { instanceOf: MfaError }, name);
    t.is(err?.status, 401, name);
    t.regex(err?.code ?? '', /^[a-z_]+$/, name);
    t.not(err?.code, 'http_error', `${name}: the server's own code`);
  }
});
