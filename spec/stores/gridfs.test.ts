/**
 * GridFS store against CongoDB, a MongoDB wire-protocol server in pure JS (spec/helpers/mongo.ts).
 * It is a stand-in for mongod, which cannot be installed here: these tests show the store drives the
 * real `mongodb` driver's GridFSBucket over the wire correctly, not MongoDB's exact semantics.
 */
import test from 'ava';
import { MongoClient } from 'mongodb';
import { avatarId, openStore } from '../../lib/avatar/stores/index.js';
import { GridFsStore } from '../../lib/avatar/stores/gridfs.js';
import { parseMongoUri } from '../../lib/util/mongodb-uri.js';
import { startMongo, type MongoPeer } from '../helpers/mongo.js';
import { storeContract } from './contract.js';

let mongo: MongoPeer;
let dbCount = 0;

test.before(async () => {
  mongo = await startMongo();
});
test.after.always(async () => {
  await mongo?.stop();
});

storeContract(test, 'gridfs store', async () => ({
  store: await openStore(mongo.uriWith({ ava_db: `contract${++dbCount}`, ava_coll: 'avatars' })),
}));

test('ava_db and ava_coll are taken off the URI; defaults are test / avatars_fs', (t) => {
  t.deepEqual(parseMongoUri('mongodb://h:1/x?ava_db=d&ava_coll=c&w=1'), {
    uri: 'mongodb://h:1/x?w=1',
    db: 'd',
    bucket: 'c',
  });
  t.deepEqual(parseMongoUri('mongodb+srv://u:p@h/x'), {
    uri: 'mongodb+srv://u:p@h/x',
    db: 'test',
    bucket: 'avatars_fs',
  });
});

test('put keeps a single revision in the bucket, with metadata.hash as the original', async (t) => {
  const store = await openStore(mongo.uriWith({ ava_db: `revs`, ava_coll: 'av' }));
  t.teardown(() => store.close());
  for (let i = 0; i < 3; i++) await store.put('user1', Buffer.from(`v${i}`));
  const client = await MongoClient.connect(mongo.uri);
  t.teardown(() => client.close());
  const files = await client.db('revs').collection('av.files').find({}).toArray();
  t.is(files.length, 1);
  t.is(files[0]!.filename, avatarId('user1'));
  t.regex(String(files[0]!.metadata?.hash), /^[0-9a-f]{40}$/);
  t.is((await store.get(avatarId('user1')))?.data.toString(), 'v2');
});

test('concurrent puts of one avatar leave a readable avatar', async (t) => {
  const store = await openStore(mongo.uriWith({ ava_db: `concurrent` }));
  t.teardown(() => store.close());
  await Promise.all(Array.from({ length: 8 }, (_, i) => store.put('busy', Buffer.from(`v${i}`))));
  t.regex((await store.get(avatarId('busy')))!.data.toString(), /^v\d$/);
  await store.put('busy', Buffer.from('last'));
  t.is((await store.get(avatarId('busy')))?.data.toString(), 'last');
  const ids = [];
  for await (const e of store.list()) ids.push(e.id);
  t.deepEqual(ids, [avatarId('busy')]);
});

test('an unreachable server rejects at open', async (t) => {
  await t.throwsAsync(GridFsStore.open('mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300'));
});
