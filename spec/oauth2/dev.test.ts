import test from 'ava';
import { authKoa } from '../../lib/index.js';
import { startDevOAuthServer } from '../../lib/providers/dev.js';
import { Client, decodeJwt, startApp } from '../helpers/http.js';
import { devAuthorize, options, startLogin } from './fixtures.js';

test('dev provider: form login ends with a JWT cookie for the raw user name, picture and email', async (t) => {
  const app = await startApp(options([{ kind: 'dev', port: 0, emailDomain: 'example.com' }]));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const authorize = await startLogin(c, 'dev');
  t.is(authorize.pathname, '/login/oauth/authorize');
  t.is(authorize.searchParams.get('redirect_uri'), `${app.url}/auth/dev/callback`);
  t.is(authorize.searchParams.get('code_challenge_method'), 'S256');
  t.truthy(c.jar.get('JWT-handshake'));
  const callback = await devAuthorize(authorize, 'alice');
  t.true(callback.startsWith(`${app.url}/auth/dev/callback?`));
  const res = await c.fetch(callback);
  t.is(res.status, 200);
  const user = (await res.json()) as Record<string, string>;
  t.is(user.id, 'alice');
  t.is(user.name, 'alice');
  t.is(user.email, 'alice@example.com');
  t.is(user.picture, `${authorize.origin}/avatar?user=alice`);
  const claims = decodeJwt(c.jar.get('JWT')!);
  t.is(claims.user.id, 'alice');
  t.deepEqual(claims.auth_provider, { name: 'dev' });
  t.false(c.jar.has('JWT-handshake'), 'the handshake cookie is cleared on use');
  const priv = await c.fetch('/private', { headers: c.xsrf() });
  t.is(priv.status, 201);
});

test('dev provider by name, with an email function; avatar is a PNG', async (t) => {
  const app = await startApp(options([{ name: 'dev', port: 0, emailFunc: (n: string) => `${n}+dev@corp.test` }]));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const authorize = await startLogin(c, 'dev');
  const res = await c.fetch(await devAuthorize(authorize, 'bob'));
  const user = (await res.json()) as Record<string, string>;
  t.is(user.email, 'bob+dev@corp.test');
  const png = await fetch(user.picture!);
  t.is(png.headers.get('content-type'), 'image/png');
  const bytes = Buffer.from(await png.arrayBuffer());
  t.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
});

test('dev server without an email setting gives no email; unknown routes 400; bad bearer 401', async (t) => {
  const server = await startDevOAuthServer({ port: 0 });
  t.teardown(() => server.close());
  t.is((await fetch(`${server.url}/nope`)).status, 400);
  t.is((await fetch(`${server.url}/user`, { headers: { Authorization: 'Bearer nope' } })).status, 401);
  const app = await startApp(options([{ kind: 'dev', port: 0 }]));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const res = await c.fetch(await devAuthorize(await startLogin(c, 'dev'), 'carol'));
  t.is(((await res.json()) as Record<string, unknown>).email, undefined);
});

test('dev server refuses a redirect_uri outside the allowed origins and a foreign host by default', async (t) => {
  const server = await startDevOAuthServer({ port: 0, redirectOrigins: ['http://127.0.0.1:1'] });
  t.teardown(() => server.close());
  const q = (uri: string) =>
    `${server.url}/login/oauth/authorize?response_type=code&client_id=x&state=s&redirect_uri=${encodeURIComponent(uri)}`;
  t.is((await fetch(q('http://127.0.0.1:2/cb'))).status, 400);
  t.is((await fetch(q('http://127.0.0.1:1/cb'))).status, 200);
  const open = await startDevOAuthServer({ port: 0 });
  t.teardown(() => open.close());
  const q2 = (uri: string) =>
    `${open.url}/login/oauth/authorize?response_type=code&client_id=x&redirect_uri=${encodeURIComponent(uri)}`;
  t.is((await fetch(q2('https://evil.example/cb'))).status, 400);
  t.is((await fetch(q2('javascript:alert(1)'))).status, 400);
  t.is((await fetch(q2('http://localhost:3000/auth/dev/callback'))).status, 200);
});

test('dev server: codes are single-use and PKCE is enforced', async (t) => {
  const server = await startDevOAuthServer({ port: 0 });
  t.teardown(() => server.close());
  const redirect = 'http://127.0.0.1:9/cb';
  const auth = await fetch(
    `${server.url}/login/oauth/authorize?response_type=code&client_id=x&state=s&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&redirect_uri=${encodeURIComponent(redirect)}`,
    {
      method: 'POST',
      body: new URLSearchParams({ username: 'u' }),
      redirect: 'manual',
    },
  );
  t.is(auth.status, 302);
  const code = new URL(auth.headers.get('location')!).searchParams.get('code')!;
  const exchange = (verifier: string) =>
    fetch(`${server.url}/login/oauth/access_token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirect,
        code_verifier: verifier,
      }),
    });
  t.is((await exchange('wrong-verifier')).status, 400, 'wrong verifier burns the code');
  t.is((await exchange('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).status, 400, 'a used code is refused');
});

test('dev server: a Basic header with a broken %-escape in the client id is a 4xx JSON answer, not a 500', async (t) => {
  const server = await startDevOAuthServer({ port: 0 });
  t.teardown(() => server.close());
  for (const body of <Record<string, string>[]>[
    { grant_type: 'authorization_code', code: 'nope', redirect_uri: 'http://127.0.0.1:9/cb' },
    { grant_type: 'password' },
  ]) {
    const res = await fetch(`${server.url}/login/oauth/access_token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('%E0%A4%A:secret').toString('base64')}` },
      body: new URLSearchParams(body),
    });
    t.is(res.status, 400, body.grant_type);
    t.is(typeof (await res.json()).error, 'string');
  }
});

test.serial('dev provider refuses to exist under NODE_ENV=production', async (t) => {
  const prev = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  t.teardown(() => {
    process.env.NODE_ENV = prev;
  });
  await t.throwsAsync(authKoa({ ...options([{ kind: 'dev', port: 0 }]), url: 'http://127.0.0.1:1' }).ready, {
    message: /providers\[0\] \(dev\): .*production/,
  });
  await t.throwsAsync(() => startDevOAuthServer({ port: 0 }), { message: /production/ });
});

test('dev provider warns loudly when its server starts', async (t) => {
  const lines: string[] = [];
  const app = await startApp(options([{ kind: 'dev', port: 0 }], { logger: (m: string) => lines.push(m) }));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  await startLogin(c, 'dev');
  t.true(lines.some((l) => l.includes('[WARN]') && /DEV OAUTH2 SERVER.*never in production/i.test(l)));
});
