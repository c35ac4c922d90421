/**
 * `authctl sessions list` and `revoke`: what they read and write in the store the apps share, run as a
 * separate process against an app (in this process) on the same LMDB environment or redis-server, and
 * how they refuse bad arguments.
 */
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { Client, decodeJwt, manualClock, startApp } from '../helpers/http.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp.js';
import { until } from '../helpers/until.js';

const SECRET = 'sessions-cli-test-secret-0123456789abcdef';

test("revoke writes the user's not-before time into an LMDB store the apps share", async (t) => {
  const dir = tempDir(t, 'authkoa-sessions-');
  // The CLI reads its own clock somewhere between these two readings, however long a loaded machine
  // takes to start it: the record is checked against that interval, not against a guess of the delay.
  const before = Date.now();
  const res = await runCli([
    'sessions',
    'revoke',
    'local_abc',
    '--store',
    `lmdb://${join(dir, 'state')}`,
    '--cookie-duration',
    '1h',
  ]);
  const after = Date.now();
  t.is(res.code, 0, res.stderr);
  t.is(res.stdout, 'authctl sessions: sessions of local_abc issued up to now are revoked\n');
  const store = new LmdbStateStore(join(dir, 'state'));
  t.teardown(() => store.close());
  const entry = await store.get<{ notBefore: number }>('sessions', 'u:local_abc');
  const { notBefore } = entry!.value;
  t.true(
    notBefore >= Math.floor(before / 1000) && notBefore <= Math.floor(after / 1000),
    `revoked as of the CLI's now (${notBefore})`,
  );
  const kept = entry!.expiresAt - 3_600_000;
  t.true(kept >= before && kept <= after, "kept for --cookie-duration from the CLI's now");
});

