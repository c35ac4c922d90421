/**
 * `auth.openapi()`: the OpenAPI 3.1 description of a running configuration. A real validator
 * (@seriousme/openapi-schema-validator, OpenAPI 3.1's own JSON schema) accepts it; its paths follow the
 * options and providers; and real answers of the routes conform to it, checked by Ajv, while a body
 * with a wrong field is caught.
 */
import test from 'ava';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ERROR_CODES } from '../../lib/index.js';
import { MFA_ERRORS } from '../../lib/mfa/errors.js';
import { BENCH_KEYS } from '../../bench/keys.js';
import { Client, startApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { contractChecker } from './contract.js';

const SECRET = 'openapi-test-secret-0123456789abcdefghij';

async function fullApp(t: import('ava').ExecutionContext) {
  const app = await startApp({
    secret: SECRET,
    telemetry: false,
    adminPasswd: 'admin-pw',
    avatarStore: `lmdb://${tempDir(t)}/avatars`,
    signing: { alg: 'EdDSA', key: BENCH_KEYS.EdDSA },
    mfa: { store: 'memory://' },
    providers: [
      { kind: 'direct', name: 'local', checker: (_u: string, p: string) => p === 'pw' },
      { kind: 'dev', port: 0 },
    ],
  });
  t.teardown(() => app.close());
  return app;
}

test('the document of a configuration validates as OpenAPI 3.1 and lists its core, provider, feature and avatar routes', async (t) => {
  const app = await fullApp(t);
  const doc = await app.auth.openapi();
  const result = await new Validator().validate(doc as never);
  t.true(result.valid, JSON.stringify(result.errors, null, 1));
  t.false(
    (await new Validator().validate({ ...doc, paths: { 'auth/list': {} } } as never)).valid,
    'the validator refuses a path without its leading slash',
  );
  t.is(doc.openapi, '3.1.0');
  t.deepEqual(doc.servers, [{ url: app.url }]);
  for (const path of [
    '/auth/list',
    '/auth/user',
    '/auth/status',
    '/auth/logout',
    '/auth/local/login',
    '/auth/dev/login',
    '/auth/dev/callback',
    '/auth/sessions',
    '/auth/sessions/{sid}',
    '/auth/.well-known/jwks.json',
    '/auth/mfa/verify',
    '/avatar/{id}',
  ]) {
    t.truthy(doc.paths[path], path);
  }
  // authkoa's codes, then those of the features configured: the second factor's.
  t.deepEqual((doc.components.schemas.Error as { properties: { code: { enum: string[] } } }).properties.code.enum, [
    ...ERROR_CODES,
    ...Object.keys(MFA_ERRORS),
  ]);
  t.deepEqual(Object.keys(MFA_ERRORS), [
    'mfa_session_invalid',
    'mfa_session_expired',
    'enrollment_required',
    'factor_not_enrolled',
    'totp_not_pending',
  ]);
  t.like(doc.components.securitySchemes, {
    jwtCookie: { in: 'cookie', name: 'JWT' },
    xsrfHeader: { in: 'header', name: 'x-xsrf-token' },
    basicAuth: { scheme: 'basic' },
  });
});

test('the paths follow the options: no key set without signing, no second factor without mfa, no avatar route without a store', async (t) => {
  const app = await startApp({
    secret: SECRET,
    telemetry: false,
    providers: [{ kind: 'direct', name: 'local', checker: () => true }],
  });
  t.teardown(() => app.close());
  const doc = await app.auth.openapi();
  t.true((await new Validator().validate(doc as never)).valid);
  t.falsy(doc.paths['/auth/.well-known/jwks.json']);
  t.false(Object.keys(doc.paths).some((p) => p.startsWith('/auth/mfa')));
  const codes = (doc.components.schemas.Error as { properties: { code: { enum: string[] } } }).properties.code.enum;
  t.deepEqual(codes, [...ERROR_CODES], "no second factor's code without mfa: they are its own");
  t.falsy(doc.paths['/avatar/{id}']);
  t.falsy(doc.components.securitySchemes.basicAuth);
});

test('real answers of the routes conform to the document; a body with a wrong field does not', async (t) => {
  const app = await fullApp(t);
  const contract = contractChecker((await app.auth.openapi()) as never);
  const c = new Client(app.url);
  const seen: Array<[string, string, number, unknown]> = [];
  const call = async (method: string, url: string, path: string, init: Parameters<Client['fetch']>[1] = {}) => {
    const res = await c.fetch(url, { method, ...init });
    const text = await res.text();
    seen.push([method, path, res.status, text ? JSON.parse(text) : undefined]);
    return res.status;
  };
  t.is(await call('GET', '/auth/list', '/auth/list'), 200);
  t.is(await call('GET', '/auth/list?details=1', '/auth/list'), 200);
  t.is(await call('GET', '/auth/status', '/auth/status'), 200);
  t.is(await call('GET', '/auth/user', '/auth/user'), 401);
  t.is(await call('POST', '/auth/local/login', '/auth/local/login', { json: { user: 'alice', passwd: 'wrong' } }), 403);
  t.is(await call('POST', '/auth/local/login', '/auth/local/login', { json: { user: 'alice', passwd: 'pw' } }), 200);
  t.is(await call('GET', '/auth/user', '/auth/user', { headers: c.xsrf() }), 200);
  t.is(await call('GET', '/auth/status', '/auth/status', { headers: c.xsrf() }), 200);
  t.is(await call('GET', '/auth/sessions', '/auth/sessions', { headers: c.xsrf() }), 200);
  t.is(await call('GET', '/auth/.well-known/jwks.json', '/auth/.well-known/jwks.json'), 200);
  t.is(await call('GET', '/auth/mfa', '/auth/mfa', { headers: c.xsrf() }), 200);
  t.is(await call('DELETE', '/auth/sessions/nope', '/auth/sessions/{sid}', { headers: c.xsrf() }), 404);
  for (const [method, path, status, body] of seen) {
    const r = contract.check(method, path, status, body);
    t.true(r.ok, `${method} ${path} ${status}: ${r.errors} in ${JSON.stringify(body)}`);
  }
  // The check can fail: a status with a field the document does not have, an error code that does not exist.
  t.false(contract.check('GET', '/auth/status', 200, { status: 'logged in', user: 'alice', admin: true }).ok);
  t.false(contract.check('POST', '/auth/local/login', 403, { error: 'no', code: 'no_such_code' }).ok);
  t.false(contract.check('GET', '/auth/user', 200, { name: 'alice', id: 'x' }).ok, 'a user without its picture');
});

test("a kind's own route docs: direct's login reads a query or a JSON or form body, its callback answers an empty 200; a kind without them is described generically", async (t) => {
  const app = await fullApp(t);
  const doc = (await app.auth.openapi()) as unknown as {
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, unknown> };
          parameters?: Array<{ name: string }>;
          responses: Record<string, unknown>;
        }
      >
    >;
  };
  const login = doc.paths['/auth/local/login']!;
  t.deepEqual(Object.keys(login.post!.requestBody!.content).sort(), [
    'application/json',
    'application/x-www-form-urlencoded',
  ]);
  t.deepEqual(
    login.get!.parameters!.map((p) => p.name),
    ['user', 'passwd', 'aud', 'session'],
  );
  t.truthy(login.get!.responses['4XX'], "the common error answers are added to a kind's own operation");
  t.falsy(doc.paths['/auth/dev/login']!.post!.requestBody, 'dev declares nothing: described generically');

  const contract = contractChecker(doc as never);
  const c = new Client(app.url);
  const callback = await c.fetch('/auth/local/callback');
  t.is(callback.status, 200);
  t.is(await callback.text(), '');
  t.is(callback.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.true(contract.check('GET', '/auth/local/callback', 200, '', 'text/plain').ok, 'an empty text body, as described');
  t.false(
    contract.check('GET', '/auth/local/callback', 200, 'x', 'text/plain').ok,
    'text where the body is described empty is caught',
  );
  t.false(
    contract.check('GET', '/auth/local/callback', 200, { name: 'x' }).ok,
    'a JSON body where none is described is caught',
  );
  const viaQuery = await c.fetch('/auth/local/login?user=alice&passwd=pw');
  t.is(viaQuery.status, 200);
  const r = contract.check('GET', '/auth/local/login', 200, await viaQuery.json());
  t.true(r.ok, r.errors);
});
