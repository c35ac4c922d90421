/**
 * Several `node` processes on one real redis-server, as N app workers behind a proxy would run:
 * each app is a separate process (spec/state/fixtures/app-process.ts), built from the public API with
 * `stateStore: 'redis://…'`; the Telegram poller is a third process (`authctl bot`).
 */
import test, { type ExecutionContext } from 'ava';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { sha1 } from '../../lib/user.js';
import { runCli, spawnCli, spawnTs, waitForLine } from '../helpers/cli.js';
import { Client } from '../helpers/http.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import { BOT_TOKEN, startFakeBotApi } from '../helpers/telegram.js';
import { tempDir } from '../helpers/temp.js';
import { ALICE, SUCCESS, ERROR } from '../telegram/fixtures.js';

const APP = fileURLToPath(new URL('./fixtures/app-process.ts', import.meta.url));

let redis: RedisPeer;
test.before(async () => {
  redis = await startRedis();
});
test.after.always(() => redis?.stop());

/** The lines a child prints, each consumed by the first next() whose pattern matches it. */
class Lines {
  readonly #lines: string[] = [];
  readonly #waiting: Array<{ re: RegExp; resolve: (m: RegExpMatchArray) => void }> = [];
  #buf = '';
  constructor(child: ChildProcess) {
    child.stdout!.on('data', (d) => {
      this.#buf += d;
      let nl: number;
      while ((nl = this.#buf.indexOf('\n')) >= 0) {
        this.#lines.push(this.#buf.slice(0, nl));
        this.#buf = this.#buf.slice(nl + 1);
      }
      this.#match();
    });
  }
  next(re: RegExp): Promise<RegExpMatchArray> {
    return new Promise((resolve) => {
      this.#waiting.push({ re, resolve });
      this.#match();
    });
  }
  #match(): void {
    for (const w of [...this.#waiting]) {
      const i = this.#lines.findIndex((l) => w.re.test(l));
      if (i < 0) continue;
      const [line] = this.#lines.splice(i, 1);
      this.#waiting.splice(this.#waiting.indexOf(w), 1);
      w.resolve(line!.match(w.re)!);
    }
  }
}

/**
 * The app processes' clock: one instant for all of them, standing still unless a test moves it (POST
 * /test/clock), so what they answer does not depend on when each started or how slow the machine is.
 */
const CLOCK = String(Date.now());

/** Starts one app process on `stateStore`; resolves its client and stdout lines. Stopped (and checked to exit 0) at teardown. */
async function appProcess(t: ExecutionContext, stateStore: string, apiRoot?: string) {
  const child = spawnTs(APP, [stateStore, `lmdb://${join(tempDir(t), 'avatars')}`, ...(apiRoot ? [apiRoot] : [])], {
    AUTHKOA_TEST_CLOCK: CLOCK,
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const lines = new Lines(child);
  t.teardown(async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    const [code] = await once(child, 'close'); // 'close': after its output is read to the end, unlike 'exit'
    if (code !== 0) throw new Error(`app process exited ${code}: ${stderr}`);
  });
  const url = (await waitForLine(child, /^listening (http:\/\/\S+)/m))[1]!;
  return { client: new Client(url), lines, pid: child.pid };
}

const store = () => `${redis.uri}/0?prefix=tp${randomBytes(5).toString('hex')}:`;

test('two app processes on one Redis: a confirmation link spent on one is refused on the other', async (t) => {
  const uri = store();
  const [a, b] = await Promise.all([appProcess(t, uri), appProcess(t, uri)]);
  t.not(a.pid, b.pid);
  t.is((await a.client.fetch('/auth/email/login?user=alice&address=alice@example.com')).status, 200);
  const token = (await a.lines.next(/^sent alice@example\.com (\S+)$/))[1]!;

  const onB = await b.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.is(onB.status, 200, 'process B logs in with the link process A sent');
  t.is(((await onB.json()) as { name: string }).name, 'alice');
  const onA = await a.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.is(onA.status, 403);
  t.deepEqual(await onA.json(), { error: 'confirmation token already consumed', code: 'confirmation_used' });
  t.is((await b.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' })).status, 403, 'and on B again');
});

test('two app processes on one Redis: a limit of 5 per address is reached after 5 requests spread over both', async (t) => {
  const uri = store();
  const [a, b] = await Promise.all([appProcess(t, uri), appProcess(t, uri)]);
  const ask = (c: Client) => c.fetch('/auth/email/login?user=bob&address=bob@example.com').then((r) => r.status);
  const statuses = [];
  for (const c of [a, b, a, b, a]) statuses.push(await ask(c.client));
  t.deepEqual(statuses, [200, 200, 200, 200, 200]);
  const refusedB = await b.client.fetch('/auth/email/login?user=bob&address=bob@example.com');
  t.is(refusedB.status, 429, 'the 6th, on B, is over the shared limit');
  t.regex(refusedB.headers.get('retry-after') ?? '', /^\d+$/);
  t.is(await ask(a.client), 429, 'and so is a 7th on A');
  t.is(
    await a.client.fetch('/auth/email/login?user=carol&address=carol@example.com').then((r) => r.status),
    200,
    'other addresses count apart',
  );
});

test('two app processes on one Redis share the failed-login count: the 5th failure spread over both locks the name out on both', async (t) => {
  const uri = store();
  const [a, b] = await Promise.all([appProcess(t, uri), appProcess(t, uri)]);
  const login = (c: Client, passwd: string) =>
    c.fetch('/auth/local/login', { method: 'POST', form: { user: 'mallory', passwd } });
  const statuses = [];
  for (const c of [a, b, a, b, a]) statuses.push((await login(c.client, 'guess')).status);
  t.deepEqual(statuses, [403, 403, 403, 403, 403]);
  const onB = await login(b.client, 'right');
  t.is(onB.status, 429, 'locked out on B by failures on both, even with the right password');
  t.is(onB.headers.get('retry-after'), '60');
  t.is((await login(a.client, 'right')).status, 429, 'and on A');
  t.is(
    (await a.client.fetch('/auth/local/login', { method: 'POST', form: { user: 'trent', passwd: 'right' } })).status,
    200,
    'another name logs in',
  );
});

test('a user revoked by `authctl sessions revoke` (a third process) is refused at once on either app process, told on the LMDB channel with no refresh', async (t) => {
  const uri = store();
  const [a, b] = await Promise.all([appProcess(t, uri), appProcess(t, uri)]);
  const login = await a.client.fetch('/auth/local/login', {
    method: 'POST',
    form: { user: 'victor', passwd: 'right' },
  });
  t.is(login.status, 200);
  const { id } = (await login.json()) as { id: string };
  // The same browser session presented to both processes, as a load balancer would spread it.
  const onB = new Client(b.client.base);
  for (const [k, v] of a.client.jar) onB.jar.set(k, v);
  const me = (c: Client) => c.fetch('/auth/user', { headers: c.xsrf() });
  t.is((await me(a.client)).status, 200);
  t.is((await me(onB)).status, 200);

  const revoked = await runCli(['sessions', 'revoke', id, '--store', uri]);
  t.is(revoked.code, 0, revoked.stderr);
  t.regex(revoked.stdout, /sessions of local_[0-9a-f]{40} issued up to now are revoked/);
  // Each process checks the environment's revocation counter every 100 ms: asked until it refuses, within a bound,
  // the apps' clocks unmoved (the 15 min token needs no refresh).
  const refused = async (c: Client) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const res = await me(c);
      if (res.status !== 200) return res;
      await res.body?.cancel();
      if (Date.now() > deadline) throw new Error('still accepted 10 s after the revocation');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const refusedB = await refused(onB);
  t.is(refusedB.status, 401);
  t.is(((await refusedB.json()) as { code: string }).code, 'session_revoked');
  const refusedA = await refused(a.client);
  t.is(refusedA.status, 401, 'and on A');
  t.is(a.client.jar.get('JWT'), 'session_revoked', 'the refused token is cleared: the cookie holds the mark of why');

  // The apps' clocks stand at their start; authctl revoked by the real clock, later: a login after it needs theirs
  // moved past it (and past the 15 min token, so the refresh path is seen to refuse the old cookie too).
  const advance = (c: Client) => c.fetch('/test/clock?advance=960000', { method: 'POST' });
  await Promise.all([advance(a.client), advance(onB)]);

  const again = await a.client.fetch('/auth/local/login', {
    method: 'POST',
    form: { user: 'victor', passwd: 'right' },
  });
  t.is(again.status, 200, 'a new login after the revocation works');
  t.is((await me(a.client)).status, 200);
});

test('a Telegram login opened on app A, confirmed by `authctl bot` in a third process, completes on app B', async (t) => {
  const api = await startFakeBotApi();
  t.teardown(() => api.close());
  const uri = store();
  const bot = spawnCli([
    'bot',
    '--token',
    BOT_TOKEN,
    '--store',
    uri,
    '--api-root',
    api.apiRoot,
    '--poll-timeout',
    '1',
    '--success-msg',
    SUCCESS,
    '--error-msg',
    ERROR,
  ]);
  let botOut = '';
  bot.stderr!.on('data', (d) => (botOut += d));
  t.teardown(() => {
    if (bot.exitCode === null) bot.kill('SIGKILL');
  });
  await waitForLine(bot, /polling for logins \(state in redis\)/);
  const [a, b] = await Promise.all([appProcess(t, uri, api.apiRoot), appProcess(t, uri, api.apiRoot)]);

  const { token } = (await (await a.client.fetch('/auth/telegram/login')).json()) as { token: string };
  t.is((await b.client.fetch(`/auth/telegram/login?token=${token}`)).status, 404, 'B sees it pending');
  api.pressStart(ALICE, token);
  t.is((await api.nextMessage(ALICE.id)).text, SUCCESS, 'the bot process confirmed it');
  const res = await b.client.fetch(`/auth/telegram/login?token=${token}`);
  t.is(res.status, 200);
  t.is(((await res.json()) as { id: string }).id, `telegram_${sha1(String(ALICE.id))}`);
  t.is((await a.client.fetch(`/auth/telegram/login?token=${token}`)).status, 404, 'and A sees it consumed');

  bot.kill('SIGTERM');
  const [code] = await once(bot, 'close'); // 'close', not 'exit': botOut is complete only once its pipes closed
  t.is(code, 0, botOut);
  t.false(botOut.includes(BOT_TOKEN.split(':')[1]!), 'the token is not printed');
});

test('100 parallel wrong passwords for one name, spread over two app processes on one Redis, reach the checkers at most 5 times', async (t) => {
  const uri = store();
  const [a, b] = await Promise.all([appProcess(t, uri), appProcess(t, uri)]);
  const burst = 100;
  // Each process holds the checks it starts until the test releases them, which it does once every
  // attempt is either inside a checker or answered: the moment a read-then-count throttle lets a burst through.
  let checking = 0;
  let answered = 0;
  let allIn!: () => void;
  const inFlight = new Promise<void>((resolve) => (allIn = resolve));
  const settle = () => {
    if (checking + answered >= burst) allIn();
  };
  const countChecks = async (p: typeof a) => {
    for (;;) {
      await p.lines.next(/^checking held-alice$/);
      checking++;
      settle();
    }
  };
  void countChecks(a);
  void countChecks(b);
  const statuses = Array.from({ length: burst }, async (_, i) => {
    const c = i % 2 ? a.client : b.client;
    const res = await c.fetch('/auth/local/login', {
      method: 'POST',
      form: { user: 'held-alice', passwd: `guess-${i}` },
    });
    if (res.status === 429) {
      answered++;
      settle();
    }
    return res.status;
  });
  await inFlight;
  await Promise.all([
    a.client.fetch('/test/release', { method: 'POST' }),
    b.client.fetch('/test/release', { method: 'POST' }),
  ]);
  const all = await Promise.all(statuses);
  t.is(checking, 5, 'five checks in both processes together');
  t.is(all.filter((s) => s === 403).length, 5);
  t.is(all.filter((s) => s === 429).length, burst - 5);
});
