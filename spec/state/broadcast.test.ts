/**
 * The broadcast of every state store that has one (lib/state/broadcast.ts): memory, LMDB (real files),
 * Redis (a real redis-server) and PostgreSQL (a real server). Each store is two instances on one backend,
 * one publishing and the other following, as two processes of a service would; then LMDB and Redis with
 * two real `node` processes (spec/state/fixtures/broadcast-process.ts), LMDB's failed reads, and Redis's
 * outages: the server killed and restarted, and the follower's own subscription cut while the server stays.
 */
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { open as openLmdb } from 'lmdb';
import { Redis } from 'ioredis';
import type { Broadcast } from '../../lib/state/broadcast.js';
import { CHECK_MS, lmdbBroadcast, type BroadcastDb } from '../../lib/state/lmdb-broadcast.js';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { openPostgresStateStore } from '../../lib/state/postgres.js';
import { PUBLISH, redisBroadcast, type BroadcastRedis } from '../../lib/state/redis-broadcast.js';
import { openRedisStateStore } from '../../lib/state/redis.js';
import { parseStateUri } from '../../lib/state/open.js';
import { sharedState } from '../../lib/state/shared.js';
import { BROADCAST_KINDS } from '../../lib/state/shared-broadcast.js';
import type { StateStore } from '../../lib/state/types.js';
import { STRICT_STORES } from '../../lib/util/store-policy.js';
import { spawnTs, waitForLine } from '../helpers/cli.js';
import { startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp.js';
import { until } from '../helpers/until.js';

/** Start-up's bound for a store, as a loaded machine needs it: a fresh PostgreSQL connection took over 3 s once. */
const LOADED = { ...STRICT_STORES, checkTimeoutMs: 30_000 };
const PROCESS = fileURLToPath(new URL('./fixtures/broadcast-process.ts', import.meta.url));
const KEEP_MS = 60_000;

let redis: RedisPeer;
let postgres: PostgresPeer;
test.before(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
});
test.after.always(async () => {
  await Promise.all([redis?.stop(), postgres?.destroy()]);
});

const tag = () => randomBytes(5).toString('hex');
/** A topic of its own for every test, so tests running at once on one backend never see each other's messages. */
const topic = () => `t.${tag()}`;

/** Two instances on one backend (the memory store: one instance, as it is one process's), closed with the test. */
type Pair = (t: ExecutionContext) => Promise<{ publisher: Broadcast; follower: Broadcast }>;

async function pairOf(t: ExecutionContext, open: () => Promise<StateStore>) {
  const stores = [await open(), await open()];
  t.teardown(() => Promise.all(stores.map((s) => s.close())).then(() => {}));
  return { publisher: stores[0].broadcast!, follower: stores[1].broadcast! };
}

const STORES: Array<[name: string, pair: Pair]> = [
  [
    'memory',
    async () => {
      const { broadcast } = memoryStateStore();
      return { publisher: broadcast!, follower: broadcast! };
    },
  ],
  [
    'lmdb',
    async (t) => {
      const path = join(tempDir(t), 'state');
      return pairOf(t, async () => new LmdbStateStore(path));
    },
  ],
  [
    'redis',
    async (t) => {
      const uri = `${redis.uri}/0?prefix=t${tag()}:`;
      return pairOf(t, () => openRedisStateStore(uri));
    },
  ],
  [
    'postgres',
    async (t) => {
      const uri = `${postgres.uri}?prefix=t${tag()}_&timeout=30000`;
      return pairOf(t, () => openPostgresStateStore(uri));
    },
  ],
];

/** A follower that records what it is told: the bodies, and every delivery and status in the order they came. */
function follow(t: ExecutionContext, broadcast: Broadcast, name: string, lookbackMs: number) {
  const bodies: unknown[] = [];
  const events: string[] = [];
  const follower = broadcast.follow(
    name,
    lookbackMs,
    (body) => {
      bodies.push(body);
      events.push(`got ${JSON.stringify(body)}`);
    },
    (live) => events.push(live ? 'live' : 'down'),
  );
  t.teardown(() => follower.close());
  const last = () => events.filter((e) => e === 'live' || e === 'down').at(-1);
  return {
    bodies,
    events,
    follower,
    /** Waits for the follower to report itself live (again, after `fromEvent`). */
    live: (fromEvent = 0) =>
      until(() => events.slice(fromEvent).includes('live') && last() === 'live', `${name} live`, 60_000),
    down: (fromEvent = 0) => until(() => events.slice(fromEvent).includes('down'), `${name} down`, 60_000),
    /** Waits until `n` bodies have come. */
    count: (n: number) => until(() => bodies.length >= n, `${n} messages on ${name}`, 60_000),
  };
}

