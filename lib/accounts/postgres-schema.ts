import { schemaDdl, type TableNames } from '../postgres/schema.js';
import { tableName } from '../postgres/uri.js';

/**
 * The accounts' PostgreSQL table (docs/accounts.md), kept with the feature: the store creates it on first open,
 * `authctl db migrate <uri>` with the others. Statements that can run again without harm (IF NOT EXISTS).
 */

/** The accounts table: one row per account, the address unique. */
export function accountTable(target: TableNames): string {
  return tableName(target, 'accounts');
}

export function accountDdl(target: TableNames): string[] {
  const t = accountTable(target);
  return [
    ...schemaDdl(target),
    `CREATE TABLE IF NOT EXISTS ${t} (
  id text PRIMARY KEY,
  email text NOT NULL,
  email_confirmed boolean NOT NULL,
  name text,
  password_hash text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  rev text NOT NULL
)`,
    `CREATE UNIQUE INDEX IF NOT EXISTS "${target.prefix}accounts_email" ON ${t} (email)`,
  ];
}
