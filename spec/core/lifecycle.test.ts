/**
 * The instance's life: start-up behind `auth.ready`, requests that arrive before it, and `close()`
 * (or a failed start) leaving no listening socket, poller or timer behind. Serial: the checks read
 * the process's active handles.
 */
import test from 'ava';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Koa from 'koa';
import { authKoa, registerProvider, type AuthKoaOptions, type ProviderEntry } from '../../lib/index.js';
import { BOT_TOKEN, startFakeBotApi } from '../helpers/telegram.js';
import { contractRecorder } from '../helpers/answers.js';
import { Client, serve } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

const SECRET = 'lifecycle-test-secret-0123456789';

/**
 * Listening sockets, timers and workers that keep this process alive, sorted: what a leak shows up as.
 * Connected sockets are left out: the Bot API stand-in runs in this process, and its side of an idle
 * keep-alive connection is its own.
 */
function handles(): string[] {
  return process
    .getActiveResourcesInfo()
    .filter((r) => /^(TCPServerWrap|Timeout|Worker|MessagePort)$/.test(r))
    .sort();
}

/** Handle types of which more are open now than in `baseline` (a handle of an earlier test may close meanwhile). */
function leaked(baseline: string[]): string[] {
  const left = [...baseline];
  return handles().filter((h) => {
    const i = left.indexOf(h);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

/**
 * What is still open beyond `baseline` once closing handles have finished closing: a closed server or
 * worker goes on the next turns of the event loop. Timers are cleared at once (clearTimeout is
 * synchronous), so a timer still there after 100 turns was never cleared: leaked. A worker thread's
 * exit, though, is another thread's work, which a loaded machine may not schedule within any count of
 * quick turns: servers, workers and ports get until they close, looked at every 10 ms (an unref'd timer,
 * which getActiveResourcesInfo() does not list), with 10 s as the safety net.
 */
async function leakedAfterClose(baseline: string[]): Promise<string[]> {
  for (let turn = 0; turn < 100 && leaked(baseline).length > 0; turn++)
    await new Promise((resolve) => setImmediate(resolve));
  const timers = leaked(baseline).filter((h) => h === 'Timeout');
  const others = () => leaked(baseline).filter((h) => h !== 'Timeout');
  const deadline = Date.now() + 10_000;
  while (others().length > 0 && Date.now() < deadline) await sleep(10, undefined, { ref: false });
  return [...timers, ...others()].sort();
}

function startingEverything(apiRoot: string): ProviderEntry[] {
  return [
    { kind: 'dev', port: 0 },
    { kind: 'server', name: 'corp', url: 'http://127.0.0.1:0', checker: () => true },
    {
      kind: 'telegram',
      name: 'telegram',
      token: BOT_TOKEN,
      apiRoot,
      poll: true,
      pollTimeout: 1,
      backoff: { min: 20, max: 200 },
    },
    { kind: 'verified', name: 'email', sender: () => {} },
  ];
}

test.serial(
  'close() stops every server, poller, store and worker the instance started: no handle is left',
  async (t) => {
    const api = await startFakeBotApi();
    t.teardown(() => api.close());
    const before = handles();
    const auth = authKoa({
      secret: SECRET,
      url: 'http://127.0.0.1:1',
      avatarStore: `lmdb://${join(tempDir(t, 'authkoa-life-'), 'avatars')}`,
      avatarResizeLimit: 32,
      providers: startingEverything(api.apiRoot),
    });
    t.teardown(() => auth.close());
    await auth.ready;
    t.deepEqual(leaked(before), ['TCPServerWrap', 'TCPServerWrap'], 'the dev and the local OAuth2 server listen');
    await auth.close();
    t.deepEqual(await leakedAfterClose(before), []);
  },
);

test.serial('an authKoa() whose later entry fails to start closes what the earlier entries started', async (t) => {
  const api = await startFakeBotApi();
  t.teardown(() => api.close());
  const before = handles();
  const logs: string[] = [];
  const auth = authKoa({
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    logger: (msg: string) => logs.push(msg),
    providers: [...startingEverything(api.apiRoot), { kind: 'direct', name: 'broken' } as ProviderEntry],
  });
  await t.throwsAsync(auth.ready, { message: /^authKoa: providers\[4\] \(direct\): checker must be a function/ });
  t.deepEqual(await leakedAfterClose(before), []);
  t.true(
    logs.some((l) => l.includes('did not start') && l.includes('providers[4]')),
    logs.join('\n'),
  );
  await auth.close(); // closing a failed instance is harmless
});

test.serial('requests that arrive before start-up has finished wait for it instead of failing', async (t) => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const events: string[] = [];
  registerProvider({
    kind: 'lifecycle-slow',
    async create(opts) {
      await gate; // a kind that needs a while: a remote key set, a server to bind
      events.push('created');
      return {
        name: String(opts.name),
        async login(ctx) {
          events.push('login');
          ctx.body = { ok: true };
        },
        async logout() {},
        // Its login answers its own body, so it says so (the test app checks every answer against auth.openapi()).
        routeDocs: {
          login: {
            get: {
              responses: {
                200: { description: 'done', content: { 'application/json': { schema: { const: { ok: true } } } } },
              },
            },
          },
        },
      };
    },
  });
  const auth = authKoa({
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    providers: [{ kind: 'lifecycle-slow', name: 'slow' }],
  } as AuthKoaOptions);
  let allIn!: () => void;
  const arrived = new Promise<void>((resolve) => (allIn = resolve));
  let count = 0;
  const app = new Koa();
  app.use((_ctx, next) => {
    if (++count === 3) allIn();
    return next();
  });
  const contract = contractRecorder(auth);
  app.use(contract.use);
  app.use(auth);
  app.use(auth.middleware.auth);
  const served = await serve(app.callback());
  t.teardown(() => contract.closed(() => served.close()));
  const c = new Client(served.url);
  const login = c.fetch('/auth/slow/login');
  const list = c.fetch('/auth/list');
  const guarded = c.fetch('/private');
  await arrived; // all three reached authkoa while the kind was still loading
  events.push('gate opened');
  open();
  t.is((await login).status, 200);
  t.deepEqual(await (await list).json(), ['slow']);
  t.is((await guarded).status, 401, 'the route middleware waited too, then found no token');
  t.deepEqual(events, ['gate opened', 'created', 'login']);
  await auth.ready;
  await auth.close();
});
