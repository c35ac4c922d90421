/**
 * The demo's event stream over HTTP: `authctl demo` (what `npm start` runs) prints a line per login,
 * refused login and logout, and GET /api/events answers a logged-in user their own recent events plus
 * the refused logins, newest first, never cached; another user's events stay out of it.
 */
import { once } from 'node:events';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { startCheckedExample } from '../helpers/example.js';
import { logLine, RECENT_EVENTS } from '../../example/events.js';
import type { AuthEvent } from '../../lib/index.js';
import { spawnCli, waitForLine } from '../helpers/cli.js';
import { Client } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

/** A wrong password no other value in the demo's answers or output can contain by chance. */
const WRONG_PASSWORD = 'not-the-demo-password-5b1f';

/** Polls `probe` until it returns a value, or fails at the deadline: listeners run after the answer that caused them. */
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  deadlineMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function recentEvents(c: Client): Promise<{ res: Response; events: AuthEvent[]; text: string }> {
  const res = await c.fetch('/api/events', { headers: c.xsrf() });
  const text = await res.text();
  return { res, text, events: res.status === 200 ? (JSON.parse(text) as AuthEvent[]) : [] };
}

async function userId(c: Client): Promise<string> {
  return ((await (await c.fetch('/auth/user', { headers: c.xsrf() })).json()) as { id: string }).id;
}

/** `authctl demo` on free ports, its stdout gathered as it comes, killed at teardown. */
async function spawnDemo(t: ExecutionContext): Promise<{ url: string; stdout: () => string }> {
  const varDir = tempDir(t, 'authkoa-demo-events-');
  const child = spawnCli(['demo', '--port', '0', '--dev-port', '0', '--var', varDir]);
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const [, url] = await waitForLine(child, /authkoa example listening on (http:\/\/\S+)/);
  return { url: url!, stdout: () => out };
}

test('npm start prints a refused then a successful login and a logout; /api/events has both logins, newest first, with their fields', async (t) => {
  const demo = await spawnDemo(t);
  const c = new Client(demo.url);
  t.is((await recentEvents(c)).res.status, 401, 'the list belongs to a logged-in user');

  const refused = await c.fetch('/auth/local/login', {
    method: 'POST',
    json: { user: 'demo', passwd: WRONG_PASSWORD },
  });
  const refusal = (await refused.json()) as { code: string };
  t.is(refused.status, 403);
  const login = await c.fetch('/auth/local/login', {
    method: 'POST',
    json: { user: 'demo', passwd: 'demo' },
    headers: { 'user-agent': 'events-test/1.0' },
  });
  t.is(login.status, 200);
  const id = await userId(c);

  const { res, events, text } = await until('the login in /api/events', async () => {
    const r = await recentEvents(c);
    return r.events.some((e) => e.type === 'login') ? r : undefined;
  });
  t.is(res.headers.get('cache-control'), 'no-store');
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  t.deepEqual(
    events.map((e) => e.type),
    ['login', 'login_failed'],
    text,
  );
  const [ok, failed] = events as [Extract<AuthEvent, { type: 'login' }>, Extract<AuthEvent, { type: 'login_failed' }>];
  t.like(ok, {
    type: 'login',
    provider: 'local',
    kind: 'direct',
    amr: ['pwd'],
    userId: id,
    ip: '127.0.0.1',
    userAgent: 'events-test/1.0',
  });
  t.regex(ok.sid, /^\S{8,}$/);
  t.like(failed, {
    type: 'login_failed',
    provider: 'local',
    kind: 'direct',
    reason: refusal.code,
    status: 403,
    userName: 'demo',
    ip: '127.0.0.1',
  });
  t.true(ok.time >= failed.time, 'newest first');
  for (const secret of [WRONG_PASSWORD, c.jar.get('XSRF-TOKEN')!, ...c.jar.values()])
    t.false(text.includes(secret), 'no password, token or cookie value in the events');

  const loginLine = `event: login ${id} via local (pwd) from 127.0.0.1`;
  const failedLine = `event: login_failed "demo" via local: ${refusal.code} (403) from 127.0.0.1`;
  await until('the login line', () => (demo.stdout().split('\n').includes(loginLine) ? true : undefined));
  const lines = demo.stdout().split('\n');
  t.true(lines.indexOf(failedLine) >= 0, demo.stdout());
  t.true(lines.indexOf(failedLine) < lines.indexOf(loginLine), 'printed in the order they happened');

  t.is((await c.fetch('/auth/logout', { headers: c.xsrf() })).status, 200);
  await until('the logout line', () =>
    demo.stdout().split('\n').includes(`event: logout ${id} via local`) ? true : undefined,
  );
  t.false(demo.stdout().includes(WRONG_PASSWORD), 'the typed password is never printed');
});

