/**
 * The revocation channel across three app processes (separate `node` processes,
 * spec/sessions/fixtures/app-process.ts) on one real redis-server, and again on one real PostgreSQL,
 * each process reaching the store through a TCP proxy that counts what it sends. Tokens live 15 minutes,
 * so nothing here is refused by a refresh: a session ended through one process is refused by the others
 * because the channel told them. The processes run on the real clock: a revocation's reach is measured
 * (from the answer of the call that ended it to the first refusal on the last process, requesting every
 * 20 ms) and bounded by the 2 s at the 99th percentile.
 */
import test, { type ExecutionContext } from 'ava';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { runCli, spawnTs, waitForLine } from '../helpers/cli.js';
import { Client, decodeJwt } from '../helpers/http.js';
import { startPostgres } from '../helpers/postgres.js';
import { startRedis } from '../helpers/redis.js';
import { countingProxy, type CountingProxy } from '../helpers/tcp-proxy.js';

const APP = fileURLToPath(new URL('./fixtures/app-process.ts', import.meta.url));
const REVOCATIONS = 50;
/** A listening connection's heartbeat: Redis `PING` (RESP), PostgreSQL `SELECT 1` (a simple query message). */
const HEARTBEAT = /^(\*1\r\n\$4\r\nping\r\n)+$|^(Q\0\0\0\rSELECT 1\0)+$/i;
const REQUESTS = 1000;
/** The bound a revocation must reach every process within, at the 99th percentile (issue #49). */
const REACH_MS = 2000;
/** How long a check waits before calling a refusal missing: a bound, not an expectation. */
const GIVE_UP_MS = 30_000;

interface AppProcess {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

async function appProcess(stateUri: string): Promise<AppProcess> {
  const child = spawnTs(APP, [stateUri, '15m', 'lenient']);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = (await waitForLine(child, /^listening (http:\/\/\S+)/m))[1]!;
  return { url, child, stderr: () => stderr };
}

async function stop(p: AppProcess): Promise<void> {
  if (p.child.exitCode !== null) return;
  p.child.kill('SIGTERM');
  const [code] = await once(p.child, 'close');
  if (code !== 0) throw new Error(`app process exited ${code}: ${p.stderr()}`);
}

/** One browser's session: its cookies, presented to any process. */
class Session {
  readonly client = new Client('http://127.0.0.1:0');
  id = '';

  async login(on: AppProcess, user: string): Promise<void> {
    const res = await this.fetch(on, '/auth/direct/login', {
      method: 'POST',
      body: JSON.stringify({ user, passwd: `${user}-pw` }),
      headers: { 'content-type': 'application/json' },
    });
    if (res.status !== 200) throw new Error(`login on ${on.url}: ${res.status} ${await res.text()}`);
    this.id = ((await res.json()) as { id: string }).id;
  }

  get sid(): string {
    return decodeJwt(this.client.jar.get('JWT')!).sid as string;
  }

  fetch(on: AppProcess, path: string, init: RequestInit = {}): Promise<Response> {
    return this.client.fetch(on.url + path, {
      ...init,
      headers: { ...this.client.xsrf(), ...(init.headers as Record<string, string>) },
    });
  }

