/**
 * Sessions per device across two app processes (separate `node` processes, spec/sessions/fixtures/app-process.ts)
 * with one secret on one real redis-server stateStore: what one process lists or ends, the other sees.
 * A browser is one cookie jar presented to either process, as a load balancer spreads its requests. The
 * processes run on the real clock, so nothing here asserts on wall time: where a test needs a token to
 * expire (2 s tokens), it requests until the answer changes, within a bound. Each test has a user of its
 * own, so they share the processes.
 */
import test from 'ava';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { runCli, spawnTs, waitForLine } from '../helpers/cli.js';
import { Client, decodeJwt } from '../helpers/http.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';

const APP = fileURLToPath(new URL('./fixtures/app-process.ts', import.meta.url));
const LAPTOP_UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const PHONE_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
/** How long a test waits for a 2 s token to need refreshing, however slow the machine: a bound, not an expectation. */
const WAIT_MS = 30_000;

interface AppProcess {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

let redis: RedisPeer;
/** The state store of every process, for the CLI too. */
let stateUri: string;
/** Two processes with 2 s tokens (an ended session is refused at its next refresh), two with strictRevocation and 15 min tokens. */
let A: AppProcess;
let B: AppProcess;
let strictA: AppProcess;
let strictB: AppProcess;

async function appProcess(tokenDuration: string, revocation: 'strict' | 'lenient'): Promise<AppProcess> {
  const child = spawnTs(APP, [stateUri, tokenDuration, revocation]);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = (await waitForLine(child, /^listening (http:\/\/\S+)/m))[1]!;
  return { url, child, stderr: () => stderr };
}

/** Stops an app process and checks it exited 0 (its close() worked). */
async function stop(p: AppProcess | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null) return;
  p.child.kill('SIGTERM');
  const [code] = await once(p.child, 'close');
  if (code !== 0) throw new Error(`app process exited ${code}: ${p.stderr()}`);
}

test.before(async () => {
  redis = await startRedis();
  stateUri = `${redis.uri}/0?prefix=sess${randomBytes(5).toString('hex')}:`;
  [A, B, strictA, strictB] = await Promise.all([
    appProcess('2s', 'lenient'),
    appProcess('2s', 'lenient'),
    appProcess('15m', 'strict'),
    appProcess('15m', 'strict'),
  ]);
});
test.after.always(async () => {
  await Promise.all([stop(A), stop(B), stop(strictA), stop(strictB)]);
  await redis?.stop();
});

/** A browser: one cookie jar, sent to whichever process a request goes to, and its User-Agent. */
class Browser {
  readonly client: Client;
  constructor(readonly userAgent: string) {
    // The base is never used: every request names its process.
    this.client = new Client('http://127.0.0.1:0');
  }

  fetch(on: AppProcess, path: string, init: RequestInit = {}): Promise<Response> {
    return this.client.fetch(on.url + path, {
      ...init,
      headers: { ...this.client.xsrf(), 'user-agent': this.userAgent, ...(init.headers as Record<string, string>) },
    });
  }