test('revoke refuses a memory store, a bad URI (without echoing it) and a bad duration', async (t) => {
  const [memory, bad, duration, missing] = await Promise.all([
    runCli(['sessions', 'revoke', 'u', '--store', 'memory://']),
    runCli(['sessions', 'revoke', 'u', '--store', 'etcd://u:hunter2@h']),
    runCli(['sessions', 'revoke', 'u', '--store', 'lmdb:///tmp/x', '--cookie-duration', 'forever']),
    runCli(['sessions', 'revoke', 'u']),
  ]);
  t.not(memory.code, 0);
  t.regex(memory.stderr, /--store must be the apps' shared store/);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /--store must be lmdb:\/\/<path>, redis:\/\/…, mongodb:\/\/… or postgres:\/\//);
  t.false(bad.stderr.includes('hunter2'));
  t.not(duration.code, 0);
  t.regex(duration.stderr, /--cookie-duration/);
  t.not(missing.code, 0);
  t.regex(missing.stderr, /required option '--store <uri>'/);
});

/** The users' browsers, as the session list labels them. */
const LAPTOP_UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const PHONE_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
const TOKEN_MS = 15 * 60_000; // the apps' default tokenDuration: past it, a request refreshes its token

let redis: RedisPeer;
test.before(async () => {
  redis = await startRedis();
});
test.after.always(() => redis?.stop());

/** The stores the apps and the CLI (a separate process) share: an LMDB environment on disk, a real redis-server. */
const SHARED: Array<[label: string, uri: (t: ExecutionContext) => string]> = [
  ['LMDB', (t) => `lmdb://${join(tempDir(t, 'authkoa-sessions-'), 'state')}`],
  ['redis-server', () => `${redis.uri}/0?prefix=cli${randomBytes(5).toString('hex')}:`],
];

const iso = (ms: number) => new Date(ms).toISOString();
const sidOf = (d: Device) => decodeJwt(d.client.jar.get('JWT')!).sid as string;
const noStack = (t: ExecutionContext, res: CliResult) =>
  t.false(/\n\s+at /.test(res.stderr), `no stack trace: ${res.stderr}`);

/**
 * An app on `uri` (in this process, on a clock the test moves) where alice logged in from a laptop and,
 * a minute later, from a phone. The clock starts 5 minutes behind the real one, so both logins happen
 * before the CLI's now, which is when a revocation it writes takes effect.
 */
async function twoLogins(t: ExecutionContext, uri: string) {
  const clock = manualClock(Math.floor(Date.now() / 1000) * 1000 - 5 * 60_000);
  const app = await startApp({
    secret: SECRET,
    stateStore: uri,
    clock,
    providers: [
      { kind: 'direct', name: 'direct', checker: async (user: string, passwd: string) => passwd === `${user}-pw` },
    ],
  });
  t.teardown(() => app.close());
  const login = async (userAgent: string) => {
    const c = new Client(app.url);
    const res = await c.fetch('/auth/direct/login', {
      method: 'POST',
      json: { user: 'alice', passwd: 'alice-pw' },
      headers: { 'user-agent': userAgent },
    });
    if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
    const device: Device = { client: c, userAgent };
    return { device, id: ((await res.json()) as { id: string }).id, at: clock() };
  };
  const laptop = await login(LAPTOP_UA);
  clock.advance(60_000);
  const phone = await login(PHONE_UA);
  return { clock, id: laptop.id, laptop: laptop.device, laptopAt: laptop.at, phone: phone.device, phoneAt: phone.at };
}

/** A browser: its cookies, and the User-Agent it sends on every request (a refresh records it again). */
interface Device {
  client: Client;
  userAgent: string;
}

/** A request to a protected route; after the token's lifetime it is where the app refreshes the token, or refuses it. */
const visit = ({ client, userAgent }: Device) =>
  client.fetch('/private', { headers: { ...client.xsrf(), 'user-agent': userAgent } });
const errorCode = async (res: Response) => ((await res.json()) as { code?: string }).code;

for (const [label, uriOf] of SHARED) {
  test(`list prints a user's sessions newest first; revoke --sid ends one, refused at once in the app (told on the store's channel) while the other goes on (${label})`, async (t) => {
    const uri = uriOf(t);
    const { clock, id, laptop, laptopAt, phone, phoneAt } = await twoLogins(t, uri);
    const [laptopSid, phoneSid] = [sidOf(laptop), sidOf(phone)];

    const listed = await runCli(['sessions', 'list', id, '--store', uri]);
    t.is(listed.code, 0, listed.stderr);
    t.is(
      listed.stdout,
      `${phoneSid}  direct  Firefox on Linux  127.0.0.0/24  created ${iso(phoneAt)}  last seen ${iso(phoneAt)}\n` +
        `${laptopSid}  direct  Chrome on macOS  127.0.0.0/24  created ${iso(laptopAt)}  last seen ${iso(laptopAt)}\n` +
        `2 sessions of ${id}\n`,
    );

    const ended = await runCli(['sessions', 'revoke', id, '--sid', phoneSid, '--store', uri]);
    t.is(ended.code, 0, ended.stderr);
    t.is(ended.stdout, `authctl sessions: session ${phoneSid} of ${id} is ended\n`);
    // The CLI is another process: the app hears of the end on the store's broadcast (Redis pub/sub within
    // milliseconds, LMDB's counter checked every 100 ms), then refuses the token at once, with no refresh
    // due: its clock has not moved. The deadline is only the safety net on a loaded machine.
    let refused!: Response;
    await until(
      async () => (refused = await visit(phone)).status !== 201,
      `the app to refuse ${phoneSid} once the channel tells it`,
      10_000,
      20,
    );
    t.is(refused.status, 401);
    t.is(await errorCode(refused), 'session_revoked');
    t.is(
      phone.client.jar.get('JWT'),
      'session_revoked',
      "the ended session's token is cleared: the cookie holds the mark of why",
    );
    t.is((await visit(laptop)).status, 201, 'the other session goes on');
    // Past the token's life, its refresh reads the store, which ended only the phone's session.
    clock.advance(TOKEN_MS + 60_000);
    const before = laptop.client.jar.get('JWT');
    t.is((await visit(laptop)).status, 201, 'the other session goes on past its refresh');
    t.not(laptop.client.jar.get('JWT'), before, 'through a refresh');
    t.is(sidOf(laptop), laptopSid);

    const after = await runCli(['sessions', 'list', id, '--store', uri, '--json']);
    t.is(after.code, 0, after.stderr);
    t.deepEqual(JSON.parse(after.stdout), [
      {
        sid: laptopSid,
        provider: 'direct',
        device: 'Chrome on macOS',
        network: '127.0.0.0/24',
        created: iso(laptopAt),
        lastSeen: iso(clock()),
      },
    ]);
  });
}

test('revoke without --sid ends every session and empties the list; list then says there are none; an unknown sid is named, exit 1 (LMDB)', async (t) => {
  const uri = SHARED[0]![1](t);
  const { clock, id, laptop, phone } = await twoLogins(t, uri);
  const json = await runCli(['sessions', 'list', id, '--store', uri, '--json']);
  t.is(JSON.parse(json.stdout).length, 2);

  const all = await runCli(['sessions', 'revoke', id, '--store', uri]);
  t.is(all.code, 0, all.stderr);
  t.is(all.stdout, `authctl sessions: sessions of ${id} issued up to now are revoked\n`);
  const [none, noneJson, unknown] = await Promise.all([
    runCli(['sessions', 'list', id, '--store', uri]),
    runCli(['sessions', 'list', id, '--store', uri, '--json']),
    runCli(['sessions', 'revoke', id, '--sid', sidOf(laptop), '--store', uri]),
  ]);
  t.is(none.code, 0, none.stderr);
  t.is(none.stdout, `authctl sessions: no live sessions of ${id}\n`);
  t.deepEqual(JSON.parse(noneJson.stdout), []);
  t.is(unknown.code, 1);
  t.is(unknown.stderr, `authctl: no live session ${sidOf(laptop)} of ${id} in that store\n`);
  t.is(unknown.stdout, '');

  clock.advance(TOKEN_MS + 60_000);
  for (const c of [laptop, phone]) {
    const res = await visit(c);
    t.is(res.status, 401);
    t.is(await errorCode(res), 'session_revoked');
  }
});

test('list and revoke --sid refuse a memory store, a bad or unreachable URI (without echoing its password), a missing --store, an empty user id or sid and a bad duration, without a stack trace', async (t) => {
  // None of these gets as far as opening the store (lmdb:///tmp/x is never created).
  const cases: Array<[args: string[], message: RegExp]> = [
    [['list', 'u', '--store', 'memory://'], /--store must be the apps' shared store/],
    [
      ['list', 'u', '--store', 'etcd://u:hunter2@h'],
      /--store must be lmdb:\/\/<path>, redis:\/\/…, mongodb:\/\/… or postgres:\/\//,
    ],
    [
      ['revoke', 'u', '--sid', 'abc', '--store', 'etcd://u:hunter2@h'],
      /--store must be lmdb:\/\/<path>, redis:\/\/…, mongodb:\/\/… or postgres:\/\//,
    ],
    [
      ['list', 'u', '--store', 'redis://:hunter2@127.0.0.1:1/0'],
      /cannot open the state store: redis redis:\/\/:\*\*\*@127\.0\.0\.1:1\/0 is unavailable/,
    ],
    [['list', 'u'], /required option '--store <uri>'/],
    [['list', '', '--store', 'lmdb:///tmp/x'], /<user> must not be empty/],
    [
      ['revoke', 'u', '--sid', '', '--store', 'lmdb:///tmp/x'],
      /--sid must be a session id as `authctl sessions list` prints it/,
    ],
    [['list', 'u', '--store', 'lmdb:///tmp/x', '--cookie-duration', 'forever'], /--cookie-duration/],
  ];
  const results = await Promise.all(cases.map(([args]) => runCli(['sessions', ...args])));
  for (const [i, res] of results.entries()) {
    const [args, message] = cases[i]!;
    const what = args.join(' ');
    t.not(res.code, 0, what);
    t.regex(res.stderr, message, what);
    t.false(res.stderr.includes('hunter2'), what);
    t.is(res.stdout, '', what);
    noStack(t, res);
  }
});
