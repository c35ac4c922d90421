import { openWithTables, type PostgresDb } from '../../postgres/db.js';
import type { PostgresOptions } from '../../postgres/options.js';
import { sha1 } from '../../user.js';
import { avatarDdl, avatarTable } from './postgres-schema.js';
import {
  avatarId,
  isAvatarId,
  toBuffer,
  type AvatarEntry,
  type AvatarStore,
  type PutOptions,
  type StoredAvatar,
} from './types.js';

/** Rows list() reads per round trip: a big store is listed without holding it all, or a cursor open. */
const PAGE = 500;

/**
 * Avatars in a PostgreSQL table (`<prefix>avatars`, see docs/scaling.md): one row per avatar, the bytes
 * as `bytea` beside their SHA-1 (the ETag), size and modified time. A put is one upsert, so a reader
 * sees the old avatar or the new one, never half of either. Shares the instance's pool with a state
 * store on the same URI.
 */
export class PostgresStore implements AvatarStore {
  readonly #db: PostgresDb;
  readonly #table: string;

  private constructor(db: PostgresDb) {
    this.#db = db;
    this.#table = avatarTable(db.target);
  }

  /** Connects, checks the credentials and creates the table when it is missing. */
  static async open(uri: string, opts: PostgresOptions = {}, option = 'avatarStore'): Promise<PostgresStore> {
    const db = await openWithTables(uri, opts, option, (target) => ({
      names: [avatarTable(target)],
      ddl: avatarDdl(target),
    }));
    return new PostgresStore(db);
  }

  async put(userId: string, image: Buffer, opts: PutOptions = {}): Promise<string> {
    const data = toBuffer(image, 'PostgresStore.put');
    const id = avatarId(userId).toLowerCase();
    await this.#db.query(
      'put',
      `INSERT INTO ${this.#table} (id, data, hash, size, modified) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, hash = EXCLUDED.hash, size = EXCLUDED.size, modified = \
EXCLUDED.modified`,
      [id, data, sha1(data), data.length, opts.modified ?? new Date()],
    );
    return id;
  }

  async get(id: string): Promise<StoredAvatar | undefined> {
    if (!isAvatarId(id)) return undefined;
    const res = await this.#db.query<{ data: Buffer; hash: string }>(
      'get',
      `SELECT data, hash FROM ${this.#table} WHERE id = $1`,
      [id.toLowerCase()],
    );
    const row = res.rows[0];
    return row ? { data: row.data, etag: row.hash } : undefined;
  }

  async remove(id: string): Promise<void> {
    if (!isAvatarId(id)) return;
    await this.#db.query('remove', `DELETE FROM ${this.#table} WHERE id = $1`, [id.toLowerCase()]);
  }

  /** Every avatar in id order, a page at a time (keyset paging: no cursor held between pages). */
  async *list(): AsyncIterable<AvatarEntry> {
    let after = '';
    for (;;) {
      const res = await this.#db.query<{ id: string; size: number; modified: Date }>(
        'list',
        `SELECT id, size, modified FROM ${this.#table} WHERE id > $1 ORDER BY id LIMIT ${PAGE}`,
        [after],
      );
      for (const row of res.rows) yield { id: row.id, size: row.size, modified: row.modified };
      if (res.rows.length < PAGE) return;
      after = res.rows[res.rows.length - 1].id;
    }
  }

  close(): Promise<void> {
    return this.#db.close();
  }

  toString(): string {
    return `postgres store ${this.#db.redacted}`;
  }
}
