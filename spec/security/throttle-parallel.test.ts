/**
 * The failed-login throttle under parallel requests, and who it locks out. Each attempt is reserved
 * before the checker runs, so a burst cannot pass one look at the count: the checkers here hold every
 * call they get until the whole burst is either inside a checker or answered, which is exactly when a
 * read-then-count throttle lets them all through. No timing is involved: the gate opens on counts.
 */
import test, { type ExecutionContext } from 'ava';
import { clientKey } from '../../lib/http/client-key.js';
import { startOAuth2Server } from '../../lib/providers/oauth2-server/local.js';
import { credentialThrottle, memoryStateStore, throttlePolicy } from '../../lib/state/index.js';
import { useStateBackends } from '../helpers/state-backends.js';
import { Client, manualClock, startApp } from '../helpers/http.js';
import { authorizeURL, form, pkce } from '../server/fixtures.js';

const SECRET = 'throttle-parallel-secret-0123456789abcdef';
const BURST = 100;

/** A checker that refuses, holding each call until every attempt of the burst is in a checker or answered. */
function heldChecker() {
  let calls = 0;
  let answered = 0;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const settle = () => {
    if (calls + answered >= BURST) open();
  };
  return {
    get calls() {
      return calls;
    },
    async check(): Promise<false> {
      calls++;
      settle();
      await gate;
      return false;
    },
    /** Marks one refused attempt answered without a check. */
    refused() {
      answered++;
      settle();
    },
  };
}

/** An app with a direct provider `local`; its checker holds wrong passwords for a burst when `held` is given. */
async function app(t: ExecutionContext, extra: Record<string, unknown> = {}, held?: ReturnType<typeof heldChecker>) {
  const a = await startApp({
    secret: SECRET,
    clock: manualClock(),
    providers: [
      {
        kind: 'direct',
        name: 'local',
        checker: (_user: string, passwd: string) => (passwd === 'right' ? true : (held?.check() ?? false)),
      },
    ],
    ...extra,
  });
  t.teardown(() => a.close());
  return a;
}

test(`${BURST} parallel wrong passwords for one name reach the direct provider's checker at most perUser (5) times`, async (t) => {
  const held = heldChecker();
  const a = await app(t, {}, held);
  const c = new Client(a.url);
  const statuses = await Promise.all(
    Array.from({ length: BURST }, async (_, i) => {
      const res = await c.fetch('/auth/local/login', { method: 'POST', form: { user: 'alice', passwd: `wrong-${i}` } });
      if (res.status === 429) held.refused();
      return res.status;
    }),
  );
  t.is(held.calls, 5);
  t.is(statuses.filter((s) => s === 403).length, 5);
  t.is(statuses.filter((s) => s === 429).length, BURST - 5);
});

test(`${BURST} parallel wrong basic-auth passwords for one name reach the basicAuthChecker at most 5 times`, async (t) => {
  const held = heldChecker();
  const a = await startApp({
    secret: SECRET,
    clock: manualClock(),
    providers: [{ kind: 'direct', name: 'local', checker: () => false }],
    basicAuthChecker: async () => ({ ok: await held.check() }),
  });
  t.teardown(() => a.close());
  const statuses = await Promise.all(
    Array.from({ length: BURST }, async (_, i) => {
      const res = await fetch(`${a.url}/private`, {
        headers: { authorization: `Basic ${Buffer.from(`admin:guess-${i}`).toString('base64')}` },
      });
      if (res.status === 429) held.refused();
      return res.status;
    }),
  );
  t.is(held.calls, 5);
  t.deepEqual(new Set(statuses), new Set([401, 429]));
});