test("each user sees their own events and the refused logins, not another user's; the list keeps the last 20, a lock-out among them", async (t) => {
  const lines: string[] = [];
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(tempDir(t, 'authkoa-events-'), 'var'),
    env: {},
    log: (l) => lines.push(l),
  });
  t.teardown(() => app.close());

  const bob = new Client(app.url);
  t.is((await bob.fetch('/auth/email/login?user=bob&address=bob%40example.com&from=%2F')).status, 200);
  const token = new URL(/http:\/\/\S+token=\S+/.exec(app.outbox.list()[0]!.text)![0]).searchParams.get('token')!;
  // Opened from a message in a browser: the login answers with a redirect to the page, the cookie set.
  t.is(
    (await bob.fetch('/auth/email/login', { method: 'POST', form: { token }, headers: { origin: app.url } })).status,
    303,
  );
  const demo = new Client(app.url);
  t.is(
    (await demo.fetch('/auth/local/login', { method: 'POST', json: { user: 'demo', passwd: WRONG_PASSWORD } })).status,
    403,
  );
  t.is((await demo.fetch('/auth/local/login', { method: 'POST', json: { user: 'demo', passwd: 'demo' } })).status, 200);
  const [bobId, demoId] = [await userId(bob), await userId(demo)];

  const demoSees = await until("demo's login", async () => {
    const r = await recentEvents(demo);
    return r.events.some((e) => e.type === 'login') ? r.events : undefined;
  });
  t.deepEqual(
    demoSees.map((e) => [e.type, 'userId' in e ? e.userId : undefined]),
    [
      ['login', demoId],
      ['login_failed', undefined],
    ],
  );
  const bobSees = (await recentEvents(bob)).events;
  t.deepEqual(
    bobSees.map((e) => [e.type, 'userId' in e ? e.userId : undefined]),
    [
      ['login_failed', undefined],
      ['login', bobId],
    ],
  );
  t.like(bobSees[1], { provider: 'email', kind: 'verified', amr: ['email'] });

  // Twenty refusals of other names, then five for one name from one client, which lock that pair out:
  // the list is bounded, keeps the newest (the lock-out among them) and has let the two logins go.
  for (const name of [...Array.from({ length: 20 }, (_, i) => `guess-${i}`), ...Array<string>(5).fill('mallory')]) {
    const res = await new Client(app.url).fetch('/auth/local/login', {
      method: 'POST',
      json: { user: name, passwd: WRONG_PASSWORD },
    });
    t.is(res.status, 403, name);
  }
  const full = await until('the lock-out', async () => {
    const r = await recentEvents(demo);
    return r.events.some((e) => e.type === 'lockout') ? r.events : undefined;
  });
  t.is(full.length, RECENT_EVENTS);
  const lockout = full.find((e) => e.type === 'lockout') as Extract<AuthEvent, { type: 'lockout' }>;
  t.like(lockout, { scope: 'local', key: 'pair:mallory@127.0.0.1' });
  t.true(lockout.until > lockout.time);
  t.deepEqual(
    full
      .filter((e) => e.type !== 'lockout')
      .slice(0, 5)
      .map((e) => e.type === 'login_failed' && e.userName),
    Array(5).fill('mallory'),
  );
  t.false(
    full.some((e) => e.type === 'login'),
    'the oldest events left the list',
  );
  t.true(
    lines.includes('event: login_failed "guess-19" via local: bad_credentials (403) from 127.0.0.1'),
    lines.join('\n'),
  );
  t.true(
    lines.includes(`event: lockout pair:mallory@127.0.0.1 (local) until ${new Date(lockout.until).toISOString()}`),
    lines.join('\n'),
  );
});

test('a typed name with a newline or a terminal escape is printed escaped on one line', (t) => {
  const base = {
    time: 0,
    provider: 'local',
    kind: 'direct',
    reason: 'bad_credentials',
    status: 403,
    ip: '127.0.0.1',
    userAgent: '',
  };
  t.is(
    logLine({ type: 'login_failed', ...base, userName: 'eve\nevent: login admin via local (pwd) from 10.0.0.1' }),
    'event: login_failed "eve\\nevent: login admin via local (pwd) from 10.0.0.1" via local: bad_credentials (403) from 127.0.0.1',
  );
  t.is(
    logLine({ type: 'lockout', time: 0, scope: 'local', key: 'user:\u009b31mred\u001b[0m', until: 0 }),
    'event: lockout user:\\u009b31mred\\u001b[0m (local) until 1970-01-01T00:00:00.000Z',
  );
  t.is(
    logLine({ type: 'refresh', time: 0, userId: 'u', provider: 'local', sid: 's' }),
    undefined,
    'only logins, refusals, logouts and lock-outs get a line',
  );
});
