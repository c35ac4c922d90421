import test from 'ava';
import { Client, decodeJwt, startApp } from '../helpers/http.js';
import { baseOptions, directProvider } from './fixtures.js';

const expectedUser = { name: 'dev_direct', id: 'direct_38773b45e3a477434abb6d08668358a2b0ddd2f5', picture: '' };

test('direct login by GET query, form POST, JSON POST and JSON with charset all answer the User', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const variants: Array<[string, RequestInit & { json?: unknown; form?: Record<string, string> }]> = [
    ['/auth/direct/login?user=dev_direct&passwd=password', {}],
    ['/auth/direct/login', { method: 'POST', form: { user: 'dev_direct', passwd: 'password' } }],
    ['/auth/direct/login', { method: 'POST', json: { user: 'dev_direct', passwd: 'password' } }],
    [
      '/auth/direct/login',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ user: 'dev_direct', passwd: 'password' }),
      },
    ],
  ];
  for (const [path, init] of variants) {
    const c = new Client(app.url);
    const res = await c.fetch(path, init);
    t.is(res.status, 200);
    t.is(await res.text(), JSON.stringify(expectedUser) + '\n');
    t.true(c.jar.has('JWT'));
    t.true(c.jar.has('XSRF-TOKEN'));
  }
});

test('wrong credentials → 403 JSON and no cookies', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const res = await c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'dev_direct', passwd: 'bad' } });
  t.is(res.status, 403);
  t.deepEqual(await res.json(), { error: 'incorrect user or password', code: 'bad_credentials' });
  t.deepEqual(res.headers.getSetCookie(), []);
});

test('unparsable input → 400; a body over 1 MiB → 413', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.is(
    (
      await c.fetch('/auth/direct/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{bad',
      })
    ).status,
    400,
  );
  t.is(
    (await c.fetch('/auth/direct/login', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'user=a' }))
      .status,
    400,
  );
  t.is((await c.fetch('/auth/direct/login', { method: 'POST', json: ['user'] })).status, 400);
  t.is((await c.fetch('/auth/direct/login', { method: 'POST', json: {} })).status, 400);
  const big = await c.fetch('/auth/direct/login', {
    method: 'POST',
    json: { user: 'u', passwd: 'x'.repeat(1024 * 1024 + 10) },
  });
  t.is(big.status, 413);
  t.is(((await big.json()) as { code: string }).code, 'body_too_large');
});

test('a JSON __proto__ payload changes nothing', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const body =
    '{"user":"dev_direct","passwd":"password","__proto__":{"admin":true,"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}';
  const res = await c.fetch('/auth/direct/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  t.is(res.status, 200);
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.deepEqual(await res.json(), expectedUser);
  t.is(decodeJwt(c.jar.get('JWT')!).user.attrs, undefined);
});

test('session=1 gives session-only cookies without Max-Age; session=0 and sess=0 persistent', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = new Client(app.url);
  await c.fetch('/auth/direct/login?session=1', { method: 'POST', json: { user: 'u', passwd: 'password' } });
  t.is(c.cookie('JWT')!.attrs['max-age'], undefined);
  t.is(c.cookie('XSRF-TOKEN')!.attrs['max-age'], undefined);
  t.true(decodeJwt(c.jar.get('JWT')!).sess_only);
  for (const q of ['session=0', 'sess=0', '']) {
    const d = new Client(app.url);
    await d.fetch(`/auth/direct/login?${q}`, { method: 'POST', json: { user: 'u', passwd: 'password' } });
    t.is(d.cookie('JWT')!.attrs['max-age'], String(31 * 86400), q);
  }
  const legacy = new Client(app.url);
  await legacy.fetch('/auth/direct/login?sess=1', { method: 'POST', json: { user: 'u', passwd: 'password' } });
  t.is(legacy.cookie('JWT')!.attrs['max-age'], undefined);
});

test('a checker that throws → 500 JSON without the error text', async (t) => {
  const app = await startApp(
    baseOptions({
      providers: [
        {
          kind: 'direct',
          name: 'direct',
          checker: () => {
            throw new Error('database password is hunter2');
          },
        },
      ],
    }),
  );
  t.teardown(() => app.close());
  const res = await new Client(app.url).fetch('/auth/direct/login?user=u&passwd=p');
  t.is(res.status, 500);
  const text = await res.text();
  t.notRegex(text, /hunter2/);
  t.deepEqual(JSON.parse(text), { error: 'failed to check user credentials', code: 'checker_failed' });
});

test('userIdFunc makes a custom raw id', async (t) => {
  const app = await startApp(
    baseOptions({
      providers: [{ kind: 'direct', name: 'direct', checker: () => true, userIdFunc: () => 'custom_blah' }],
    }),
  );
  t.teardown(() => app.close());
  const res = await new Client(app.url).fetch('/auth/direct/login?user=u&passwd=p');
  t.is(((await res.json()) as { id: string }).id, 'direct_' + (await import('../../lib/user.js')).sha1('custom_blah'));
});

test('pre-auth and post-auth hooks run around every login; either can refuse it', async (t) => {
  const calls: string[] = [];
  const app = await startApp(
    baseOptions({
      // The credential check is recorded too, so the log shows the hooks on either side of it.
      providers: [
        {
          ...directProvider,
          checker: (user: string, passwd: string) => (
            calls.push(`check:${user}`),
            directProvider.checker(user, passwd)
          ),
        },
      ],
      preAuthHook: (ctx, provider) => {
        calls.push(`pre:${provider}`);
        if (ctx.query.user === 'early') throw new (class extends Error {})('x');
      },
      postAuthHook: (_ctx, user, provider) => {
        calls.push(`post:${provider}:${user.name}`);
        if (user.name === 'late') throw new Error('refused after the credentials were checked');
        user.email = `${user.name}@example.com`;
      },
    }),
  );
  t.teardown(() => app.close());
  // Every login, by GET query and by form POST: pre, then the check, then post, whose edit reaches the token.
  const logins: Array<[string, RequestInit & { form?: Record<string, string> }]> = [
    ['/auth/direct/login?user=u&passwd=password', {}],
    ['/auth/direct/login', { method: 'POST', form: { user: 'v', passwd: 'password' } }],
  ];
  for (const [path, init] of logins) {
    const c = new Client(app.url);
    const res = await c.fetch(path, init);
    t.is(res.status, 200);
    const { name, email } = (await res.json()) as { name: string; email: string };
    t.is(email, `${name}@example.com`);
    t.is(decodeJwt(c.jar.get('JWT')!).user.email, `${name}@example.com`);
  }
  t.deepEqual(calls, ['pre:direct', 'check:u', 'post:direct:u', 'pre:direct', 'check:v', 'post:direct:v']);

  // The pre-auth hook refuses before the credentials are even checked.
  calls.length = 0;
  const early = await new Client(app.url).fetch('/auth/direct/login?user=early&passwd=password');
  t.is(early.status, 500);
  t.deepEqual(await early.json(), { error: 'internal error', code: 'internal_error' });
  t.deepEqual(early.headers.getSetCookie(), []);
  t.deepEqual(calls, ['pre:direct']);

  // The post-auth hook refuses a user whose credentials were good: no session is issued.
  calls.length = 0;
  const late = await new Client(app.url).fetch('/auth/direct/login?user=late&passwd=password');
  t.is(late.status, 500);
  t.deepEqual(await late.json(), { error: 'internal error', code: 'internal_error' });
  t.deepEqual(late.headers.getSetCookie(), []);
  t.deepEqual(calls, ['pre:direct', 'check:late', 'post:direct:late']);
});