test(`${BURST} parallel wrong passwords on the local OAuth2 server's sign-in page reach its checker at most 5 times`, async (t) => {
  const held = heldChecker();
  const server = await startOAuth2Server({
    url: 'http://127.0.0.1:0',
    clock: manualClock(),
    checker: () => held.check(),
    clients: [{ id: 'app', secret: 's', redirectURIs: ['http://127.0.0.1:9/cb'] }],
  });
  t.teardown(() => server.close());
  const url = authorizeURL(server.url, {
    client_id: 'app',
    redirect_uri: 'http://127.0.0.1:9/cb',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  });
  // Each browser opens the page first (its session and CSRF token), then all post at once.
  const pages = await Promise.all(
    Array.from({ length: BURST }, async () => {
      const browser = new Client(server.url);
      const f = form(await (await browser.fetch(url)).text());
      return { browser, f };
    }),
  );
  const statuses = await Promise.all(
    pages.map(async ({ browser, f }, i) => {
      const res = await browser.fetch(new URL(f.action, url).href, {
        method: 'POST',
        form: { username: 'alice', password: `guess-${i}`, csrf_token: f.csrf },
      });
      if (res.status === 429) held.refused();
      return res.status;
    }),
  );
  t.is(held.calls, 5);
  t.is(statuses.filter((s) => s === 429).length, BURST - 5);
});

test('the throttle itself, on a store with only compare-and-set (no hit()): of 100 parallel attempts 5 are reserved', async (t) => {
  const clock = manualClock();
  const mem = memoryStateStore({ clock });
  // Only the StateStore core: what a third-party store registered by scheme offers.
  const casOnly = {
    create: mem.create,
    get: mem.get,
    replace: mem.replace,
    take: mem.take,
    remove: mem.remove,
    sweep: mem.sweep,
    markUsed: mem.markUsed,
    close: mem.close,
  };
  const throttle = credentialThrottle(casOnly, throttlePolicy(undefined)!, 'p', clock);
  const attempts = await Promise.all(Array.from({ length: BURST }, () => throttle.attempt('alice', '203.0.113.9')));
  t.is(attempts.filter((a) => a.wait === undefined).length, 5);
});

// Every backend reserves by its own compare-and-set.
for (const [label, open] of useStateBackends(test)) {
  test(`the throttle over ${label}: of ${BURST} parallel attempts for one name 5 are reserved, and a success gives the others back`, async (t) => {
    const store = await open(t);
    t.teardown(() => store.close());
    const throttle = credentialThrottle(store, throttlePolicy(undefined)!, 'p', Date.now);
    const attempts = await Promise.all(Array.from({ length: BURST }, () => throttle.attempt('alice', '203.0.113.9')));
    t.is(attempts.filter((a) => a.wait === undefined).length, 5);
    const other = await throttle.attempt('bob', '203.0.113.9');
    t.is(other.wait, undefined, 'another name from the same client is not locked out');
    await other.succeeded();
  });
}

test('a checker that throws gives its reservation back; a success forgets the failures of that client for the name', async (t) => {
  const clock = manualClock();
  const throttle = credentialThrottle(memoryStateStore({ clock }), throttlePolicy(undefined)!, 'p', clock);
  for (let i = 0; i < 20; i++) {
    const a = await throttle.attempt('bob', '203.0.113.9');
    t.is(a.wait, undefined, `attempt ${i} is not refused: abandoned ones do not count`);
    await a.abandoned();
  }
  for (let i = 0; i < 4; i++) await (await throttle.attempt('bob', '203.0.113.9')).failed();
  await (await throttle.attempt('bob', '203.0.113.9')).succeeded();
  for (let i = 0; i < 4; i++) await (await throttle.attempt('bob', '203.0.113.9')).failed();
  t.is(
    (await throttle.attempt('bob', '203.0.113.9')).wait,
    undefined,
    'the 5th after the success is reserved: the success forgot the four before it',
  );
  t.not((await throttle.attempt('bob', '203.0.113.9')).wait, undefined, 'and the 6th is refused');
});

const from = (ip: string) => ({ 'x-forwarded-for': ip });

