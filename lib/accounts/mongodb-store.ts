import { MongoServerError, ObjectId, type Collection, type MongoClient } from 'mongodb';
import { rev } from '../state/types.js';
import { sha1 } from '../user.js';
import { connectMongo } from '../util/mongodb.js';
import { parseMongoAccountsUri } from './mongodb-uri.js';
import {
  accountFields,
  checkAccount,
  pageLimit,
  type Account,
  type AccountStore,
  type AccountUpdate,
  type StoredAccount,
} from './store.js';

/** An account's document, or an address's claim on one (which account holds the address, since when). */
type Doc =
  | { _id: ObjectId; kind: 'account'; a: Account; id: string; rev: string }
  | { _id: ObjectId; kind: 'email'; email: string; id: string; at: number };

const DUPLICATE_KEY = 11000;
/** A claim older than this whose account never appeared was left by a sign-up that died half-way. */
const STALE_CLAIM_MS = 60_000;

/**
 * Accounts in a MongoDB collection: a document per account, keyed by its id, and a document per address,
 * keyed by the address, naming the account that holds it. Uniqueness rests on `_id` alone (a duplicate
 * key refuses the second insert), not on a unique secondary index, which some wire-compatible servers
 * accept without enforcing. A sign-up claims the address first and then writes the account; an update
 * filters on the revision it read. `_id`s are ObjectIds made from a SHA-1, as in the state store.
 */
export async function openMongoAccountStore(uri: string, clock: () => number = Date.now): Promise<AccountStore> {
  const target = parseMongoAccountsUri(uri);
  const { client, db } = await connectMongo(target.uri, target.db, 10_000);
  return mongoAccounts(client, db.collection<Doc>(target.collection), clock);
}

function mongoAccounts(client: MongoClient, col: Collection<Doc>, clock: () => number): AccountStore {
  let closed = false;
  // The driver reconnects for any operation after close(): a closed store says so instead.
  const open = (method: string) => {
    if (closed) throw new Error(`account store: ${method}() after close()`);
  };
  const read = async (id: string): Promise<StoredAccount | undefined> => {
    open('get');
    const doc = await col.findOne({ _id: accountId(id), kind: 'account', id });
    return doc?.kind === 'account' ? { ...doc.a, rev: doc.rev } : undefined;
  };
  const { claim, release } = addressClaims(col, clock, read);

  return {
    async create(account) {
      open('create');
      checkAccount(account, 'create');
      if (!(await claim(account.email, account.id))) return false;
      const doc = {
        _id: accountId(account.id),
        kind: 'account' as const,
        a: accountFields(account),
        id: account.id,
        rev: rev(),
      };
      if (await inserted(col, doc)) return true;
      await release(account.email, account.id);
      return false;
    },
    get: read,
    async findByEmail(email) {
      open('findByEmail');
      const claimDoc = await col.findOne({ _id: emailId(email), kind: 'email', email });
      const found = claimDoc?.kind === 'email' ? await read(claimDoc.id) : undefined;
      return found?.email === email ? found : undefined;
    },
    async update(account, expected): Promise<AccountUpdate> {
      checkAccount(account, 'update');
      const cur = await read(account.id);
      if (!cur || cur.rev !== expected) return 'conflict';
      const moving = cur.email !== account.email;
      if (moving && !(await claim(account.email, account.id))) return 'email_taken';
      const res = await col.updateOne(
        { _id: accountId(account.id), kind: 'account', id: account.id, rev: expected },
        { $set: { a: accountFields(account), rev: rev() } },
      );
      if (res.modifiedCount !== 1) {
        if (moving) await release(account.email, account.id);
        return 'conflict';
      }
      if (moving) await release(cur.email, account.id);
      return 'updated';
    },
    async delete(id, expected) {
      const cur = await read(id);
      if (!cur || (expected !== undefined && cur.rev !== expected)) return false;
      const res = await col.deleteOne({ _id: accountId(id), kind: 'account', id, rev: cur.rev });
      if (res.deletedCount !== 1) return false;
      await release(cur.email, id);
      return true;
    },
    async list(page = {}) {
      open('list');
      const limit = pageLimit(page.limit);
      const filter =
        page.after === undefined ? { kind: 'account' as const } : { kind: 'account' as const, id: { $gt: page.after } };
      const docs = await col.find(filter).sort({ id: 1 }).limit(limit).toArray();
      return docs.flatMap((d) => (d.kind === 'account' ? [d.a] : []));
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

/**
 * The address documents: `claim` takes `email` for the account `id` (true when taken now, or already
 * that account's), `release` lets it go (only when `id` holds it).
 */
function addressClaims(col: Collection<Doc>, clock: () => number, read: (id: string) => Promise<unknown>) {
  const claim = async (email: string, id: string): Promise<boolean> => {
    const _id = emailId(email);
    if (await inserted(col, { _id, kind: 'email', email, id, at: clock() })) return true;
    const cur = await col.findOne({ _id, kind: 'email', email });
    if (cur?.kind !== 'email') return false;
    if (cur.id === id) return true;
    // Another account's claim: taken, unless that account does not exist and never will (a dead sign-up).
    if (clock() - cur.at < STALE_CLAIM_MS || (await read(cur.id))) return false;
    // Taken over only as it was read: of two sign-ups reviving one dead claim, one wins.
    const taken = await col.updateOne({ _id, kind: 'email', id: cur.id, at: cur.at }, { $set: { id, at: clock() } });
    return taken.modifiedCount === 1;
  };
  const release = (email: string, id: string) => col.deleteOne({ _id: emailId(email), kind: 'email', id });
  return { claim, release };
}

async function inserted(col: Collection<Doc>, doc: Doc): Promise<boolean> {
  try {
    await col.insertOne(doc);
    return true;
  } catch (err) {
    if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
    throw err;
  }
}

function accountId(id: string): ObjectId {
  return new ObjectId(sha1(`account\u0000${id}`).slice(0, 24));
}

function emailId(email: string): ObjectId {
  return new ObjectId(sha1(`email\u0000${email}`).slice(0, 24));
}
