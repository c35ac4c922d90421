import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, stat, unlink, utimes } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { sha1 } from '../../user.js';
import { partition } from './crc64.js';
import {
  avatarHash,
  avatarId,
  isAvatarId,
  toBuffer,
  type AvatarEntry,
  type AvatarStore,
  type PutOptions,
  type StoredAvatar,
} from './types.js';

/** Options of the file store; `beforeRename` exists so tests can crash between write and rename. */
export interface FileStoreOptions {
  /** Called after the temp file is written and synced, before it is renamed into place. */
  beforeRename?: (tempPath: string) => void | Promise<void>;
  /**
   * fsync each avatar before the rename (default false). Temp+rename already keeps a crashed process
   * from leaving half an avatar; fsync adds power-loss durability at ~1 ms a write, which an avatar,
   * refetched at the next login anyway, rarely needs.
   */
  sync?: boolean;
}

const PARTITION_DIR = /^\d\d$/;
const FILE_NAME = /^[0-9a-f]{40}\.image$/;

/**
 * Avatars as files `<root>/<NN>/<sha1>.image`, NN = CRC-64/XZ(sha1) % 100 (the original's layout, so
 * its folders work unchanged). Writes go to a temp file in the same folder, are fsynced and renamed,
 * so a reader or a crashed process never sees half an avatar. Ids are validated before any path is built.
 */
export class FileStore implements AvatarStore {
  readonly root: string;
  readonly #opts: FileStoreOptions;
  /** Partition folders known to exist: saves a mkdir per write (100 folders at most). */
  readonly #dirs = new Set<string>();

  constructor(root: string, opts: FileStoreOptions = {}) {
    this.root = resolve(root);
    this.#opts = opts;
  }

  /** Full path of a valid avatar id (lowercased: the layout is lowercase hex). */
  location(id: string): string {
    const lower = id.toLowerCase();
    return join(this.root, partition(avatarHash(lower)), lower);
  }

  async put(userId: string, image: Buffer, opts: PutOptions = {}): Promise<string> {
    const data = toBuffer(image, 'FileStore.put');
    const id = avatarId(userId).toLowerCase();
    const final = this.location(id);
    const dir = join(final, '..');
    if (!this.#dirs.has(dir)) {
      await mkdir(dir, { recursive: true, mode: 0o750 });
      this.#dirs.add(dir);
    }
    // Dot-prefixed and not ending in .image: list() and get() never see a temp file.
    const temp = join(dir, `.${avatarHash(id)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const fh = await open(temp, 'wx', 0o640).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await mkdir(dir, { recursive: true, mode: 0o750 }); // the folder was removed under us (a prune)
        return open(temp, 'wx', 0o640);
      });
      try {
        await fh.writeFile(data);
        if (this.#opts.sync) await fh.datasync();
      } finally {
        await fh.close();
      }
      // A migration keeps the source's time; set before the rename, so the file appears with it.
      if (opts.modified) await utimes(temp, opts.modified, opts.modified);
      await this.#opts.beforeRename?.(temp);
      await rename(temp, final);
    } catch (err) {
      await unlink(temp).catch(() => {});
      throw err;
    }
    return id;
  }

  async get(id: string): Promise<StoredAvatar | undefined> {
    if (!isAvatarId(id)) return undefined;
    let fh;
    try {
      fh = await open(this.location(id), 'r');
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    try {
      const st = await fh.stat();
      const data = await fh.readFile();
      return { data, etag: fingerprint(id.toLowerCase(), st.mtimeMs, data.length) };
    } finally {
      await fh.close();
    }
  }

  async remove(id: string): Promise<void> {
    if (!isAvatarId(id)) return;
    try {
      await unlink(this.location(id));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async *list(): AsyncIterable<AvatarEntry> {
    let dirs: string[];
    try {
      dirs = await readdir(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // nothing stored yet
      throw err;
    }
    for (const d of dirs.filter((n) => PARTITION_DIR.test(n)).sort()) {
      let names: string[];
      try {
        names = await readdir(join(this.root, d));
      } catch {
        continue; // a stray file named like a partition
      }
      for (const name of names) {
        if (!FILE_NAME.test(name)) continue;
        try {
          const st = await stat(join(this.root, d, name));
          if (st.isFile()) yield { id: name, size: st.size, modified: st.mtime };
        } catch (err) {
          if (!isNotFound(err)) throw err; // removed while listing
        }
      }
    }
  }

  async close(): Promise<void> {}

  toString(): string {
    return `file store at ${this.root}`;
  }
}

/**
 * ETag of a file avatar. The original hashes id + mtime in whole seconds; millisecond mtime and size
 * are added so two writes within one second do not share an ETag (a stale cached avatar).
 */
function fingerprint(id: string, mtimeMs: number, size: number): string {
  return sha1(`${id}${Math.floor(mtimeMs)}:${size}`);
}

function isNotFound(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
