/**
 * Two `node` app processes on one real PostgreSQL server, as two workers behind a proxy would run:
 * each is spec/state/fixtures/app-process.ts (the public API with `stateStore: 'postgres://…'`), so
 * what one process spends, counts or locks out is seen by the other only through the database.
 * Each test has a table prefix (or a database) of its own.
 */
import test, { type ExecutionContext } from 'ava';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { avatarId } from '../../lib/avatar/stores/index.js';
import { spawnTs, waitForLine } from '../helpers/cli.js';
import { Client } from '../helpers/http.js';
import { startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

const APP = fileURLToPath(new URL('./fixtures/app-process.ts', import.meta.url));

let server: PostgresPeer;
test.before(async () => {
  server = await startPostgres();
});
test.after.always(() => server?.destroy());

/** One instant for every app process, standing still (see app-process.ts), so answers do not depend on start times. */
const CLOCK = String(Date.now());

/** The lines a child prints, each consumed by the first next() whose pattern matches it. */
function lineReader(child: ChildProcess): (re: RegExp) => Promise<RegExpMatchArray> {
  const lines: string[] = [];
  const waiting: Array<{ re: RegExp; resolve: (m: RegExpMatchArray) => void }> = [];
  let partial = '';
  const match = () => {
    for (const w of [...waiting]) {
      const i = lines.findIndex((l) => w.re.test(l));
      if (i < 0) continue;
      const [line] = lines.splice(i, 1);
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(line!.match(w.re)!);
    }
  };
  child.stdout!.on('data', (d) => {
    const parts = (partial + d).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    match();
  });
  return (re) =>
    new Promise((resolve) => {
      waiting.push({ re, resolve });
      match();
    });
}

interface AppProcess {
  client: Client;
  next: (re: RegExp) => Promise<RegExpMatchArray>;
  pid: number | undefined;
}

/** Spawns an app process (app-process.ts); stopped at teardown with SIGTERM and checked to exit 0. */
function spawnApp(
  t: ExecutionContext,
  stateStore: string,
  avatarStore?: string,
): { child: ChildProcess; next: AppProcess['next']; stderr: () => string } {
  const child = spawnTs(APP, [stateStore, avatarStore ?? `lmdb://${join(tempDir(t), 'avatars')}`], {
    AUTHKOA_TEST_CLOCK: CLOCK,
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const next = lineReader(child);
  t.teardown(async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    const [code] = await once(child, 'close'); // 'close': after its output is read to the end, unlike 'exit'
    if (code !== 0) throw new Error(`app process exited ${code}: ${stderr}`);
  });
  return { child, next, stderr: () => stderr };
}

async function appProcess(t: ExecutionContext, stateStore: string): Promise<AppProcess> {
  const { child, next } = spawnApp(t, stateStore);
  const url = (await waitForLine(child, /^listening (http:\/\/\S+)/m))[1]!;
  return { client: new Client(url), next, pid: child.pid };
}

const freshPrefix = () => `${server.uri}?prefix=tp${randomBytes(5).toString('hex')}_`;

/** Two app processes on one fresh prefix of the server. */
const twoApps = (t: ExecutionContext) => {
  const uri = freshPrefix();
  return Promise.all([appProcess(t, uri), appProcess(t, uri)]);
};

/** Asks `app` to mail a link to `user` and returns the token it "sent". */
async function sendLink(app: AppProcess, user: string): Promise<string> {
  const res = await app.client.fetch(`/auth/email/login?user=${user}&address=${user}@example.com`);
  if (res.status !== 200) throw new Error(`link request answered ${res.status}`);
  const sent = new RegExp(`^sent ${user}@example\\.com (\\S+)$`);
  return (await app.next(sent))[1]!;
}

const spend = (base: string, token: string) =>
  fetch(`${base}/auth/email/login?token=${token}`, { method: 'POST', redirect: 'manual' });

test('two app processes on one PostgreSQL: a confirmation link spent on A is refused on B', async (t) => {
  const [a, b] = await twoApps(t);
  t.not(a.pid, b.pid);
  const token = await sendLink(a, 'alice');
  const onA = await a.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.is(onA.status, 200, 'A logs in with the link it sent');
  t.is(((await onA.json()) as { name: string }).name, 'alice');
  t.truthy(a.client.jar.get('JWT'));

  const onB = await b.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.is(onB.status, 403);
  t.deepEqual(await onB.json(), { error: 'confirmation token already consumed', code: 'confirmation_used' });
  t.false(b.client.jar.has('JWT'), 'B gave no session');
  t.is(
    (await a.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' })).status,
    403,
    'and A refuses it again',
  );
});

test('two app processes on one PostgreSQL: a limit of 5 per address is reached after 5 requests spread over both', async (t) => {
  const [a, b] = await twoApps(t);
  const ask = (c: Client, user = 'bob') =>
    c.fetch(`/auth/email/login?user=${user}&address=${user}@example.com`).then((r) => r.status);
  const statuses = [];
  for (const app of [a, b, a, b, a]) statuses.push(await ask(app.client));
  t.deepEqual(statuses, [200, 200, 200, 200, 200]);
  const refusedB = await b.client.fetch('/auth/email/login?user=bob&address=bob@example.com');
  t.is(refusedB.status, 429, 'the 6th, on B, is over the shared limit');
  t.regex(refusedB.headers.get('retry-after') ?? '', /^\d+$/);
  t.is(await ask(a.client), 429, 'and so is a 7th on A');
  t.is(await ask(b.client, 'carol'), 200, 'another address counts apart');
});

test('two app processes on one PostgreSQL: 20 parallel spends of one link spread over both give exactly one login', async (t) => {
  const [a, b] = await twoApps(t);
  const token = await sendLink(b, 'dave');
  const answers = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const res = await spend((i % 2 ? a : b).client.base, token);
      const body = (await res.json()) as { code?: string; name?: string };
      const session = res.headers.getSetCookie().some((c) => /^JWT=[^;]+/.test(c));
      return { status: res.status, code: body.code, name: body.name, session };
    }),
  );
  const logins = answers.filter((r) => r.status === 200);
  t.is(logins.length, 1, JSON.stringify(answers));
  t.true(logins[0]!.session, 'the one login sets a session cookie');
  t.is(logins[0]!.name, 'dave');
  const refused = answers.filter((r) => r.status !== 200);
  t.is(refused.length, 19);
  for (const r of refused) t.deepEqual(r, { status: 403, code: 'confirmation_used', name: undefined, session: false });
});

