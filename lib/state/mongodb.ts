import { MongoServerError, ObjectId, type Collection, type MongoClient } from 'mongodb';
import { connectMongo } from '../util/mongodb.js';
import { parseMongoStateUri } from '../util/mongodb-uri.js';
import { sha1 } from '../user.js';
import {
  checkExpiry,
  checkKey,
  markUsedWith,
  rev,
  type StateEntry,
  type StateStore,
  type StateStoreOptions,
} from './types.js';

/** One entry as a document. `ns` and `k` are kept beside the hashed `_id` and checked by every filter. */
interface StateDoc {
  _id: ObjectId;
  ns: string;
  k: string;
  v: unknown;
  exp: number;
  rev: string;
}

const DUPLICATE_KEY = 11000;

/**
 * State in a MongoDB collection, for apps on several hosts. Each operation is one single-document
 * command, which MongoDB applies atomically: create is an insert keyed by `_id` (a duplicate-key error
 * means someone holds the key), replace and take filter on the revision they read.
 *
 * `_id` is an ObjectId made from the first 96 bits of sha1(namespace, key) rather than the key string:
 * fixed-size ids index well, and wire-compatible servers that accept only ObjectIds as `_id` (CongoDB,
 * used by our tests) work too. `ns` and `k` are in every filter, so even a hash collision could only
 * refuse a create, never hand one key's entry to another. Expiry is checked in the filters, not by a
 * TTL index (TTL deletion runs only once a minute and not at all on some compatible servers).
 */
export class MongoStateStore implements StateStore {
  readonly #client: MongoClient;
  readonly #col: Collection<StateDoc>;
  readonly #clock: () => number;
  readonly #sweepEvery: number;
  #creates = 0;
  #closed = false;

  private constructor(client: MongoClient, col: Collection<StateDoc>, opts: StateStoreOptions) {
    this.#client = client;
    this.#col = col;
    this.#clock = opts.clock ?? Date.now;
    this.#sweepEvery = opts.sweepEvery ?? 256;
  }

  /** Connects and pings, so an unreachable server rejects here rather than at the first login. */
  static async open(uri: string, opts: StateStoreOptions = {}): Promise<MongoStateStore> {
    const target = parseMongoStateUri(uri);
    const { client, db } = await connectMongo(target.uri, target.db, 10_000);
    return new MongoStateStore(client, db.collection<StateDoc>(target.collection), opts);
  }

  async create(ns: string, key: string, value: unknown, expiresAtMs: number): Promise<boolean> {
    this.#open('create');
    checkKey('create', ns, key);
    checkExpiry('create', expiresAtMs);
    if (++this.#creates % this.#sweepEvery === 0) void this.sweep().catch(() => {});
    const _id = docId(ns, key);
    const r = rev();
    try {
      await this.#col.insertOne({ _id, ns, k: key, v: value, exp: expiresAtMs, rev: r });
      return true;
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
    }
    // The key exists: take it over only if it has expired. One atomic update, so of two racing
    // creators the first moves exp into the future and the second's filter no longer matches.
    const res = await this.#col.updateOne(
      { _id, ns, k: key, exp: { $lte: this.#clock() } },
      { $set: { v: value, exp: expiresAtMs, rev: r } },
    );
    return res.modifiedCount === 1;
  }

  async get<V = unknown>(ns: string, key: string): Promise<StateEntry<V> | undefined> {
    this.#open('get');
    checkKey('get', ns, key);
    const doc = await this.#col.findOne({ _id: docId(ns, key), ns, k: key });
    return doc ? { value: doc.v as V, expiresAt: doc.exp, rev: doc.rev } : undefined;
  }

  async replace(ns: string, key: string, expected: string, value: unknown, expiresAtMs: number): Promise<boolean> {
    this.#open('replace');
    checkKey('replace', ns, key);
    checkExpiry('replace', expiresAtMs);
    const res = await this.#col.updateOne(
      { _id: docId(ns, key), ns, k: key, rev: expected, exp: { $gt: this.#clock() } },
      { $set: { v: value, exp: expiresAtMs, rev: rev() } },
    );
    return res.modifiedCount === 1;
  }

  async take(ns: string, key: string, expected: string): Promise<boolean> {
    this.#open('take');
    checkKey('take', ns, key);
    const res = await this.#col.deleteOne({ _id: docId(ns, key), ns, k: key, rev: expected });
    return res.deletedCount === 1;
  }

  async remove(ns: string, key: string): Promise<void> {
    this.#open('remove');
    checkKey('remove', ns, key);
    await this.#col.deleteOne({ _id: docId(ns, key), ns, k: key });
  }

  async sweep(): Promise<number> {
    this.#open('sweep');
    return (await this.#col.deleteMany({ exp: { $lte: this.#clock() } })).deletedCount;
  }

  async markUsed(id: string, expiresAtMs: number): Promise<boolean> {
    return markUsedWith(this, id, expiresAtMs, this.#clock());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#client.close();
  }

  #open(call: string): void {
    if (this.#closed) throw new Error(`state store is closed (${call})`);
  }
}

function docId(ns: string, key: string): ObjectId {
  return new ObjectId(sha1(`${ns}\u0000${key}`).slice(0, 24));
}
