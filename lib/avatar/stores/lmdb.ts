import type { Database, RootDatabase } from 'lmdb';
import { openLmdbEnv } from '../../util/lmdb-env.js';
import { promised } from '../../util/promised.js';
import { sha1 } from '../../user.js';
import {
  avatarId,
  isAvatarId,
  toBuffer,
  type AvatarEntry,
  type AvatarStore,
  type PutOptions,
  type StoredAvatar,
} from './types.js';

/** What the `metas` database keeps per avatar: listing and ETags without reading the bytes. */
interface Meta {
  hash: string;
  size: number;
  modified: number;
}

/**
 * Avatars in an LMDB environment (the embedded default; `bolt://` URIs land here too). Two named
 * databases as the original's Bolt store: `avatars` (id → bytes) and `metas` (id → sha1 of the bytes,
 * plus size and time for listing). LMDB's own locking lets several processes share one environment.
 */
export class LmdbStore implements AvatarStore {
  readonly path: string;
  readonly #root: RootDatabase;
  readonly #avatars: Database<Buffer, string>;
  readonly #metas: Database<Meta, string>;
  #closed = false;

  constructor(path: string) {
    this.path = path;
    this.#root = openLmdbEnv(path, 4);
    this.#avatars = this.#root.openDB<Buffer, string>({ name: 'avatars', encoding: 'binary' });
    this.#metas = this.#root.openDB<Meta, string>({ name: 'metas' });
  }

  async put(userId: string, image: Buffer, opts: PutOptions = {}): Promise<string> {
    const data = toBuffer(image, 'LmdbStore.put');
    const id = avatarId(userId).toLowerCase();
    const meta: Meta = { hash: sha1(data), size: data.length, modified: opts.modified?.getTime() ?? Date.now() };
    // One write transaction: bytes and meta are never seen apart.
    // The writes are part of the transaction: its promise settles them.
    await this.#root.transaction(() => {
      void this.#avatars.put(id, data);
      void this.#metas.put(id, meta);
    });
    return id;
  }

  get(id: string): Promise<StoredAvatar | undefined> {
    return promised(() => {
      if (!isAvatarId(id)) return undefined;
      const key = id.toLowerCase();
      const data = this.#avatars.getBinary(key);
      if (data === undefined) return undefined;
      const meta = this.#metas.get(key);
      return { data: Buffer.from(data), etag: meta?.hash ?? sha1(key) };
    });
  }

  async remove(id: string): Promise<void> {
    if (!isAvatarId(id)) return;
    const key = id.toLowerCase();
    await this.#root.transaction(() => {
      void this.#avatars.remove(key);
      void this.#metas.remove(key);
    });
  }

  async *list(): AsyncIterable<AvatarEntry> {
    for (const { key, value } of this.#metas.getRange()) {
      // The reads are synchronous. An async generator awaits what it yields anyway, so yielding a
      // promise of the entry changes nothing, and says the generator is async on purpose.
      yield Promise.resolve({ id: key, size: value.size, modified: new Date(value.modified) });
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#root.close();
  }

  toString(): string {
    return `lmdb store at ${this.path}`;
  }
}
