/**
 * The accounts' flows (flow-suite.ts) on the three durable stores an app names by URI: LMDB on real files,
 * a real PostgreSQL server (Debian's, started by the helper), and the MongoDB wire protocol served by
 * CongoDB, the pure-JS stand-in for mongod (spec/helpers/mongo.ts: it proves the store speaks the protocol
 * through the real driver, not that it behaves exactly like MongoDB). Each test has its own LMDB folder,
 * table prefix or collection.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startMongo, type MongoPeer } from '../helpers/mongo.js';
import { startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { flowSuite } from './flow-suite.js';

let postgres: PostgresPeer;
let mongo: MongoPeer;
test.before(async () => {
  [postgres, mongo] = await Promise.all([startPostgres(), startMongo()]);
});
test.after.always(() => Promise.all([postgres?.destroy(), mongo?.stop()]));

const fresh = () => randomBytes(5).toString('hex');

flowSuite(test, 'LMDB', (t) => `lmdb://${join(tempDir(t), 'accounts')}`);
// 30 s to connect: a loaded machine took more than the default 5.
flowSuite(test, 'PostgreSQL', () => `${postgres.uri}?prefix=a${fresh()}_&timeout=30000`);
flowSuite(test, 'MongoDB (the CongoDB stand-in)', () => mongo.uriWith({ accounts_coll: `accounts_${fresh()}` }));
