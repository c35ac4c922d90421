import pg from 'pg';
import type { ConnectionOptions } from 'node:tls';
import type { PostgresOptions } from './options.js';
import { unshared, type Lease } from '../util/connections.js';
import { parsePostgresUri, tableName, type PostgresTarget } from './uri.js';

/**
 * A PostgreSQL pool as authkoa's stores use it: shared per URI within one instance (ConnectionShare),
 * checked before it is handed out, every statement bounded by the URI's timeout on both sides (the
 * client gives up, the server cancels), and every failure worded with the redacted URI. Imported only
 * by the PostgreSQL backends, so `pg` loads when a `postgres://` URI is configured.
 */

/**
 * Failures no retry will fix: the server refused the login, the database or role is missing, the role
 * lacks a right; a TLS file the URI names cannot be read; the server's certificate does not verify.
 */
const CONFIG_CODES = new Set([
  '28P01',
  '28000',
  '3D000',
  '42501',
  '3F000',
  'ENOENT',
  'EACCES',
  'EISDIR',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
]);
/**
 * node-postgres's own words, without a code, for what no retry fixes: TLS asked for and the server has
 * none; a server that wants a password the URI does not give.
 */
const CLIENT_CONFIG = /does not support SSL|client password must be a string/i;

/** One statement runner: the pool's, or a transaction's client. */
export type Query = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>>;

export class PostgresDb {
  readonly target: PostgresTarget;
  readonly #lease: Lease<pg.Pool>;
  #closed = false;

  readonly #ssl: ConnectionOptions | undefined;

  constructor(target: PostgresTarget, lease: Lease<pg.Pool>, ssl?: ConnectionOptions) {
    this.target = target;
    this.#lease = lease;
    this.#ssl = ssl;
  }

  /**
   * A connection of its own, outside the pool, with the pool's settings: for LISTEN, which holds its
   * connection for as long as it listens. The caller connects it, listens for its errors and ends it.
   */
  client(): pg.Client {
    const t = this.target.timeoutMs;
    return new pg.Client({
      connectionString: this.target.connectionString,
      ssl: this.#ssl,
      connectionTimeoutMillis: t,
      query_timeout: t,
      statement_timeout: t,
      keepAlive: true,
    });
  }

  get redacted(): string {
    return this.target.redacted;
  }

  /** `"schema"."<prefix>name"`. */
  table(name: string): string {
    return tableName(this.target, name);
  }

  /** Runs one statement; a failure names the database (password redacted) and the call. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    call: string,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    this.#open(call);
    try {
      return await this.#lease.value.query<R>(text, values);
    } catch (err) {
      throw this.#failed(call, err);
    }
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it
   * throws. A connection that failed mid-transaction is dropped from the pool, not reused.
   */
  async transaction<T>(call: string, work: (query: Query) => Promise<T>): Promise<T> {
    this.#open(call);
    let client: pg.PoolClient;
    try {
      client = await this.#lease.value.connect();
    } catch (err) {
      throw this.#failed(call, err);
    }
    let broken: Error | undefined;
    // While checked out, a client has no listener of its own: a server that dies mid-transaction would
    // emit an 'error' nobody hears, which ends the process. The failing query rejects all the same.
    const onError = (err: Error) => (broken = err);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work((text, values) => client.query(text, values));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw err instanceof TypeError ? err : this.#failed(call, err);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** Releases this store's use of the pool; the pool ends with its last user. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#lease.release();
  }

  #open(call: string): void {
    if (this.#closed) throw new Error(`store is closed (${call})`);
  }

  #failed(call: string, err: unknown): Error {
    const failed = new Error(`postgres ${this.redacted}: ${call} failed: ${(err as Error)?.message ?? err}`, {
      cause: err,
    });
    // The server is away or did not answer in time (no SQLSTATE, or class 08 / 57P0x): an outage, which
    // callers answer with 503, unlike a statement the server refused.
    const code = (err as { code?: unknown })?.code;
    if (typeof code !== 'string' || /^(08|57P0)/.test(code) || !/^[0-9A-Z]{5}$/.test(code))
      Object.assign(failed, { unavailable: true });
    return failed;
  }
}