test('two app processes on one PostgreSQL share the failed-login count: the 5th failure spread over both locks the name out on both', async (t) => {
  const [a, b] = await twoApps(t);
  const login = (c: Client, user: string, passwd: string) =>
    c.fetch('/auth/local/login', { method: 'POST', form: { user, passwd } });
  const statuses = [];
  for (const app of [a, b, a, b, a]) statuses.push((await login(app.client, 'mallory', 'guess')).status);
  t.deepEqual(statuses, [403, 403, 403, 403, 403]);
  const onB = await login(b.client, 'mallory', 'right');
  t.is(onB.status, 429, 'locked out on B by failures on both, even with the right password');
  t.is(onB.headers.get('retry-after'), '60');
  t.is((await login(a.client, 'mallory', 'right')).status, 429, 'and on A');
  t.is((await login(a.client, 'trent', 'right')).status, 200, 'another name logs in');
});

/**
 * lib/postgres/db.ts's advisory-lock id for creating tables ("authkoa" in ASCII). The test holds it so
 * both processes are seen waiting inside their table creation at once, then lets them through.
 */
const DDL_LOCK = BigInt(`0x${Buffer.from('authkoa').toString('hex')}`).toString();

/** Holds the table-creation lock from the test's own connection while `both` start creating, then lets go. */
async function whileBothWaitForTables(gate: pg.Client, both: () => void): Promise<void> {
  await gate.query('SELECT pg_advisory_lock($1)', [DDL_LOCK]);
  both();
  const waiting = async () =>
    (
      await gate.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      )
    ).rows[0]!.n;
  const deadline = Date.now() + 30_000; // two app processes starting on a loaded 2-core machine
  while ((await waiting()) < 2) {
    if (Date.now() > deadline)
      throw new Error('the two processes were not both waiting to create the tables within 30 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  await gate.query('SELECT pg_advisory_unlock($1)', [DDL_LOCK]);
}

test('two app processes opening a fresh database at the same time both create the tables, start and work', async (t) => {
  // The URI's timeout (also the server's statement_timeout) outlasts the wait for the slower process to start.
  const uri = `${await server.database(`fresh_${randomBytes(4).toString('hex')}`)}?timeout=40000`;
  const gate = new pg.Client({ connectionString: uri.replace(/\?.*$/, '') });
  await gate.connect();
  t.teardown(() => gate.end());
  const tables = async () =>
    (
      await gate.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
      )
    ).rows.map((r) => r.name);

  // State and avatars on the one database: both stores open at start-up, each creating its table.
  let apps!: Array<ReturnType<typeof spawnApp>>;
  await whileBothWaitForTables(gate, () => (apps = [spawnApp(t, uri, uri), spawnApp(t, uri, uri)]));
  const [a, b] = await Promise.all(
    apps.map(async ({ child, next }): Promise<AppProcess> => ({
      client: new Client((await next(/^listening (http:\/\/\S+)/))[1]!),
      next,
      pid: child.pid,
    })),
  );
  t.deepEqual(await tables(), ['authkoa_avatars', 'authkoa_broadcast', 'authkoa_state']);

  // The first logins store the first avatars, one on each process, in the table made at start-up.
  const login = (app: AppProcess, user: string) =>
    app.client.fetch('/auth/local/login', { method: 'POST', form: { user, passwd: 'right' } });
  const answers = await Promise.all([login(a!, 'frank'), login(b!, 'grace')]);
  t.deepEqual(
    answers.map((r) => r.status),
    [200, 200],
    'both logins stored an avatar',
  );

  const token = await sendLink(a!, 'erin');
  t.is(
    (await b!.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' })).status,
    200,
    'B spends the link A sent',
  );
  t.is(
    (await a!.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' })).status,
    403,
    'and A sees it spent: both use the one state table',
  );
  const [frank, grace] = (await Promise.all(answers.map((r) => r.json()))) as Array<{ id: string }>;
  for (const [app, user] of [
    [b!, frank!],
    [a!, grace!],
  ] as const) {
    const avatar = await app.client.fetch(`/avatar/${avatarId(user.id)}`);
    t.is(avatar.status, 200, 'each serves the avatar the other stored: both use the one avatar table');
    t.is(avatar.headers.get('content-type'), 'image/png');
  }
  t.deepEqual(
    apps.map((app) => app.stderr()),
    ['', ''],
    'no process logged a failure',
  );
});
