import { createHash } from 'node:crypto';
import { openWithTables, type PostgresDb, type Query } from '../postgres/db.js';
import type { PostgresOptions } from '../postgres/options.js';
import { broadcastTable, stateDdl, stateTable } from '../postgres/schema.js';
import type { Broadcast } from './broadcast.js';
import { postgresBroadcast } from './postgres-broadcast.js';
import { countHits, type Window } from './limiter.js';
import {
  checkExpiry,
  checkKey,
  checkLimitKeys,
  encodeValue,
  markUsedWith,
  rev,
  type LimitKey,
  type StateEntry,
  type StateStore,
  type StateStoreOptions,
} from './types.js';

/** Options of a PostgreSQL state store beyond the URI. */
export interface PostgresStateStoreOptions extends StateStoreOptions, PostgresOptions {}

/**
 * State in one PostgreSQL table (`<prefix>state`, see docs/scaling.md), shared by every process and
 * host on the database. Each operation is one statement, atomic by PostgreSQL's row locking: create is
 * `INSERT … ON CONFLICT DO UPDATE … WHERE expired`, replace and take filter on the revision they read,
 * so of racing callers exactly one wins. hit() counts several keys at once in a transaction under
 * advisory locks, taken in one order so two hits never deadlock. Expiry is the caller's clock, stored
 * with the row and checked in the statements; sweep() (and every `sweepEvery` creates) deletes the
 * rows it has passed.
 *
 * While the server is away each call fails at once (the service answers 503) and the pool reconnects
 * at the next use, so the app recovers by itself when PostgreSQL is back.
 */
export class PostgresStateStore implements StateStore {
  readonly #db: PostgresDb;
  readonly #table: string;
  readonly #clock: () => number;
  readonly #sweepEvery: number;
  #creates = 0;

  /** What one process publishes, every process following the topic receives (postgres-broadcast.ts). */
  readonly broadcast: Broadcast;

  private constructor(db: PostgresDb, opts: StateStoreOptions) {
    this.#db = db;
    this.#table = stateTable(db.target);
    this.#clock = opts.clock ?? Date.now;
    this.#sweepEvery = opts.sweepEvery ?? 256;
    const { schema, prefix } = db.target;
    const channel = `${schema}.${prefix}broadcast`;
    // A channel name is an identifier: 63 bytes at most. A longer one is named by its hash instead.
    const short =
      Buffer.byteLength(channel) <= 63
        ? channel
        : `authkoa_${createHash('sha256').update(channel).digest('hex').slice(0, 40)}`;
    this.broadcast = postgresBroadcast(db, broadcastTable(db.target), short);
  }

  /** The URI with any password replaced by `***`: safe to log. */
  get uri(): string {
    return this.#db.redacted;
  }

  /** Connects, checks the credentials and creates the table when it is missing (see ensureTables). */
  static async open(
    uri: string,
    opts: PostgresStateStoreOptions = {},
    option = 'stateStore',
  ): Promise<PostgresStateStore> {
    const db = await openWithTables(uri, opts, option, (target) => ({
      names: [stateTable(target), broadcastTable(target)],
      ddl: stateDdl(target),
    }));
    return new PostgresStateStore(db, opts);
  }

  async create(ns: string, key: string, value: unknown, expiresAtMs: number): Promise<boolean> {
    checkKey('create', ns, key);
    checkExpiry('create', expiresAtMs);
    const json = encodeValue(value);
    if (++this.#creates % this.#sweepEvery === 0) void this.sweep().catch(() => {});
    // A live row blocks the insert; an expired one is taken over. The WHERE is checked on the row as
    // it is once locked, so of two racing creators the second sees the first's live row.
    const res = await this.#db.query(
      'create',
      `INSERT INTO ${this.#table} AS t (ns, key, value, expires_at, rev) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at, rev = EXCLUDED.rev
       WHERE t.expires_at <= $6`,
      [ns, dbKey(key), json, ms(expiresAtMs), rev(), ms(this.#clock())],
    );
    return res.rowCount === 1;
  }

  async get<V = unknown>(ns: string, key: string): Promise<StateEntry<V> | undefined> {
    checkKey('get', ns, key);
    const res = await this.#db.query<{ value: V; exp: number; rev: string }>(
      'get',
      `SELECT value, expires_at::float8 AS exp, rev FROM ${this.#table} WHERE ns = $1 AND key = $2`,
      [ns, dbKey(key)],
    );
    const row = res.rows[0];
    return row ? { value: row.value, expiresAt: row.exp, rev: row.rev } : undefined;
  }

  async replace(ns: string, key: string, expected: string, value: unknown, expiresAtMs: number): Promise<boolean> {
    checkKey('replace', ns, key);
    checkExpiry('replace', expiresAtMs);
    const res = await this.#db.query(
      'replace',
      `UPDATE ${this.#table} SET value = $3, expires_at = $4, rev = $5 WHERE ns = $1 AND key = $2 AND rev = $6 ` +
        `AND expires_at > $7`,
      [ns, dbKey(key), encodeValue(value), ms(expiresAtMs), rev(), String(expected), ms(this.#clock())],
    );
    return res.rowCount === 1;
  }

  async take(ns: string, key: string, expected: string): Promise<boolean> {
    checkKey('take', ns, key);
    const res = await this.#db.query('take', `DELETE FROM ${this.#table} WHERE ns = $1 AND key = $2 AND rev = $3`, [
      ns,
      dbKey(key),
      String(expected),
    ]);
    return res.rowCount === 1;
  }