const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ n: from + i }));

for (const [name, pair] of STORES) {
  test(`${name}: a follower receives what is published after it started, in order`, async (t) => {
    const { publisher, follower } = await pair(t);
    const name = topic();
    const f = follow(t, follower, name, KEEP_MS);
    await f.live();
    for (const body of numbers(1, 20)) await publisher.publish(name, body, KEEP_MS);
    await f.count(20);
    t.deepEqual(f.bodies, numbers(1, 20));
  });

  test(`${name}: a follower started later first receives what was published within its look-back, not older, then reports live`, async (t) => {
    const { publisher, follower } = await pair(t);
    const name = topic();
    await publisher.publish(name, { n: 'old' }, KEEP_MS);
    await delay(2500);
    await publisher.publish(name, { n: 1 }, KEEP_MS);
    await publisher.publish(name, { n: 2 }, KEEP_MS);
    const f = follow(t, follower, name, 1000);
    await f.live();
    // Down before the first connection is allowed (a store with a link of its own); nothing else.
    const events = f.events.filter((e, i) => !(i === 0 && e === 'down'));
    t.deepEqual(events, ['got {"n":1}', 'got {"n":2}', 'live'], 'the catch-up, in order, then live');
    await publisher.publish(name, { n: 3 }, KEEP_MS);
    await f.count(3);
    t.deepEqual(f.bodies, numbers(1, 3), 'then what comes next');
  });

  test(`${name}: a body round-trips as JSON`, async (t) => {
    const { publisher, follower } = await pair(t);
    const name = topic();
    const f = follow(t, follower, name, KEEP_MS);
    await f.live();
    const body = {
      text: 'é ✓ "quoted" \\ \n tab\t 🙂',
      numbers: [0, -1, 1.5, 1e21, Number.MAX_SAFE_INTEGER],
      flags: [true, false, null],
      nested: { a: { b: { c: [] as unknown[] } }, empty: {} },
      long: 'x'.repeat(4000),
    };
    for (const b of [body, 'a string', 42, null, [1, 'two']]) await publisher.publish(name, b, KEEP_MS);
    await f.count(5);
    t.deepEqual(f.bodies, [body, 'a string', 42, null, [1, 'two']]);
    t.not(f.bodies[0], body, 'a copy, not the object published');
  });

  test(`${name}: close() stops delivery and status reports`, async (t) => {
    const { publisher, follower } = await pair(t);
    const name = topic();
    const [closed, open] = [follow(t, follower, name, KEEP_MS), follow(t, follower, name, KEEP_MS)];
    await Promise.all([closed.live(), open.live()]);
    await publisher.publish(name, { n: 1 }, KEEP_MS);
    await Promise.all([closed.count(1), open.count(1)]);
    closed.follower.close();
    const seen = closed.events.length;
    await publisher.publish(name, { n: 2 }, KEEP_MS);
    await open.count(2);
    await delay(4 * CHECK_MS); // past the next checks of a polling follower
    t.is(closed.events.length, seen, 'nothing after close()');
    t.deepEqual(open.bodies, numbers(1, 2));
  });

  test(`${name}: close() from inside a delivery, with more messages already on their way: none after it`, async (t) => {
    const { publisher, follower } = await pair(t);
    const name = topic();
    const open = follow(t, follower, name, KEEP_MS);
    const after: unknown[] = [];
    let closed = false;
    let live = false;
    const closing = follower.follow(
      name,
      KEEP_MS,
      (body) => {
        if (closed) after.push(body);
        closed = true;
        closing.close(); // the first message closes it while the next ones may already be read
      },
      (up) => (live ||= up),
    );
    t.teardown(() => closing.close());
    await Promise.all([open.live(), until(() => live, `${name} live`, 60_000)]);
    await Promise.all(numbers(1, 40).map((body) => publisher.publish(name, body, KEEP_MS)));
    await open.count(40);
    await delay(4 * CHECK_MS); // past the next checks of a polling follower
    t.true(closed, 'the first message came');
    t.deepEqual(after, [], 'nothing after close()');
  });

  test(`${name}: a bad topic is a TypeError, on publish and on follow`, async (t) => {
    const { publisher, follower } = await pair(t);
    for (const bad of ['', 'a b', 'a:b', 'ü', 'x'.repeat(65), 42 as unknown as string]) {
      await t.throwsAsync(async () => publisher.publish(bad, {}, KEEP_MS), { instanceOf: TypeError }, String(bad));
      t.throws(
        () =>
          follower.follow(
            bad,
            0,
            () => {},
            () => {},
          ),
        { instanceOf: TypeError },
        String(bad),
      );
    }
    t.notThrows(() =>
      follower
        .follow(
          'x'.repeat(64),
          0,
          () => {},
          () => {},
        )
        .close(),
    );
  });
}

