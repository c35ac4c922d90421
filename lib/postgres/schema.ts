import { tableName, type PostgresTarget } from './uri.js';

/**
 * The state store's tables in PostgreSQL, as statements that can run again without harm (IF NOT EXISTS),
 * and the schema every table lives in. The other tables are their owners' (the accounts' in
 * lib/accounts/postgres-schema.ts, the avatars' in lib/avatar/stores/postgres-schema.ts). The stores create
 * theirs on first open; `authctl db migrate <uri>` creates all of them; docs/scaling.md prints them for teams
 * that manage their schema themselves (`authctl db migrate --print`). Names follow the URI's `schema` and
 * `prefix`.
 */

/** What a table's name is made of: the URI's `schema` and `prefix`. */
export type TableNames = Pick<PostgresTarget, 'schema' | 'prefix'>;

/** The state table: login state, limits, revocations, passkeys, second factors, sessions per device. */
export function stateTable(target: TableNames): string {
  return tableName(target, 'state');
}

/** The broadcast log (lib/state/postgres-broadcast.ts): what one process published, for every process to read. */
export function broadcastTable(target: TableNames): string {
  return tableName(target, 'broadcast');
}

/** The schema, created first when it is not `public`: every table's DDL starts with it. */
export function schemaDdl(target: TableNames): string[] {
  return target.schema === 'public' ? [] : [`CREATE SCHEMA IF NOT EXISTS "${target.schema}"`];
}

export function stateDdl(target: TableNames): string[] {
  const t = stateTable(target);
  return [
    ...schemaDdl(target),
    `CREATE TABLE IF NOT EXISTS ${t} (
  ns text NOT NULL,
  key text NOT NULL,
  value json NOT NULL,
  expires_at bigint NOT NULL,
  rev text NOT NULL,
  PRIMARY KEY (ns, key)
)`,
    `CREATE INDEX IF NOT EXISTS "${target.prefix}state_expires_at" ON ${t} (expires_at)`,
    `CREATE TABLE IF NOT EXISTS ${broadcastTable(target)} (
  id bigserial PRIMARY KEY,
  topic text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  body json NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS "${target.prefix}broadcast_topic_at" ON ${broadcastTable(target)} (topic, at)`,
  ];
}