/**
 * The pool for `target`, shared through `opts.connections` with the instance's other stores on the same
 * URI. The first user connects and runs `SELECT 1`: a refused password, a missing database or role
 * rejects with a TypeError naming the option and the redacted URI (a start-up error: no retry fixes
 * it); a server that cannot be reached rejects with an Error (the service retries on first use).
 */
export async function openPostgres(target: PostgresTarget, opts: PostgresOptions, option: string): Promise<PostgresDb> {
  const open = () => connectPool(target, opts.ssl, option);
  const close = (pool: pg.Pool) => pool.end();
  // TLS options are objects (keys, certificates): a pool given its own is not shared by URI alone.
  const lease =
    opts.connections && !opts.ssl
      ? await opts.connections.acquire(`postgres ${target.connectionString} ${target.timeoutMs}`, open, close)
      : await unshared(open, close);
  return new PostgresDb(target, lease, opts.ssl);
}

async function connectPool(
  target: PostgresTarget,
  ssl: ConnectionOptions | undefined,
  option: string,
): Promise<pg.Pool> {
  const t = target.timeoutMs;
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    ssl,
    max: 10,
    connectionTimeoutMillis: t,
    query_timeout: t,
    statement_timeout: t,
    // A transaction left open by a process that hung must not hold its row locks for long.
    idle_in_transaction_session_timeout: 2 * t,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    allowExitOnIdle: true,
  });
  // An idle connection the server dropped (a restart) is reported here; without a listener the
  // process would die. The pool replaces it at the next query.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
    return pool;
  } catch (err) {
    await pool.end().catch(() => {});
    throw startError(err, target, option);
  }
}

/** A start-up failure: a TypeError when the server refused (no retry fixes it), else an outage. */
export function startError(err: unknown, target: PostgresTarget, option: string): Error {
  const e = err as { code?: string; message?: string };
  if ((e?.code && CONFIG_CODES.has(e.code)) || CLIENT_CONFIG.test(String(e?.message)))
    return new TypeError(`authKoa: ${option} ${target.redacted}: ${e.message}`);
  return new Error(`postgres ${target.redacted} is unavailable (${e?.message ?? String(err)})`, { cause: err });
}

/** A fixed advisory-lock id for schema changes: two processes opening at once create tables one after the other. */
const DDL_LOCK = 0x6175_7468_6b6f_61n; // "authkoa"

/**
 * Creates the tables `ddl` describes when one is missing, in one transaction under an advisory lock,
 * so two processes opening at once do not race CREATE TABLE. When every table exists nothing is
 * changed, so a role without CREATE rights works against tables made by `authctl db migrate` or by
 * the DDL in docs/scaling.md.
 */
export async function ensureTables(
  db: PostgresDb,
  tables: readonly string[],
  ddl: readonly string[],
  option: string,
): Promise<void> {
  const present = await db.query<{ missing: boolean }>(
    'schema',
    'SELECT bool_or(to_regclass(t) IS NULL) AS missing FROM unnest($1::text[]) AS t',
    [tables],
  );
  if (present.rows[0]?.missing === false) return;
  try {
    await db.transaction('schema', async (query) => {
      await query('SELECT pg_advisory_xact_lock($1)', [DDL_LOCK.toString()]);
      for (const statement of ddl) await query(statement);
    });
  } catch (err) {
    const failed = startError((err as Error).cause ?? err, db.target, option);
    // A role without CREATE rights: say how the tables get made without them.
    if (failed instanceof TypeError)
      failed.message += ' (create the tables with `authctl db migrate <uri>` or the DDL in docs/scaling.md)';
    throw failed;
  }
}

/**
 * The pool for a backend's URI with its tables ready: what each PostgreSQL store opens with. A failure
 * after connecting releases the pool again.
 */
export async function openWithTables(
  uri: string,
  opts: PostgresOptions,
  option: string,
  tables: (target: PostgresTarget) => { names: string[]; ddl: string[] },
): Promise<PostgresDb> {
  const target = parsePostgresUri(uri, option);
  const db = await openPostgres(target, opts, option);
  const { names, ddl } = tables(target);
  try {
    await ensureTables(db, names, ddl, option);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
