import type { Database, RootDatabase } from 'lmdb';
import { openLmdbEnv } from '../util/lmdb-env.js';
import { promised } from '../util/promised.js';
import type { Broadcast } from './broadcast.js';
import { countHits } from './limiter.js';
import { lmdbBroadcast, type BroadcastDb, type LmdbBroadcast } from './lmdb-broadcast.js';
import {
  checkExpiry,
  checkKey,
  checkLimitKeys,
  markUsedWith,
  rev,
  type LimitKey,
  type StateEntry,
  type StateStore,
  type StateStoreOptions,
} from './types.js';

/** What one key holds on disk (msgpack). */
interface Stored {
  v: unknown;
  exp: number;
  rev: string;
}

/**
 * State in an LMDB environment, for several processes on one host (the app workers and an
 * `authctl bot` poller). Every write runs in an LMDB write transaction, and LMDB lets one writer in at
 * a time across all processes that opened the environment, so each read-check-write below is atomic
 * host-wide. Give it its own path: sharing the avatar store's environment would tie their lifetimes.
 */
export class LmdbStateStore implements StateStore {
  readonly path: string;
  readonly #root: RootDatabase;
  readonly #db: Database<Stored, string>;
  readonly #clock: () => number;
  readonly #sweepEvery: number;
  readonly #broadcast: LmdbBroadcast;
  /** Creates left until the next sweep (see sweep()). */
  #untilSweep: number;
  #closed = false;

  constructor(path: string, opts: StateStoreOptions = {}) {
    if (typeof path !== 'string' || path === '') throw new TypeError('LmdbStateStore requires a path');
    this.path = path;
    this.#clock = opts.clock ?? Date.now;
    this.#sweepEvery = opts.sweepEvery ?? 256;
    this.#untilSweep = this.#sweepEvery;
    this.#root = openLmdbEnv(path, 3);
    this.#db = this.#root.openDB<Stored, string>({ name: 'state' });
    const log: BroadcastDb = this.#root.openDB({ name: 'broadcast' });
    this.#broadcast = lmdbBroadcast(this.#root, log, this.#clock);
  }

  /** What one process publishes, every process of the host following the topic receives (lmdb-broadcast.ts). */
  get broadcast(): Broadcast {
    return this.#broadcast;
  }

  async create(ns: string, key: string, value: unknown, expiresAtMs: number): Promise<boolean> {
    this.#open('create');
    checkKey('create', ns, key);
    checkExpiry('create', expiresAtMs);
    const k = dbKey(ns, key);
    const stored: Stored = { v: value, exp: expiresAtMs, rev: rev() };
    if (--this.#untilSweep <= 0) void this.sweep().catch(() => {});
    return this.#root.transaction(() => {
      const cur = this.#db.get(k);
      if (cur && cur.exp > this.#clock()) return false;
      void this.#db.put(k, stored); // part of the transaction, which settles the write
      return true;
    });
  }

  get<V = unknown>(ns: string, key: string): Promise<StateEntry<V> | undefined> {
    return promised(() => {
      this.#open('get');
      checkKey('get', ns, key);
      const cur = this.#db.get(dbKey(ns, key));
      return cur && { value: cur.v as V, expiresAt: cur.exp, rev: cur.rev };
    });
  }

  async replace(ns: string, key: string, expected: string, value: unknown, expiresAtMs: number): Promise<boolean> {
    this.#open('replace');
    checkKey('replace', ns, key);
    checkExpiry('replace', expiresAtMs);
    const k = dbKey(ns, key);
    const stored: Stored = { v: value, exp: expiresAtMs, rev: rev() };
    return this.#root.transaction(() => {
      const cur = this.#db.get(k);
      if (!cur || cur.rev !== expected || cur.exp <= this.#clock()) return false;
      void this.#db.put(k, stored); // part of the transaction, which settles the write
      return true;
    });
  }

  async take(ns: string, key: string, expected: string): Promise<boolean> {
    this.#open('take');
    checkKey('take', ns, key);
    const k = dbKey(ns, key);
    return this.#root.transaction(() => {
      const cur = this.#db.get(k);
      if (!cur || cur.rev !== expected) return false;
      void this.#db.remove(k); // part of the transaction, which settles the write
      return true;
    });
  }

  async remove(ns: string, key: string): Promise<void> {
    this.#open('remove');
    checkKey('remove', ns, key);
    await this.#db.remove(dbKey(ns, key));
  }

  async sweep(): Promise<number> {
    this.#open('sweep');
    return this.#root.transaction(() => {
      const now = this.#clock();
      // Collected first, removed after: the cursor is not walked while the tree changes under it.
      // Inside the write transaction, so a key another process just rewrote is judged by its new value.
      const expired: string[] = [];
      let entries = 0;
      for (const { key, value } of this.#db.getRange()) {
        entries++;
        if (value.exp <= now) expired.push(key);
      }
      for (const key of expired) void this.#db.remove(key);
      // The next one after sweepEvery creates, or a quarter of the entries when that is more: a sweep reads
      // every entry in a write transaction, which every process waits behind; so a create pays for about four.
      this.#untilSweep = Math.max(this.#sweepEvery, entries >> 2);
      return expired.length;
    });
  }

  /** Every key checked and counted in one write transaction: atomic across the host's processes. */
  async hit(ns: string, keys: readonly LimitKey[], windowMs: number): Promise<number | undefined> {
    this.#open('hit');
    checkLimitKeys(ns, keys, windowMs);
    return this.#root.transaction(() =>
      countHits(
        keys,
        windowMs,
        this.#clock(),
        (key) => {
          const cur = this.#db.get(dbKey(ns, key));
          return cur && { count: cur.v as number, endsAt: cur.exp };
        },
        (key, w) => void this.#db.put(dbKey(ns, key), { v: w.count, exp: w.endsAt, rev: rev() }),
      ),
    );
  }

  async markUsed(id: string, expiresAtMs: number): Promise<boolean> {
    return markUsedWith(this, id, expiresAtMs, this.#clock());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#broadcast.close();
    await this.#root.close();
  }

  #open(call: string): void {
    if (this.#closed) throw new Error(`state store is closed (${call})`);
  }
}

/** One flat key space; NUL cannot occur in a namespace, so `ns` + key never collide. */
function dbKey(ns: string, key: string): string {
  return `${ns}\u0000${key}`;
}
