import { accountDdl, accountTable } from '../../lib/accounts/postgres-schema.js';
import { avatarDdl, avatarTable } from '../../lib/avatar/stores/postgres-schema.js';
import { stateDdl, stateTable, type TableNames } from '../../lib/postgres/schema.js';

/**
 * Every PostgreSQL table authkoa may use, gathered from their owners for `authctl db migrate`: the state
 * store's (lib/postgres/), the avatar store's and the accounts'. Each store creates its own on first open.
 */

/** The tables' names, for the advisory-locked creation (ensureTables). */
export function allTables(target: TableNames): string[] {
  return [stateTable(target), avatarTable(target), accountTable(target)];
}

/** Every table's DDL, each statement once (the schema's is shared). */
export function allDdl(target: TableNames): string[] {
  return [...new Set([...stateDdl(target), ...avatarDdl(target), ...accountDdl(target)])];
}