test("one guesser cannot lock the owner out: a name locked for the guesser's address still admits the right password from another", async (t) => {
  const a = await app(t);
  a.app.proxy = true;
  const guesser = new Client(a.url);
  const login = (c: Client, ip: string, passwd: string) =>
    c.fetch('/auth/local/login', { method: 'POST', form: { user: 'alice', passwd }, headers: from(ip) });
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) {
    statuses.push((await login(guesser, '203.0.113.66', `wrong-${i}`)).status);
  }
  t.deepEqual(statuses, [403, 403, 403, 403, 403, 429, 429, 429]);
  t.is((await login(new Client(a.url), '198.51.100.7', 'right')).status, 200, 'the owner, elsewhere, logs in');
  t.is(
    (await login(guesser, '203.0.113.66', 'right')).status,
    429,
    'the guesser stays locked out, right password or not',
  );
});

test('a name failed from many addresses is locked out for everyone at perUserTotal (50 by default)', async (t) => {
  const a = await app(t, { loginThrottle: { perUser: 5, perUserTotal: 10 } });
  a.app.proxy = true;
  const c = new Client(a.url);
  for (let i = 0; i < 10; i++) {
    const res = await c.fetch('/auth/local/login', {
      method: 'POST',
      form: { user: 'carol', passwd: 'wrong' },
      headers: from(`203.0.113.${i + 1}`),
    });
    t.is(res.status, 403, `address ${i + 1}`);
  }
  const owner = await c.fetch('/auth/local/login', {
    method: 'POST',
    form: { user: 'carol', passwd: 'right' },
    headers: from('198.51.100.7'),
  });
  t.is(owner.status, 429, 'the ceiling for the name holds across addresses');
  t.throws(() => throttlePolicy({ perUser: 10, perUserTotal: 5 }), {
    message: 'authKoa: loginThrottle.perUserTotal must not be lower than perUser',
  });
});

test('every address of one IPv6 /64 counts as one client; another /64 is another client', async (t) => {
  const a = await app(t);
  a.app.proxy = true;
  const c = new Client(a.url);
  const login = (ip: string, passwd = 'wrong') =>
    c.fetch('/auth/local/login', { method: 'POST', form: { user: 'dave', passwd }, headers: from(ip) });
  for (let i = 1; i <= 5; i++) {
    t.is((await login(`2001:db8:1:2::${i.toString(16)}`)).status, 403);
  }
  t.is(
    (await login('2001:db8:1:2:ffff:ffff:ffff:ffff')).status,
    429,
    'a new address in the same /64 is the same client',
  );
  t.is((await login('2001:db8:1:3::1', 'right')).status, 200, 'the next /64 is not');
});

test('a 600-character X-Forwarded-For under app.proxy is one untrusted client, not a 500', async (t) => {
  const a = await app(t);
  a.app.proxy = true;
  const c = new Client(a.url);
  const res = await c.fetch('/auth/local/login', {
    method: 'POST',
    form: { user: 'erin', passwd: 'right' },
    headers: from('9'.repeat(600)),
  });
  t.is(res.status, 200);
  const basic = await fetch(`${a.url}/private`, {
    headers: {
      ...from(`${'a'.repeat(600)}, 10.0.0.1`),
      authorization: `Basic ${Buffer.from('x:y').toString('base64')}`,
    },
  });
  t.true(basic.status < 500, String(basic.status));
  t.regex(basic.headers.get('content-type') ?? '', /json/);
});

test('clientKey: IPv4 as is, IPv4-mapped as IPv4, IPv6 by its /64 however written, garbage in one bucket', (t) => {
  t.is(clientKey('203.0.113.9'), '203.0.113.9');
  t.is(clientKey('::ffff:203.0.113.9'), '203.0.113.9');
  t.is(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  t.is(clientKey('2001:0DB8:0000:0000:abcd::1'), '2001:db8:0:0::/64');
  t.is(clientKey('2001:db8:a:b:c:d:e:f'), '2001:db8:a:b::/64');
  t.is(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  t.is(clientKey('::1'), '0:0:0:0::/64');
  for (const bad of ['', 'x'.repeat(600), 'not-an-ip', '1.2.3.4.5', '300.1.1.1', '::ffff:999.1.1.1'])
    t.is(clientKey(bad), 'invalid', bad);
});
