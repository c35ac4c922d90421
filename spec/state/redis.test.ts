/**
 * The Redis state store against a real redis-server (Debian package) started on 127.0.0.1 by the
 * helper: the shared contract, key prefixes, and what the URI's parts do.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { openStateStore } from '../../lib/state/index.js';
import { RedisStateStore, openRedisStateStore } from '../../lib/state/redis.js';
import { parseRedisUri } from '../../lib/state/redis-uri.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import { stateStoreContract } from './state-contract.js';
import { limiterContract } from './limiter-contract.js';

let redis: RedisPeer;
test.before(async () => {
  redis = await startRedis();
});
test.after.always(async () => {
  await redis?.stop();
});

/** A prefix of its own for every store, so parallel tests never share keys. */
const fresh = () => `${redis.uri}/0?prefix=t${randomBytes(6).toString('hex')}:`;

stateStoreContract(test, 'redis', async (clock) => openRedisStateStore(fresh(), { clock }));
limiterContract(test, 'redis', async (clock) => openRedisStateStore(fresh(), { clock }));

test('keys carry the prefix: two prefixes on one server never see each other', async (t) => {
  const a = await openRedisStateStore(`${redis.uri}/0?prefix=appA:`);
  const b = await openRedisStateStore(`${redis.uri}/0?prefix=appB:`);
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const id = randomBytes(4).toString('hex');
  t.true(await a.create('ns', id, 'A', Date.now() + 60_000));
  t.true(await b.create('ns', id, 'B', Date.now() + 60_000), 'the same key under another prefix is free');
  t.is((await b.get('ns', id))?.value, 'B');
  const raw = new Redis(redis.port, '127.0.0.1');
  t.teardown(() => raw.quit());
  t.deepEqual(await raw.hgetall(`appA:ns:${id}`), {
    v: '"A"',
    e: (await a.get('ns', id))!.expiresAt.toString(),
    r: (await a.get('ns', id))!.rev,
  });
  const ttl = await raw.pttl(`appA:ns:${id}`);
  t.true(ttl > 0 && ttl <= 60_000, `a Redis TTL backs the expiry (${ttl} ms)`);
});

test('the database number of the URI is the one written to', async (t) => {
  const id = randomBytes(4).toString('hex');
  const store = await openRedisStateStore(`${redis.uri}/3?prefix=db3:`);
  t.teardown(() => store.close());
  await store.create('ns', id, 1, Date.now() + 60_000);
  const raw = new Redis({ port: redis.port, host: '127.0.0.1', db: 3 });
  const raw0 = new Redis({ port: redis.port, host: '127.0.0.1', db: 0 });
  t.teardown(() => Promise.all([raw.quit(), raw0.quit()]));
  t.is(await raw.exists(`db3:ns:${id}`), 1);
  t.is(await raw0.exists(`db3:ns:${id}`), 0);
});

test('openStateStore opens redis:// URIs through the scheme table', async (t) => {
  const store = await openStateStore(fresh());
  t.teardown(() => store.close());
  t.true(store instanceof RedisStateStore);
  t.true(await store.markUsed('jti', Date.now() + 60_000));
  t.false(await store.markUsed('jti', Date.now() + 60_000));
});

test('parseRedisUri: host, port, db, user, password, TLS, prefix and timeout; unknown parameters are refused', (t) => {
  const p = parseRedisUri('rediss://app:s%3Acret@cache.example:6380/2?prefix=shop:&timeout=500');
  t.like(p.options, { host: 'cache.example', port: 6380, db: 2, username: 'app', password: 's:cret' });
  t.truthy(p.options.tls);
  t.is(p.prefix, 'shop:');
  t.is(p.timeoutMs, 500);
  t.is(p.redacted, 'rediss://app:***@cache.example:6380/2?prefix=shop:&timeout=500');
  t.like(parseRedisUri('redis://h'), {
    prefix: 'authkoa:',
    timeoutMs: 2000,
    options: { host: 'h', port: 6379, db: 0, tls: undefined },
  });
  const e = t.throws(() => parseRedisUri('redis://:hunter2@h/0?ttl=5'), { instanceOf: TypeError });
  t.regex(e.message, /unknown parameter "ttl"/);
  t.false(e.message.includes('hunter2'));
  t.throws(() => parseRedisUri('redis://h/zero'), { message: /database must be a number/ });
  t.throws(() => parseRedisUri('redis://h/0?timeout=0'), { message: /timeout/ });
});