test('every kind BROADCAST_KINDS names opens from its URI with a broadcast, which the shared state of two services carries', async (t) => {
  const uris: Record<string, string> = {
    memory: 'memory://',
    lmdb: `lmdb://${join(tempDir(t), 'state')}`,
    redis: `${redis.uri}/0?prefix=t${tag()}:`,
    postgres: `${postgres.uri}?prefix=t${tag()}_&timeout=30000`,
  };
  t.deepEqual([...BROADCAST_KINDS].sort(), Object.keys(uris).sort());
  for (const [kind, uri] of Object.entries(uris)) {
    const [a, b] = [0, 1].map(() =>
      sharedState(parseStateUri(uri), { clock: Date.now, option: 'stateStore', policy: LOADED }),
    );
    t.teardown(() => Promise.all([a.close(), b.close()]).then(() => {}));
    await Promise.all([a.start(), b.start()]);
    // The memory store is one per service: its broadcast reaches that service's own followers only.
    const publisher = kind === 'memory' ? b : a;
    const name = topic();
    const f = follow(t, b.store.broadcast!, name, KEEP_MS);
    await f.live();
    await publisher.store.broadcast!.publish(name, { kind }, KEEP_MS);
    await f.count(1);
    t.deepEqual(f.bodies, [{ kind }], kind);
  }
});

test("the service's broadcast hands what its process publishes to that process's followers before publish() resolves, and again from the store; another service hears it once; memory, which delivers in the process itself, once", async (t) => {
  const uris: Record<string, string> = {
    memory: 'memory://',
    lmdb: `lmdb://${join(tempDir(t), 'state')}`,
    redis: `${redis.uri}/0?prefix=t${tag()}:`,
    postgres: `${postgres.uri}?prefix=t${tag()}_&timeout=30000`,
  };
  for (const [kind, uri] of Object.entries(uris)) {
    const [a, b] = [0, 1].map(() =>
      sharedState(parseStateUri(uri), { clock: Date.now, option: 'stateStore', policy: LOADED }),
    );
    t.teardown(() => Promise.all([a.close(), b.close()]).then(() => {}));
    await Promise.all([a.start(), b.start()]);
    const name = topic();
    const own = follow(t, a.store.broadcast!, name, KEEP_MS);
    const other = kind === 'memory' ? undefined : follow(t, b.store.broadcast!, name, KEEP_MS);
    await Promise.all([own.live(), other?.live()]);
    await a.store.broadcast!.publish(name, { kind }, KEEP_MS);
    // Its own copy at least: the store's may have come back already too (a NOTIFY can beat the statement's answer).
    t.deepEqual(own.bodies[0], { kind }, `${kind}: in the publishing process as publish() resolves`);
    if (!other) t.is(own.bodies.length, 1, `${kind}: once`);
    if (!other) continue;
    await Promise.all([own.count(2), other.count(1)]);
    t.deepEqual(own.bodies, [{ kind }, { kind }], `${kind}: then from the store, as every process hears it`);
    t.deepEqual(other.bodies, [{ kind }], `${kind}: another service, from the store`);
  }
});

/** A child process following `name` on `uri`: its lines, and teardown that checks it closed cleanly. */
function childFollower(t: ExecutionContext, uri: string, name: string) {
  const child = spawnTs(PROCESS, [uri, 'follow', name, String(KEEP_MS)]);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  t.teardown(() => stopChild(child, () => stderr));
  const got = () => [...stdout.matchAll(/^got (.*)$/gm)].map((m) => JSON.parse(m[1]!) as unknown);
  return { child, got, lines: () => stdout.split('\n').filter(Boolean) };
}

async function stopChild(child: ChildProcess, stderr: () => string): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  const [code] = await once(child, 'close');
  if (code !== 0) throw new Error(`broadcast process exited ${code}: ${stderr()}`);
}

/** Runs a child process that publishes `{ n }` for n in from..to on `uri`, to its end. */
async function childPublish(uri: string, name: string, from: number, to: number): Promise<void> {
  const child = spawnTs(PROCESS, [uri, 'publish', name, String(from), String(to)]);
  await waitForLine(child, /^published /m);
  const [code] = child.exitCode !== null ? [child.exitCode] : await once(child, 'close');
  if (code !== 0) throw new Error(`publisher exited ${code}`);
}