  /** GET /auth/user on `on` without touching the jar (a refusal must not clear the cookies the others use). */
  async status(on: AppProcess): Promise<number> {
    const res = await fetch(`${on.url}/auth/user`, {
      headers: { cookie: `JWT=${this.client.jar.get('JWT')}`, ...this.client.xsrf() },
    });
    await res.body?.cancel();
    return res.status;
  }
}

/** Ms from now until every process refuses `s` (401), requesting each every 20 ms. */
async function reach(s: Session, apps: AppProcess[]): Promise<number> {
  const started = performance.now();
  const pending = new Set(apps);
  while (pending.size) {
    for (const app of [...pending]) if ((await s.status(app)) === 401) pending.delete(app);
    if (!pending.size) break;
    if (performance.now() - started > GIVE_UP_MS) throw new Error(`still accepted after ${GIVE_UP_MS} ms`);
    await delay(20);
  }
  return performance.now() - started;
}

/** Ends `s` through `apps[i % 3]`: by the route or auth.sessions.revoke(), in turn, and twice in 50 by authctl. */
async function end(i: number, s: Session, apps: AppProcess[], stateUri: string, other: Session): Promise<void> {
  const via = apps[i % apps.length]!;
  if (i % 25 === 12) {
    const res = await runCli(['sessions', 'revoke', s.id, '--sid', s.sid, '--store', stateUri]);
    if (res.code !== 0) throw new Error(`authctl: ${res.stderr}`);
  } else if (i % 2 === 0) {
    const res = await other.fetch(via, `/auth/sessions/${s.sid}`, { method: 'DELETE' });
    if (res.status !== 204) throw new Error(`DELETE on ${via.url}: ${res.status}`);
  } else {
    const res = await fetch(`${via.url}/test/revoke/${encodeURIComponent(s.id)}/${s.sid}`, { method: 'POST' });
    if (!((await res.json()) as { ended: boolean }).ended) throw new Error('auth.sessions.revoke ended nothing');
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The whole scenario against one store, reached by the apps through `proxy`, restarted by `restart`. */
async function scenario(
  t: ExecutionContext,
  proxy: CountingProxy,
  stateUri: string,
  restart: () => Promise<void>,
): Promise<void> {
  const apps = await Promise.all([appProcess(stateUri), appProcess(stateUri), appProcess(stateUri)]);
  t.teardown(() => Promise.all(apps.map(stop)));
  const user = `u${randomBytes(4).toString('hex')}`;
  const keeper = new Session();
  await keeper.login(apps[0]!, user);

  const reached: number[] = [];
  for (let i = 0; i < REVOCATIONS; i++) {
    const s = new Session();
    await s.login(apps[(i + 1) % 3]!, user);
    for (const app of apps) t.is(await s.status(app), 200, 'live on every process before it is ended');
    await end(i, s, apps, stateUri, keeper);
    reached.push(await reach(s, apps));
  }
  const p99 = percentile(reached, 99);
  t.log(
    `revocation reached all 3 processes: median ${percentile(reached, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`,
  );
  t.true(p99 <= REACH_MS, `p99 ${p99.toFixed(0)} ms`);

  // Protected requests read no store: while 1,000 of them are answered, nothing goes to it but the listening
  // connections' heartbeats (a PING, a SELECT 1, every few seconds per process, whatever the traffic).
  proxy.reset();
  for (let i = 0; i < REQUESTS; i++) t.is(await keeper.status(apps[i % 3]!), 200);
  const commands = proxy.chunks.map((c) => c.toString('latin1')).filter((c) => !HEARTBEAT.test(c));
  t.deepEqual(commands, [], 'commands sent to the store during 1,000 protected requests');
  t.log(`${proxy.chunks.length - commands.length} heartbeats meanwhile`);

  // The store restarts: the processes reconnect and catch up, and a revocation reaches them all again.
  await restart();
  const s = new Session();
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    try {
      await s.login(apps[1]!, user);
      if ((await Promise.all(apps.map((a) => s.status(a)))).every((code) => code === 200)) break;
    } catch {
      // the store is still on its way back
    }
    if (Date.now() > deadline) throw new Error('the apps did not recover after the store restarted');
    await delay(100);
  }
  await end(0, s, apps, stateUri, keeper);
  t.true((await reach(s, apps)) <= REACH_MS, 'after the restart, a revocation reaches every process');
  t.is(await keeper.status(apps[2]!), 200, 'the session nobody ended goes on');
}

test('redis: a session ended through any process (route, auth.sessions.revoke, authctl) is refused by all three within 2 s at p99, with no store traffic on protected requests; after a restart they catch up', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  const proxy = await countingProxy(redis.port);
  t.teardown(() => proxy.close());
  const uri = `redis://127.0.0.1:${proxy.port}/0?prefix=ch${randomBytes(4).toString('hex')}:`;
  await scenario(t, proxy, uri, async () => {
    await redis.stop();
    await redis.start();
  });
});

test('postgres: a session ended through any process (route, auth.sessions.revoke, authctl) is refused by all three within 2 s at p99, with no store traffic on protected requests; after a restart they catch up', async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.destroy());
  const proxy = await countingProxy(pg.port);
  t.teardown(() => proxy.close());
  const uri = new URL(pg.uri);
  uri.port = String(proxy.port);
  await scenario(t, proxy, uri.href, async () => {
    await pg.stop();
    await pg.start();
  });
});
