/**
 * `tokens.failedLookups`: made-up personal tokens with a valid checksum cost a state-store read each, so each client
 * (its address, through X-Forwarded-For with `app.proxy`) gets `limit` lookups that find nothing per window; after
 * that its personal tokens are answered 429 `rate_limited` with Retry-After and read nothing. The state store is a
 * real one (LMDB files, redis-server, PostgreSQL) behind a wrapper that records every read; the clock is the rig's.
 */
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { mintToken } from '../../lib/personal-tokens/format.js';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { openPostgresStateStore } from '../../lib/state/postgres.js';
import { openRedisStateStore } from '../../lib/state/redis.js';
import type { StateStore } from '../../lib/state/types.js';
import { codeOf } from '../accounts/rig.js';
import { startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp.js';
import { bearer, loggedIn, newToken, tokensRig } from './rig.js';

let redis: RedisPeer;
let postgres: PostgresPeer;
test.before(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
});
test.after.always(async () => {
  await Promise.all([redis?.stop(), postgres?.destroy()]);
});

const tag = () => randomBytes(5).toString('hex');
const GUESSER = '203.0.113.7';
const OTHER = '198.51.100.20';

/** `store` as the app gets it: every `get` recorded as `<namespace> <key>`. */
function readsOf(store: StateStore): { store: StateStore; reads: string[] } {
  const reads: string[] = [];
  const counted = new Proxy(store, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (prop === 'get') return (ns: string, key: string) => (reads.push(`${ns} ${key}`), target.get(ns, key));
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: counted, reads };
}

/** A GET /api/me with a bearer token from `ip`. */
const from = (url: string, token: string, ip: string) =>
  bearer(url, '/api/me', token, { headers: { 'x-forwarded-for': ip } });

/** The rig on `open`'s store, reads recorded, `tokens.failedLookups` as given; the app trusts X-Forwarded-For. */
async function rigOn(t: ExecutionContext, open: (clock: () => number) => Promise<StateStore>, failedLookups?: unknown) {
  let now: (() => number) | undefined;
  const inner = await open(() => (now ? now() : Date.now()));
  t.teardown(() => inner.close());
  const { store, reads } = readsOf(inner);
  const r = await tokensRig(t, {
    tokens: failedLookups === undefined ? true : { failedLookups },
    service: { stateStore: store },
  });
  now = r.clock;
  r.app.app.proxy = true;
  await loggedIn(r);
  return { r, reads };
}

const BACKENDS: Array<[kind: string, open: (t: ExecutionContext) => (clock: () => number) => Promise<StateStore>]> = [
  ['lmdb', (t) => async (clock) => new LmdbStateStore(join(tempDir(t), 'state'), { clock })],
  ['redis', () => async () => openRedisStateStore(`${redis.uri}/0?prefix=t${tag()}:`)],
  ['postgres', () => async () => openPostgresStateStore(`${postgres.uri}?prefix=t${tag()}_&timeout=30000`)],
];

for (const [kind, open] of BACKENDS) {
  test(`${kind}: by default 20 made-up tokens from one client are looked up and refused 401; from then on its personal tokens are 429 rate_limited with Retry-After and read nothing, while a real token from another client works`, async (t) => {
    const { r, reads } = await rigOn(t, open(t));
    const url = r.app.url;
    const real = await newToken(r.client);
    reads.length = 0;
    for (let i = 0; i < 20; i++) {
      const res = await from(url, mintToken('akp'), GUESSER);
      t.is(res.status, 401, `made-up token ${i + 1}`);
      t.is(await codeOf(res), 'token_invalid');
    }
    t.is(reads.filter((x) => x.startsWith('pat ')).length, 20, 'each of the 20 was looked up once');

    reads.length = 0;
    for (let i = 0; i < 10; i++) {
      const res = await from(url, mintToken('akp'), GUESSER);
      t.is(res.status, 429, `made-up token ${21 + i}`);
      t.is(await codeOf(res), 'rate_limited');
      const retry = Number(res.headers.get('retry-after'));
      t.true(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    }
    const realFromGuesser = await from(url, real.token, GUESSER);
    t.is(realFromGuesser.status, 429, "every personal token of that client, a real one's too");
    await realFromGuesser.body?.cancel();
    t.deepEqual(reads, [], 'no store read for the client once it is locked out');

    const realElsewhere = await from(url, real.token, OTHER);
    t.is(realElsewhere.status, 200, 'a real token from another client');
    await realElsewhere.body?.cancel();
    const madeUpElsewhere = await from(url, mintToken('akp'), OTHER);
    t.is(madeUpElsewhere.status, 401, "another client's made-up token is looked up: its count is its own");
    await madeUpElsewhere.body?.cancel();
  });
}

test('lmdb: limit and window as set; once the window has passed on the injected clock, the client is looked up again', async (t) => {
  const { r, reads } = await rigOn(t, open(t), { limit: 3, window: '10m' });
  const url = r.app.url;
  const statuses = async (n: number) => {
    const got: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await from(url, mintToken('akp'), GUESSER);
      got.push(res.status);
      await res.body?.cancel();
    }
    return got;
  };
  t.deepEqual(await statuses(5), [401, 401, 401, 429, 429]);
  t.is(reads.filter((x) => x.startsWith('pat ')).length, 3);
  r.clock.advance(10 * 60_000 - 1000);
  t.deepEqual(await statuses(1), [429], 'a second before the window ends');
  r.clock.advance(1000);
  t.deepEqual(await statuses(4), [401, 401, 401, 429], 'a new window: three more lookups');
  t.is(reads.filter((x) => x.startsWith('pat ')).length, 6);
});

test('lmdb: limit 1: the first lookup that finds nothing is refused 401, every token after it 429', async (t) => {
  const { r, reads } = await rigOn(t, open(t), { limit: 1 });
  const got: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await from(r.app.url, mintToken('akp'), GUESSER);
    got.push(res.status);
    await res.body?.cancel();
  }
  t.deepEqual(got, [401, 429, 429]);
  t.is(reads.filter((x) => x.startsWith('pat ')).length, 1);
});

test('lmdb: failedLookups false counts nothing: every made-up token is looked up and refused 401', async (t) => {
  const { r, reads } = await rigOn(t, open(t), false);
  for (let i = 0; i < 30; i++) {
    const res = await from(r.app.url, mintToken('akp'), GUESSER);
    t.is(res.status, 401);
    await res.body?.cancel();
  }
  t.is(reads.filter((x) => x.startsWith('pat ')).length, 30);
});

function open(t: ExecutionContext) {
  return BACKENDS[0]![1](t);
}
