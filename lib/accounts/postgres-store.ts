import { openWithTables, type PostgresDb } from '../postgres/db.js';
import type { PostgresOptions } from '../postgres/options.js';
import { rev } from '../state/types.js';
import { accountDdl, accountTable } from './postgres-schema.js';
import {
  accountFields,
  checkAccount,
  pageLimit,
  type Account,
  type AccountStore,
  type AccountUpdate,
  type StoredAccount,
} from './store.js';

/** A row of the accounts table (docs/scaling.md). */
interface Row {
  id: string;
  email: string;
  email_confirmed: boolean;
  name: string | null;
  password_hash: string | null;
  created_at: string;
  updated_at: string;
  rev: string;
}

const COLUMNS = 'id, email, email_confirmed, name, password_hash, created_at, updated_at, rev';
/** PostgreSQL's unique_violation: the address belongs to another account. */
const UNIQUE_VIOLATION = '23505';

/**
 * Accounts in one PostgreSQL table (`<prefix>accounts`), shared by every process and host on the database.
 * Each call is one statement: the primary key and the unique index on `email` make a sign-up's "is the
 * address free, then take it" atomic (`INSERT … ON CONFLICT DO NOTHING`), and update and delete filter on
 * the revision they read. Ids are compared byte by byte (`COLLATE "C"`), the order list() pages in.
 */
export async function openPostgresAccountStore(
  uri: string,
  opts: PostgresOptions = {},
  option = 'accounts.store',
): Promise<AccountStore> {
  const db: PostgresDb = await openWithTables(uri, opts, option, (target) => ({
    names: [accountTable(target)],
    ddl: accountDdl(target),
  }));
  const t = accountTable(db.target);
  const one = async (call: string, where: string, value: string) =>
    accountOf((await db.query<Row>(call, `SELECT ${COLUMNS} FROM ${t} WHERE ${where} = $1`, [value])).rows[0]);

  return {
    async create(account) {
      checkAccount(account, 'create');
      const res = await db.query(
        'create',
        `INSERT INTO ${t} (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
        values(account),
      );
      return res.rowCount === 1;
    },
    get: (id) => one('get', 'id', id),
    findByEmail: (email) => one('findByEmail', 'email', email),
    async update(account, rev) {
      checkAccount(account, 'update');
      try {
        const res = await db.query(
          'update',
          `UPDATE ${t} SET email = $2, email_confirmed = $3, name = $4, password_hash = $5, created_at = $6,
             updated_at = $7, rev = $8 WHERE id = $1 AND rev = $9`,
          [...values(account), rev],
        );
        return (res.rowCount === 1 ? 'updated' : 'conflict') satisfies AccountUpdate;
      } catch (err) {
        if ((err as { cause?: { code?: string } }).cause?.code === UNIQUE_VIOLATION) return 'email_taken';
        throw err;
      }
    },
    async delete(id, rev) {
      const res =
        rev === undefined
          ? await db.query('delete', `DELETE FROM ${t} WHERE id = $1`, [id])
          : await db.query('delete', `DELETE FROM ${t} WHERE id = $1 AND rev = $2`, [id, rev]);
      return res.rowCount === 1;
    },
    async list(page = {}) {
      const limit = pageLimit(page.limit);
      const res = await db.query<Row>(
        'list',
        `SELECT ${COLUMNS} FROM ${t} WHERE $1::text IS NULL OR id COLLATE "C" > $1 ORDER BY id COLLATE "C" LIMIT $2`,
        [page.after ?? null, limit],
      );
      return res.rows.map((r) => accountFields(accountOf(r)!));
    },
    close: () => db.close(),
  };
}

/** The statement's values in COLUMNS order, with a fresh revision. */
function values(a: Account): unknown[] {
  return [
    a.id,
    a.email,
    a.emailConfirmed,
    a.name ?? null,
    a.passwordHash ?? null,
    String(a.createdAt),
    String(a.updatedAt),
    rev(),
  ];
}

function accountOf(r: Row | undefined): StoredAccount | undefined {
  if (!r) return undefined;
  return {
    id: r.id,
    email: r.email,
    emailConfirmed: r.email_confirmed,
    ...(r.name !== null && { name: r.name }),
    ...(r.password_hash !== null && { passwordHash: r.password_hash }),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    rev: r.rev,
  };
}
