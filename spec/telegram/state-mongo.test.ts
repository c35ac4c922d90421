/**
 * The MongoDB state store against CongoDB, a MongoDB wire-protocol server in pure JS, on 127.0.0.1.
 * CongoDB is a STAND-IN for mongod (no genuine mongod can be installed here): these tests show the
 * store speaks the protocol correctly through the real `mongodb` driver, not that it behaves exactly
 * like MongoDB. CongoDB does enforce `_id` uniqueness (which create() relies on) but accepts only
 * ObjectIds as `_id`, hence the store's hashed ObjectId keys; it processes one command at a time, so
 * the races below exercise our filters rather than MongoDB's document-level atomicity.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { openStateStore } from '../../lib/state/index.js';
import { MongoStateStore } from '../../lib/state/mongodb.js';
import { parseMongoStateUri } from '../../lib/util/mongodb-uri.js';
import { startMongo, type MongoPeer } from '../helpers/mongo.js';
import { Client } from '../helpers/http.js';
import { startFakeBotApi } from '../helpers/telegram.js';
import { ALICE, SUCCESS, startTelegram } from './fixtures.js';
import { stateStoreContract } from '../state/state-contract.js';
import { limiterContract } from '../state/limiter-contract.js';

let mongo: MongoPeer;
test.before(async () => {
  mongo = await startMongo();
});
test.after.always(async () => {
  await mongo?.stop();
});

/** A collection of its own for every store, so parallel tests never share entries. */
const uri = () =>
  `${mongo.uri}${mongo.uri.includes('?') ? '&' : '/?'}state_coll=state_${randomBytes(6).toString('hex')}`;

stateStoreContract(test, 'mongodb (CongoDB stand-in)', async (clock) => MongoStateStore.open(uri(), { clock }));

// MongoDB has no hit() of its own: these rows run the compare-and-set limiter.
limiterContract(test, 'mongodb (CongoDB stand-in)', async (clock) => MongoStateStore.open(uri(), { clock }));

test('parseMongoStateUri: state_db, else the URI database, else authkoa; state_coll is taken off the URI', (t) => {
  t.deepEqual(parseMongoStateUri('mongodb://h:27017/admin?state_db=auth&replicaSet=rs&state_coll=pending'), {
    uri: 'mongodb://h:27017/admin?replicaSet=rs',
    db: 'auth',
    collection: 'pending',
  });
  t.deepEqual(parseMongoStateUri('mongodb://h'), { uri: 'mongodb://h', db: 'authkoa', collection: 'state' });
  t.deepEqual(parseMongoStateUri('mongodb://u:p@h1,h2/app?replicaSet=rs'), {
    uri: 'mongodb://u:p@h1,h2/app?replicaSet=rs',
    db: 'app',
    collection: 'state',
  });
  t.is(parseMongoStateUri('mongodb://h/?directConnection=true').db, 'authkoa');
});

test('a store opened by openStateStore from a mongodb:// URI', async (t) => {
  const store = await openStateStore(uri());
  t.teardown(() => store.close());
  t.true(store instanceof MongoStateStore);
  t.true(await store.markUsed('jti', Date.now() + 60_000));
  t.false(await store.markUsed('jti', Date.now() + 60_000));
});

test('two apps on two "hosts" share Telegram login requests through MongoDB', async (t) => {
  const api = await startFakeBotApi();
  t.teardown(() => api.close());
  const stateStore = uri();
  const a = await startTelegram(t, { stateStore }, { api });
  const b = await startTelegram(t, { poll: false, stateStore }, { api });
  const { token } = (await (await new Client(a.app.url).fetch('/auth/telegram/login')).json()) as { token: string };
  t.is((await new Client(b.app.url).fetch(`/auth/telegram/login?token=${token}`)).status, 404);
  api.pressStart(ALICE, token);
  t.is((await api.nextMessage(ALICE.id)).text, SUCCESS);
  const res = await new Client(b.app.url).fetch(`/auth/telegram/login?token=${token}`);
  t.is(res.status, 200);
  t.is(((await res.json()) as { name: string }).name, 'Alice Liddell');
});

test('an unreachable MongoDB, started anyway (startWithStoresDown): /login answers 503 and the password stays out of the logs', async (t) => {
  const { app, logs } = await startTelegram(
    t,
    {
      poll: false,
      bot: 'authkoa_test_bot',
      stateStore: 'mongodb://user:hunter2@127.0.0.1:1/?serverSelectionTimeoutMS=300&connectTimeoutMS=300',
    },
    { app: { startWithStoresDown: true } },
  );
  t.true(
    logs.some((l) =>
      /^\[ERROR\] authKoa: providers\[0\] \(telegram\): stateStore mongodb:\/\/user:\*\*\*@127\.0\.0\.1:1\/.*: cannot connect/.test(
        l,
      ),
    ),
    logs.join('\n'),
  );
  const res = await new Client(app.url).fetch('/auth/telegram/login');
  t.is(res.status, 503);
  t.deepEqual(await res.json(), { error: 'login state is unavailable', code: 'state_store_unavailable' });
  t.true(
    logs.some((l) => /login state is unavailable: .*(ECONNREFUSED|Server selection timed out)/.test(l)),
    logs.join('\n'),
  );
  for (const line of logs) t.false(line.includes('hunter2'), line);
});
