/**
 * Koa's convention for unexpected errors: every 5xx authkoa answers (a throwing checker, hook, validator
 * or store, a provider that is down) is emitted as `app.emit('error', err, ctx)` with the original error,
 * which Koa prints unless the app listens or is silent; expected refusals (4xx) stay quiet. The answer is
 * authkoa's JSON either way: Koa's own error response never runs.
 */
import test from 'ava';
import type Koa from 'koa';
import { AuthError } from '../../lib/index.js';
import { Client, startApp, type TestApp } from '../helpers/http.js';
import { startStandin } from '../oauth2/standin.js';
import { standinLogin } from '../oauth2/fixtures.js';
import { baseOptions } from './fixtures.js';

const boom = new Error('database is down');

function throwingChecker(thrown: unknown = boom) {
  return {
    kind: 'direct' as const,
    name: 'direct',
    checker: (user: string, passwd: string) => {
      if (user === 'crash') throw thrown;
      return passwd === 'password';
    },
  };
}

/** Every error the app emits, with the path of the request it came from. */
function collect(app: TestApp): Array<{ err: unknown; path: string }> {
  const seen: Array<{ err: unknown; path: string }> = [];
  app.app.on('error', (err: unknown, ctx: Koa.Context) => seen.push({ err, path: ctx.path }));
  return seen;
}

const login = (app: TestApp, user: string, passwd = 'password') =>
  new Client(app.url).fetch('/auth/direct/login', { method: 'POST', json: { user, passwd } });

async function jsonError(res: Response): Promise<{ error: string; code: string }> {
  if (!/^application\/json/.test(res.headers.get('content-type') ?? ''))
    throw new Error(`not JSON: ${res.status} ${res.headers.get('content-type')}`);
  return (await res.json()) as { error: string; code: string };
}

test('a throwing checker: 500 checker_failed, and the checker’s own error emitted with the request; a wrong password emits nothing', async (t) => {
  const app = await startApp(baseOptions({ providers: [throwingChecker()] }));
  t.teardown(() => app.close());
  const seen = collect(app);

  const refused = await login(app, 'alice', 'wrong');
  t.is(refused.status, 403);
  t.is((await jsonError(refused)).code, 'bad_credentials');
  t.is((await new Client(app.url).fetch('/private')).status, 401);
  t.deepEqual(seen, [], '4xx are expected refusals: nothing emitted');

  const failed = await login(app, 'crash');
  t.is(failed.status, 500);
  t.deepEqual(await jsonError(failed), { error: 'failed to check user credentials', code: 'checker_failed' });
  t.is(seen.length, 1);
  t.is(seen[0]!.err, boom, 'the original error, not a wrapper');
  t.is(seen[0]!.path, '/auth/direct/login');
});

test('5xx of every kind are emitted: a throwing hook, a throwing validator (auth and trace), a provider that is down', async (t) => {
  const standin = await startStandin({ login: 'octo', id: 1, name: 'Octo' });
  const hookError = new Error('hook failed');
  let hookFails = true;
  const validatorError = new Error('validator failed');
  const app = await startApp(
    baseOptions({
      providers: [throwingChecker(), { name: 'github', cid: 'c', csecret: 's', ...standin.endpoints() }],
      preAuthHook: (_ctx: unknown, provider: string) => {
        if (provider === 'github' && hookFails) throw hookError;
      },
      validator: (_token: string, claims: { user?: { name: string } }) => {
        if (claims.user?.name === 'crash-later') throw validatorError;
        return true;
      },
    }),
  );
  t.teardown(async () => {
    await app.close();
    await standin.close();
  });
  const seen = collect(app);

  const hooked = await new Client(app.url).fetch('/auth/github/login');
  t.is(hooked.status, 500);
  t.is((await jsonError(hooked)).code, 'internal_error');
  t.is(seen.at(-1)?.err, hookError);

  const c = new Client(app.url);
  t.is(
    (await c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'crash-later', passwd: 'password' } })).status,
    200,
  );
  const guarded = await c.fetch('/private', { headers: c.xsrf() });
  t.is(guarded.status, 500);
  t.is((await jsonError(guarded)).code, 'internal_error');
  t.is(seen.at(-1)?.err, validatorError);
  const traced = await c.fetch('/open', { headers: c.xsrf() });
  t.is(traced.status, 201, 'trace never refuses');
  t.deepEqual(await traced.json(), { user: null });
  t.is(seen.length, 3, 'and still reports the failure');

  // The provider answers 500 at its user info: a 5xx for the operator, whose cause is emitted.
  hookFails = false;
  standin.script.infoStatus = 500;
  const down = await standinLogin(new Client(app.url), 'github');
  t.true(down.status >= 502 && down.status <= 503, `provider down → ${down.status}`);
  await jsonError(down);
  t.is(seen.length, 4);
  t.true(seen[3]!.err instanceof Error);
});

test('a thrown non-Error (a string) is emitted as the AuthError, which Koa’s handler accepts', async (t) => {
  const app = await startApp(baseOptions({ providers: [throwingChecker('plain string')] }));
  t.teardown(() => app.close());
  const seen = collect(app);
  const res = await login(app, 'crash');
  t.is(res.status, 500);
  t.is((await jsonError(res)).code, 'checker_failed');
  t.is(seen.length, 1);
  t.true(seen[0]!.err instanceof AuthError);
  t.is((seen[0]!.err as AuthError).code, 'checker_failed');
});

test('a listener that throws does not change the answer', async (t) => {
  const app = await startApp(baseOptions({ providers: [throwingChecker()] }));
  t.teardown(() => app.close());
  app.app.on('error', () => {
    throw new Error('listener bug');
  });
  // Bounded: an emit that threw past authkoa would leave the request unanswered.
  const res = await new Client(app.url).fetch('/auth/direct/login', {
    method: 'POST',
    json: { user: 'crash', passwd: 'p' },
    signal: AbortSignal.timeout(10_000),
  });
  t.is(res.status, 500);
  t.is((await jsonError(res)).code, 'checker_failed');
  t.is((await login(app, 'alice')).status, 200, 'the app stays up');
});

// Serial: it replaces console.error for the length of one request.
test.serial(
  'without a listener, Koa’s default handler prints the error and the answer stays authkoa’s JSON',
  async (t) => {
    const app = await startApp(baseOptions({ providers: [throwingChecker()] }));
    t.teardown(() => app.close());
    app.app.silent = false; // startApp silences Koa for the suite; this test is about the default
    const printed: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void printed.push(args.map(String).join(' '));
    let res: Response;
    let body: string;
    try {
      res = await login(app, 'crash');
      body = await res.text();
      t.is((await login(app, 'alice', 'wrong')).status, 403);
    } finally {
      console.error = original;
    }
    t.is(res.status, 500);
    t.regex(res.headers.get('content-type')!, /^application\/json/);
    t.deepEqual(JSON.parse(body), { error: 'failed to check user credentials', code: 'checker_failed' });
    t.is(printed.length, 1, 'printed once, and the 403 not at all');
    t.regex(printed[0]!, /database is down/);
    t.regex(printed[0]!, /at /, 'with its stack');
  },
);
