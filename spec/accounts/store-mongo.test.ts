/**
 * The MongoDB account store against CongoDB, a wire-protocol stand-in (no mongod can run here): it proves
 * the store speaks the protocol through the real `mongodb` driver and keeps the AccountStore contract with
 * uniqueness resting on `_id` alone, not that it behaves exactly like MongoDB.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { openMongoAccountStore } from '../../lib/accounts/mongodb-store.js';
import { manualClock } from '../helpers/http.js';
import { startMongo, type MongoPeer } from '../helpers/mongo.js';
import { account, accountStoreContract } from './store-contract.js';

let server: MongoPeer;
test.before(async () => {
  server = await startMongo();
});
test.after.always(() => server?.stop());

/** A collection of its own per store, so tests running at once never share documents. */
const fresh = () => server.uriWith({ accounts_coll: `accounts_${randomBytes(5).toString('hex')}` });

accountStoreContract(test, 'MongoDB (CongoDB stand-in)', () => openMongoAccountStore(fresh()));

test('MongoDB (CongoDB stand-in): a sign-up that died after claiming its address frees it after a minute, not before', async (t) => {
  const clock = manualClock(Date.now());
  const uri = fresh();
  const store = await openMongoAccountStore(uri, clock);
  t.teardown(() => store.close());
  // The dead sign-up: its claim is written, its account never is (a second store on the same
  // collection deletes the account right after, leaving the claim as a crash would).
  const dead = account();
  await store.create(dead);
  const { MongoClient } = await import('mongodb');
  const raw = new MongoClient(server.uri);
  t.teardown(() => raw.close());
  const coll = new URL(uri.replace('mongodb://', 'http://')).searchParams.get('accounts_coll')!;
  const removed = await raw.db('authkoa').collection(coll).deleteOne({ kind: 'account', id: dead.id });
  t.is(removed.deletedCount, 1);
  t.is(await store.findByEmail(dead.email), undefined, 'no account, so none is found');
  t.false(await store.create(account({ email: dead.email })), 'within the minute: maybe a sign-up under way');
  clock.advance(61_000);
  t.true(await store.create(account({ email: dead.email })), 'after it: the claim is taken over');
});