  /** Logs `user` in on `on`; the user id. */
  async login(on: AppProcess, user: string): Promise<string> {
    const res = await this.fetch(on, '/auth/direct/login', {
      method: 'POST',
      body: JSON.stringify({ user, passwd: `${user}-pw` }),
      headers: { 'content-type': 'application/json' },
    });
    if (res.status !== 200) throw new Error(`login on ${on.url}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  }

  get sid(): string {
    return decodeJwt(this.client.jar.get('JWT')!).sid as string;
  }

  /** A second browser holding this one's cookies as they are now (the same session, another copy of its cookies). */
  copy(): Browser {
    const other = new Browser(this.userAgent);
    for (const [k, v] of this.client.jar) other.client.jar.set(k, v);
    return other;
  }
}

interface Listed {
  sid: string;
  current: boolean;
  provider: string;
  device: string;
}

const me = (b: Browser, on: AppProcess) => b.fetch(on, '/auth/user');
const errorCode = async (res: Response) => ((await res.json()) as { code?: string }).code;

/** GET /auth/sessions on `on`: what tells the sessions apart (created and lastSeen are the real clock's). */
async function listed(b: Browser, on: AppProcess): Promise<Array<Omit<Listed, 'provider'>>> {
  const res = await b.fetch(on, '/auth/sessions');
  if (res.status !== 200) throw new Error(`GET /auth/sessions: ${res.status} ${await res.text()}`);
  return ((await res.json()) as Listed[]).map(({ sid, current, provider, device }) => ({
    sid,
    current,
    device: `${device} (${provider})`,
  }));
}

/** Requests /auth/user on `on` until the answer is not a 200 (the session's token needed refreshing and was refused); that answer. */
async function untilRefused(b: Browser, on: AppProcess): Promise<Response> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const res = await me(b, on);
    if (res.status !== 200) return res;
    await res.body?.cancel();
    if (Date.now() > deadline) throw new Error(`still 200 on ${on.url} after ${WAIT_MS} ms: never refused`);
    await delay(100);
  }
}

/** Requests /auth/user on `on` until the session's token is refreshed (new cookies); the statuses seen, which must all be 200. */
async function untilRefreshed(b: Browser, on: AppProcess): Promise<number[]> {
  const before = b.client.jar.get('JWT');
  const deadline = Date.now() + WAIT_MS;
  const statuses: number[] = [];
  for (;;) {
    const res = await me(b, on);
    await res.body?.cancel();
    statuses.push(res.status);
    if (res.status !== 200 || b.client.jar.get('JWT') !== before) return statuses;
    if (Date.now() > deadline) throw new Error(`no refresh on ${on.url} within ${WAIT_MS} ms`);
    await delay(100);
  }
}

const allOk = (statuses: number[]) => statuses.every((s) => s === 200);

test('GET /auth/sessions on either process lists the logins made on both; a session ended through A is refused at its next refresh on B, the other goes on', async (t) => {
  const [laptop, phone] = [new Browser(LAPTOP_UA), new Browser(PHONE_UA)];
  await laptop.login(A, 'alice');
  await phone.login(B, 'alice');
  const expected = (current: string) => [
    { sid: phone.sid, current: current === phone.sid, device: 'Firefox on Linux (direct)' },
    { sid: laptop.sid, current: current === laptop.sid, device: 'Chrome on macOS (direct)' },
  ];
  t.deepEqual(await listed(laptop, A), expected(laptop.sid), 'on A, newest first');
  t.deepEqual(await listed(laptop, B), expected(laptop.sid), 'on B, the same');
  t.deepEqual(await listed(phone, A), expected(phone.sid), 'and the current one is the asking browser');

  const phoneSid = phone.sid;
  t.is((await laptop.fetch(A, `/auth/sessions/${phoneSid}`, { method: 'DELETE' })).status, 204);
  const refused = await untilRefused(phone, B);
  t.is(refused.status, 401);
  t.is(await errorCode(refused), 'session_revoked');
  t.is(phone.client.jar.get('JWT'), 'session_revoked', 'its token is cleared: the cookie holds the mark of why');

  t.true(allOk(await untilRefreshed(laptop, B)), 'the laptop is refreshed on B');
  t.true(allOk(await untilRefreshed(laptop, A)), 'and on A');
  t.deepEqual(
    (await listed(laptop, B)).map((s) => s.sid),
    [laptop.sid],
    'B lists the laptop alone',
  );
});

test('under strictRevocation, a session ended through A is refused on B at once, its token still fresh; the other goes on', async (t) => {
  const [laptop, phone] = [new Browser(LAPTOP_UA), new Browser(PHONE_UA)];
  await laptop.login(strictA, 'bob');
  await phone.login(strictB, 'bob');
  t.is((await me(phone, strictB)).status, 200);
  const exp = decodeJwt(phone.client.jar.get('JWT')!).exp as number;
  t.is((await laptop.fetch(strictA, `/auth/sessions/${phone.sid}`, { method: 'DELETE' })).status, 204);

  const refused = await me(phone, strictB);
  t.true(Date.now() < exp * 1000, 'answered while its 15 min token was unexpired: no refresh was needed to refuse it');
  t.is(refused.status, 401);
  t.is(await errorCode(refused), 'session_revoked');
  t.is((await me(laptop, strictB)).status, 200, 'the laptop goes on, on B');
  t.is((await me(laptop, strictA)).status, 200, 'and on A');
});

test('`authctl sessions revoke <user> --sid` in a third process ends a session that A and B then both refuse; the other goes on on both', async (t) => {
  const [laptop, phone] = [new Browser(LAPTOP_UA), new Browser(PHONE_UA)];
  const id = await laptop.login(A, 'carol');
  await phone.login(B, 'carol');
  const sid = laptop.sid;
  const laptopOnB = laptop.copy();

  const res = await runCli(['sessions', 'revoke', id, '--sid', sid, '--store', stateUri]);
  t.is(res.code, 0, res.stderr);
  t.is(res.stdout, `authctl sessions: session ${sid} of ${id} is ended\n`);

  for (const [b, on, where] of [
    [laptop, A, 'A'],
    [laptopOnB, B, 'B'],
  ] as const) {
    const refused = await untilRefused(b, on);
    t.is(refused.status, 401, `on ${where}`);
    t.is(await errorCode(refused), 'session_revoked', `on ${where}`);
  }
  t.true(allOk(await untilRefreshed(phone, B)), 'the phone is refreshed on B');
  t.true(allOk(await untilRefreshed(phone, A)), 'and on A');
  t.deepEqual(
    (await listed(phone, A)).map((s) => s.sid),
    [phone.sid],
    'A lists the phone alone',
  );
});