for (const name of ['lmdb', 'redis'] as const) {
  test(`${name}: two node processes — what one publishes before the other follows is caught up, what it publishes after is pushed, in order`, async (t) => {
    const uri = name === 'lmdb' ? `lmdb://${join(tempDir(t), 'state')}` : `${redis.uri}/0?prefix=t${tag()}:`;
    const name_ = topic();
    await childPublish(uri, name_, 1, 3);
    const f = childFollower(t, uri, name_);
    await waitForLine(f.child, /^live$/m);
    t.deepEqual(f.got(), numbers(1, 3), 'published before it started: caught up before live');
    await childPublish(uri, name_, 4, 10);
    await until(() => f.got().length >= 10, 'the second batch in the follower process', 60_000);
    t.deepEqual(f.got(), numbers(1, 10));
    t.deepEqual(
      f.lines().filter((l) => !l.startsWith('got ')),
      name === 'lmdb' ? ['live'] : ['down', 'live'],
      'live once, never down after',
    );
  });
}

test('lmdb: a read that throws reports down; the next check that succeeds delivers what came meanwhile and reports live', async (t) => {
  const root = openLmdb({ path: join(tempDir(t), 'env'), maxDbs: 3 });
  t.teardown(() => root.close());
  const db: BroadcastDb = root.openDB({ name: 'broadcast' });
  let failing = false;
  const flaky = new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if ((prop !== 'get' && prop !== 'getRange') || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (failing) throw new Error('MDB_BAD_TXN: the environment went away');
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const publisher = lmdbBroadcast(root, db, Date.now);
  const name = topic();
  const f = follow(t, lmdbBroadcast(root, flaky, Date.now), name, KEEP_MS);
  t.deepEqual(f.events, ['live'], 'live at once: the first check is made before follow() returns');
  await publisher.publish(name, { n: 1 }, KEEP_MS);
  await f.count(1);
  failing = true;
  await f.down();
  await publisher.publish(name, { n: 2 }, KEEP_MS);
  await publisher.publish(name, { n: 3 }, KEEP_MS);
  await delay(3 * CHECK_MS);
  t.deepEqual(f.bodies, numbers(1, 1), 'nothing while its reads fail');
  const at = f.events.length;
  failing = false;
  await f.live(at);
  t.deepEqual(f.events.slice(at), ['got {"n":2}', 'got {"n":3}', 'live'], 'caught up, then live');
  t.is(f.events.filter((e) => e === 'down').length, 1, 'down reported once, however many checks failed');
});

test('lmdb: old messages are pruned as messages are published; closing the store reports its followers down and stops them', async (t) => {
  const store = new LmdbStateStore(join(tempDir(t), 'state'));
  t.teardown(() => store.close());
  const name = topic();
  // The first publish of a process prunes, then every 64th: 64 short-lived ones, then one that prunes them.
  for (const body of numbers(1, 64)) await store.broadcast.publish(name, body, 1);
  await delay(20);
  await store.broadcast.publish(name, { n: 65 }, 1);
  const f = follow(t, store.broadcast, name, KEEP_MS);
  t.deepEqual(f.bodies, numbers(65, 65), 'the older ones are gone from the log');
  t.deepEqual(f.events.at(-1), 'live');
  await store.close();
  t.is(f.events.at(-1), 'down');
  const seen = f.events.length;
  await delay(3 * CHECK_MS);
  t.is(f.events.length, seen, 'and nothing after');
  await t.throwsAsync(store.broadcast.publish(name, {}, KEEP_MS), { message: /closed/ });
});

/** A raw client on the test's server, closed with the test. */
function rawRedis(t: ExecutionContext): Redis {
  const client = new Redis(redis.uri, { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  t.teardown(() => client.disconnect());
  return client;
}

test('memory: every follower and the log get a copy of their own: what one follower changes, no other, no later follower and not the publisher sees', async (t) => {
  const broadcast = memoryStateStore().broadcast!;
  const name = topic();
  const got: Array<Record<string, unknown>> = [];
  // A follower that changes what it is given, then one that only records it.
  const changer = broadcast.follow(
    name,
    KEEP_MS,
    (body) => {
      (body as Record<string, unknown>).s = 'changed';
      got.push(body as Record<string, unknown>);
    },
    () => {},
  );
  const reader = broadcast.follow(
    name,
    KEEP_MS,
    (body) => got.push(body as Record<string, unknown>),
    () => {},
  );
  t.teardown(() => (changer.close(), reader.close()));
  const published = { s: 'sid', until: 1 };
  await broadcast.publish(name, published, KEEP_MS);
  const later: unknown[] = [];
  broadcast
    .follow(
      name,
      KEEP_MS,
      (body) => later.push(body),
      () => {},
    )
    .close();
  t.deepEqual(
    got,
    [
      { s: 'changed', until: 1 },
      { s: 'sid', until: 1 },
    ],
    'the second follower got the body as published',
  );
  t.deepEqual(later, [{ s: 'sid', until: 1 }], 'a follower catching up reads it from the log unchanged');
  t.deepEqual(published, { s: 'sid', until: 1 }, "the publisher's object is left as it was");
  t.not(got[1], published);
});

test.serial(
  'redis: a follower whose subscription is cut while the server stays gets what was published meanwhile from the stream, then reports live',
  async (t) => {
    const uri = `${redis.uri}/0?prefix=t${tag()}:`;
    const { publisher, follower } = await pairOf(t, () => openRedisStateStore(uri));
    const raw = rawRedis(t);
    const name = topic();
    const f = follow(t, follower, name, KEEP_MS);
    await f.live();
    await publisher.publish(name, { n: 1 }, KEEP_MS);
    await f.count(1);
    const at = f.events.length;
    t.true(Number(await raw.client('KILL', 'TYPE', 'pubsub')) >= 1, 'its subscribed connection was cut');
    await publisher.publish(name, { n: 2 }, KEEP_MS); // while it reconnects: no subscriber hears it
    await f.live(at);
    await f.count(2);
    t.deepEqual(f.events.slice(at), ['down', 'got {"n":2}', 'live'], 'down, the missed message from the stream, live');
    await publisher.publish(name, { n: 3 }, KEEP_MS);
    await f.count(3);
    t.deepEqual(f.bodies, numbers(1, 3));
  },
);

test.serial(
  'redis: killed, the server is reported down; restarted, the follower reports live again and receives what is published',
  async (t) => {
    const uri = `${redis.uri}/0?prefix=t${tag()}:`;
    const { publisher, follower } = await pairOf(t, () => openRedisStateStore(uri));
    const name = topic();
    const f = follow(t, follower, name, KEEP_MS);
    await f.live();
    await publisher.publish(name, { n: 1 }, KEEP_MS);
    await f.count(1);
    const at = f.events.length;
    await redis.stop();
    await f.down(at);
    await t.throwsAsync(
      publisher.publish(name, { n: 'lost' }, KEEP_MS),
      undefined,
      'publishing fails while it is away',
    );
    await redis.start();
    await f.live(at);
    // The publisher's own connection comes back on its retry schedule.
    await until(
      () =>
        publisher.publish(name, { n: 2 }, KEEP_MS).then(
          () => true,
          () => false,
        ),
      'a publish after the restart',
    );
    await f.count(2);
    t.deepEqual(f.bodies, numbers(1, 2));
    t.deepEqual(
      f.events.slice(at).filter((e) => !e.startsWith('got')),
      ['down', 'live'],
      'down once, live once',
    );
  },
);

test.serial(
  'redis: a message pushed while the follower is still reading the stream does not make it skip the older ones it missed',
  async (t) => {
    const prefix = `t${tag()}:`;
    const client = new Redis(redis.uri, { lazyConnect: true }) as BroadcastRedis;
    client.defineCommand('authkoaPublish', { numberOfKeys: 1, lua: PUBLISH });
    client.on('error', () => {});
    await client.connect();
    t.teardown(() => client.disconnect());
    // The follower's stream reads wait for the test: a window in which its subscription is up and the read not done.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const xrange = client.xrange.bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as { xrange: (...args: unknown[]) => Promise<unknown> }).xrange = async (...args) => {
      await released;
      return xrange(...args);
    };
    const keyOf = (name: string) => `${prefix}bc:${name}`;
    const broadcast = redisBroadcast(client, keyOf);
    const raw = rawRedis(t);
    const name = topic();
    await broadcast.publish(name, { n: 1 }, KEEP_MS);
    const f = follow(t, broadcast, name, KEEP_MS);
    await until(
      async () => ((await raw.pubsub('NUMSUB', keyOf(name))) as [string, number])[1] === 1,
      'the follower subscribed',
    );
    await broadcast.publish(name, { n: 2 }, KEEP_MS); // pushed to it while its catch-up is held
    await delay(200);
    release();
    await f.live();
    await delay(200); // anything still on its way
    t.deepEqual(f.bodies, numbers(1, 2), 'the missed one first, then the pushed one');
  },
);
