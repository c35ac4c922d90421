/**
 * Every persistent state-store backend a test can run against here, each opened fresh per test:
 * LMDB files, a real redis-server, a real PostgreSQL server, and MongoDB through the CongoDB stand-in (no mongod can run here;
 * the stand-in proves the protocol, not MongoDB's behaviour). The servers start once per test file.
 */
import type { ExecutionContext, TestFn } from 'ava';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { MongoStateStore } from '../../lib/state/mongodb.js';
import { openPostgresStateStore } from '../../lib/state/postgres.js';
import { openRedisStateStore } from '../../lib/state/redis.js';
import type { StateStore } from '../../lib/state/types.js';
import { startMongo, type MongoPeer } from './mongo.js';
import { startPostgres, type PostgresPeer } from './postgres.js';
import { startRedis, type RedisPeer } from './redis.js';
import { tempDir } from './temp.js';

export type OpenStore = (t: ExecutionContext) => Promise<StateStore>;

/** Starts redis-server, PostgreSQL and the Mongo stand-in for this file's tests; returns a label and an opener per backend. */
export function useStateBackends(test: TestFn): Array<[label: string, open: OpenStore]> {
  let redis: RedisPeer | undefined;
  let postgres: PostgresPeer | undefined;
  let mongo: MongoPeer | undefined;
  test.before(async () => {
    [redis, postgres, mongo] = await Promise.all([startRedis(), startPostgres(), startMongo()]);
  });
  test.after.always(async () => {
    await Promise.all([redis?.stop(), postgres?.destroy(), mongo?.stop()]);
  });
  const unique = () => randomBytes(5).toString('hex');
  return [
    ['lmdb', async (t) => new LmdbStateStore(join(tempDir(t), 'state'))],
    ['redis', async () => openRedisStateStore(`${redis!.uri}/0?prefix=t${unique()}:`)],
    // 30 s to connect and per statement, not the default 5: a machine running the whole suite beside two busy
    // loops took longer than 5 s to hand out a connection, and these tests are about the store's behaviour.
    ['postgres', async () => openPostgresStateStore(`${postgres!.uri}?prefix=t${unique()}_&timeout=30000`)],
    [
      'mongodb (CongoDB stand-in)',
      async () => MongoStateStore.open(`${mongo!.uri}${mongo!.uri.includes('?') ? '&' : '/?'}state_coll=t_${unique()}`),
    ],
  ];
}

/**
 * The memory store on the test's clock first, then every persistent backend (useStateBackends): for the stores built
 * over a StateStore (personal tokens, the identity map), whose behaviour must not depend on the backend.
 */
export function useEveryStateStore(test: TestFn, clock: () => number): Array<[label: string, open: OpenStore]> {
  return [['memory', async () => memoryStateStore({ clock })], ...useStateBackends(test)];
}
