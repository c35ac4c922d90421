import { tableName, type PostgresTarget } from './uri.js';

/**
 * The tables authkoa keeps in PostgreSQL, as statements that can run again without harm (IF NOT
 * EXISTS). The stores create theirs on first open; `authctl db migrate <uri>` creates all of them;
 * docs/scaling.md prints them for teams that manage their schema themselves (`authctl db migrate
 * --print`). Names follow the URI's `schema` and `prefix`.
 */

type Names = Pick<PostgresTarget, 'schema' | 'prefix'>;

/** The state table: login state, limits, revocations, passkeys, second factors, sessions per device. */
export function stateTable(target: Names): string {
  return tableName(target, 'state');
}

/** The broadcast log (lib/state/postgres-broadcast.ts): what one process published, for every process to read. */
export function broadcastTable(target: Names): string {
  return tableName(target, 'broadcast');
}

/** The avatar table: one row per avatar, the bytes beside their hash and modified time. */
export function avatarTable(target: Names): string {
  return tableName(target, 'avatars');
}

/** The accounts table (docs/accounts.md): one row per account, the address unique. */
export function accountTable(target: Names): string {
  return tableName(target, 'accounts');
}

function schemaDdl(target: Names): string[] {
  return target.schema === 'public' ? [] : [`CREATE SCHEMA IF NOT EXISTS "${target.schema}"`];
}

export function stateDdl(target: Names): string[] {
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

export function avatarDdl(target: Names): string[] {
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

export function accountDdl(target: Names): string[] {
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

/** Every table, for `authctl db migrate`. */
export function allDdl(target: Names): string[] {
  return [...new Set([...stateDdl(target), ...avatarDdl(target), ...accountDdl(target)])];
}
