/**
 * The suite-wide check can fail: startApp()'s close() checks every answer of the auth routes against
 * `auth.openapi()` (spec/helpers/answers.ts), and here an app answers a wrong field on purpose — a kind
 * whose login answers another shape than its routeDocs promise, and a built-in route whose body a
 * middleware in front of authkoa changed — so close() must reject, naming each answer and why.
 */
import test from 'ava';
import type Koa from 'koa';
import { registerProvider, type AuthKoaOptions, type Provider } from '../../lib/index.js';
import { ContractError } from '../helpers/answers.js';
import { Client, startApp } from '../helpers/http.js';

const SECRET = 'openapi-check-test-secret-0123456789abcdef';

/** A closed user body: the kind promises exactly these three fields. */
const PROMISED = {
  type: 'object',
  required: ['name', 'id', 'picture'],
  additionalProperties: false,
  properties: { name: { type: 'string' }, id: { type: 'string' }, picture: { type: 'string' } },
};

// `leak=1` makes its login answer one field more than its routeDocs declare.
registerProvider({
  kind: 'openapi-check-promise',
  create(opts): Provider {
    return {
      name: String(opts.name),
      async login(ctx) {
        ctx.type = 'application/json';
        ctx.body = JSON.stringify({
          name: 'ann',
          id: 'check_1',
          picture: '',
          ...(ctx.query.leak ? { passwd: 'hunter2' } : {}),
        });
      },
      async logout() {},
      routeDocs: {
        login: {
          get: {
            responses: { 200: { description: 'the user', content: { 'application/json': { schema: PROMISED } } } },
          },
        },
      },
    };
  },
});

const options = {
  secret: SECRET,
  telemetry: false,
  providers: [{ kind: 'openapi-check-promise', name: 'promise' }],
} as unknown as AuthKoaOptions;

test('answers as promised: close() resolves', async (t) => {
  const app = await startApp(options);
  const res = await new Client(app.url).fetch('/auth/promise/login');
  t.is(res.status, 200);
  t.true(
    app.answers.some((a) => a.path === '/auth/promise/login' && a.status === 200),
    'the answer was recorded',
  );
  await t.notThrowsAsync(app.close());
});

test("a kind's login answering a field its routeDocs do not declare: close() rejects naming the answer", async (t) => {
  const app = await startApp(options);
  t.teardown(() => app.close().catch(() => undefined));
  t.is((await new Client(app.url).fetch('/auth/promise/login')).status, 200);
  t.is((await new Client(app.url).fetch('/auth/promise/login?leak=1')).status, 200);
  const err = await t.throwsAsync(app.close(), { instanceOf: ContractError });
  t.is(err!.wrong.length, 1, 'only the answer with the extra field is named');
  t.regex(err!.message, /GET \/auth\/promise\/login 200 application\/json: .*must NOT have additional properties/);
  t.regex(err!.message, /"passwd":"hunter2"/, 'the body is quoted');
});

test('a built-in route whose body gains a field in front of authkoa: close() rejects naming method, path, status and the schema error', async (t) => {
  const addField: Koa.Middleware = async (ctx, next) => {
    await next();
    if (ctx.path === '/auth/status') ctx.body = JSON.stringify({ ...JSON.parse(String(ctx.body)), debug: true });
  };
  const app = await startApp(options, (_router, _auth, koa) => koa.use(addField));
  t.teardown(() => app.close().catch(() => undefined));
  const res = await new Client(app.url).fetch('/auth/status');
  t.like(await res.json(), { status: 'not logged in', debug: true });
  const err = await t.throwsAsync(app.close(), { instanceOf: ContractError });
  t.regex(err!.message, /GET \/auth\/status 200 application\/json: data must NOT have additional properties/);
});

test('a route answering a status the document does not give it, or a text error body, fails too', async (t) => {
  const app = await startApp(options, (_router, _auth, koa) =>
    koa.use(async (ctx, next) => {
      if (ctx.path === '/auth/list' && ctx.query.teapot) {
        ctx.status = 418;
        ctx.type = 'text/plain';
        ctx.body = 'short and stout';
        return;
      }
      await next();
    }),
  );
  t.teardown(() => app.close().catch(() => undefined));
  t.is((await new Client(app.url).fetch('/auth/list?teapot=1')).status, 418);
  const err = await t.throwsAsync(app.close(), { instanceOf: ContractError });
  t.regex(
    err!.message,
    /GET \/auth\/list 418 text\/plain: GET \/auth\/list 418: text\/plain is not an answer the document lists/,
  );
});

test("an error that escapes to Koa's own handler (a text body) fails too", async (t) => {
  const app = await startApp(options, (_router, _auth, koa) =>
    koa.use(async (ctx, next) => {
      if (ctx.path === '/auth/status') throw new Error('a middleware in front failed');
      await next();
    }),
  );
  t.teardown(() => app.close().catch(() => undefined));
  const res = await new Client(app.url).fetch('/auth/status');
  t.is(res.status, 500);
  t.is(await res.text(), 'Internal Server Error');
  const err = await t.throwsAsync(app.close(), { instanceOf: ContractError });
  t.regex(
    err!.message,
    /GET \/auth\/status 500 text\/plain: .*text\/plain is not an answer the document lists in "\(escaped: a middleware in front failed\)"/,
  );
});