  async remove(ns: string, key: string): Promise<void> {
    checkKey('remove', ns, key);
    await this.#db.query('remove', `DELETE FROM ${this.#table} WHERE ns = $1 AND key = $2`, [ns, dbKey(key)]);
  }

  async sweep(): Promise<number> {
    const res = await this.#db.query('sweep', `DELETE FROM ${this.#table} WHERE expires_at <= $1`, [ms(this.#clock())]);
    return res.rowCount ?? 0;
  }

  async hit(ns: string, keys: readonly LimitKey[], windowMs: number): Promise<number | undefined> {
    checkLimitKeys(ns, keys, windowMs);
    const now = ms(this.#clock());
    const names = keys.map((k) => dbKey(k.key));
    return this.#db.transaction('hit', async (query) => {
      await lockKeys(query, this.#table, ns, names);
      const windows = await this.#windows(query, ns, names);
      const writes = new Map<string, Window>();
      const wait = countHits(
        keys.map((k) => ({ key: dbKey(k.key), limit: k.limit })),
        windowMs,
        now,
        (k) => writes.get(k) ?? windows.get(k),
        (k, w) => writes.set(k, w),
      );
      if (writes.size > 0) await this.#writeWindows(query, ns, writes);
      return wait;
    });
  }

  async markUsed(id: string, expiresAtMs: number): Promise<boolean> {
    return markUsedWith(this, id, expiresAtMs, this.#clock());
  }

  close(): Promise<void> {
    return this.#db.close();
  }

  /** The counters of `keys` as rows hold them: the count as the value, the window's end as the expiry. */
  async #windows(query: Query, ns: string, keys: string[]): Promise<Map<string, Window>> {
    const res = await query<{ key: string; value: unknown; exp: number }>(
      `SELECT key, value, expires_at::float8 AS exp FROM ${this.#table} WHERE ns = $1 AND key = ANY($2::text[])`,
      [ns, keys],
    );
    return new Map(res.rows.map((r) => [r.key, { count: typeof r.value === 'number' ? r.value : 0, endsAt: r.exp }]));
  }

  async #writeWindows(query: Query, ns: string, writes: Map<string, Window>): Promise<void> {
    const rows = [...writes];
    await query(
      `INSERT INTO ${this.#table} (ns, key, value, expires_at, rev)
       SELECT $1, k, to_json(c), e, r FROM unnest($2::text[], $3::int[], $4::bigint[], $5::text[]) AS u(k, c, e, r)
       ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at, rev = \
EXCLUDED.rev`,
      [ns, rows.map(([k]) => k), rows.map(([, w]) => w.count), rows.map(([, w]) => w.endsAt), rows.map(() => rev())],
    );
  }
}

/**
 * Takes a transaction-scoped advisory lock per counter, lowest id first, in one statement (its
 * select list is evaluated in order): a counter with no row yet has nothing a row lock could hold.
 */
async function lockKeys(query: Query, table: string, ns: string, keys: string[]): Promise<void> {
  const ids = [...new Set(keys.map((k) => lockId(table, ns, k)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  await query(`SELECT ${ids.map((_, i) => `pg_advisory_xact_lock($${i + 1})`).join(', ')}`, ids.map(String));
}

/** A 64-bit advisory-lock id for one row: the first 8 bytes of its SHA-256, signed as PostgreSQL's bigint. */
function lockId(table: string, ns: string, key: string): bigint {
  return createHash('sha256').update(`${table}\u0000${ns}\u0000${key}`).digest().readBigInt64BE(0);
}

/**
 * A key as the `text` column holds it: PostgreSQL text cannot hold NUL, and a key can (a user name as
 * typed), so `\` and NUL are escaped; the mapping is one-to-one, so no two keys share a row.
 */
function dbKey(key: string): string {
  return /[\\\u0000]/.test(key) ? key.replace(/[\\\u0000]/g, (c) => (c === '\\' ? '\\\\' : '\\0')) : key;
}

/** A time for the `bigint` column: whole ms (a clock or an expiry may carry a fraction; the column cannot). */
function ms(t: number): number {
  return Math.round(t);
}

/** The `postgres` and `postgresql` schemes' opener. */
export function openPostgresStateStore(
  uri: string,
  opts: PostgresStateStoreOptions = {},
  option = 'stateStore',
): Promise<PostgresStateStore> {
  return PostgresStateStore.open(uri, opts, option);
}
