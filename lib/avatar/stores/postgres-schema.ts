import { schemaDdl, type TableNames } from '../../postgres/schema.js';
import { tableName } from '../../postgres/uri.js';

/**
 * The PostgreSQL avatar store's table, kept with the store: created on first open, or by `authctl db migrate
 * <uri>` with the others. Statements that can run again without harm (IF NOT EXISTS).
 */

/** The avatar table: one row per avatar, the bytes beside their hash and modified time. */
export function avatarTable(target: TableNames): string {
  return tableName(target, 'avatars');
}

export function avatarDdl(target: TableNames): string[] {
  return [
    ...schemaDdl(target),
    `CREATE TABLE IF NOT EXISTS ${avatarTable(target)} (
  id text PRIMARY KEY,
  data bytea NOT NULL,
  hash text NOT NULL,
  size integer NOT NULL,
  modified timestamptz NOT NULL
)`,
  ];
}
