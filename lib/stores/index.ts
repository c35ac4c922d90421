import { FileStore } from './fs.js';
import { GridFsStore } from './gridfs.js';
import { LmdbStore } from './lmdb.js';
import { avatarHash, isAvatarStore, type AvatarStore } from './types.js';

export type { AvatarEntry, AvatarStore, StoredAvatar } from './types.js';
export { avatarId, isAvatarId, isAvatarStore } from './types.js';
export { FileStore, type FileStoreOptions } from './fs.js';
export { LmdbStore } from './lmdb.js';
export { GridFsStore, parseMongoUri } from './gridfs.js';
export { prune, type PruneOptions, type PruneResult } from './prune.js';

/** A parsed store URI: which store, and where. */
export type StoreTarget =
  | { kind: 'file'; path: string }
  | { kind: 'lmdb'; path: string }
  | { kind: 'mongodb'; uri: string };

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/**
 * Parses an avatar store URI: `file:///abs`, `file://rel`, a plain path, `lmdb://path`, `bolt://path`
 * (the original's scheme, now LMDB), `mongodb://…` / `mongodb+srv://…`. As in the original, the path
 * is the text after `://`, so `lmdb://var/ava` is relative and `lmdb:///var/ava` absolute. Throws a
 * TypeError naming `option` and the scheme; the URI itself is not echoed (it may hold a password).
 */
export function parseStoreUri(uri: string, option = 'avatarStore'): StoreTarget {
  if (typeof uri !== 'string' || uri.trim() === '') {
    throw new TypeError(`authKoa: ${option} must be a store URI (a path, file://, lmdb://, bolt:// or mongodb://) or an AvatarStore object`);
  }
  const m = SCHEME.exec(uri);
  if (!m) return { kind: 'file', path: uri };
  const scheme = m[1]!.toLowerCase();
  const rest = uri.slice(m[0].length);
  const needPath = (kind: 'file' | 'lmdb'): StoreTarget => {
    if (rest === '') throw new TypeError(`authKoa: ${option} with scheme "${scheme}://" needs a path after the scheme`);
    return { kind, path: rest };
  };
  switch (scheme) {
    case 'file':
      return needPath('file');
    case 'lmdb':
    case 'bolt':
      return needPath('lmdb');
    case 'mongodb':
    case 'mongodb+srv':
      return { kind: 'mongodb', uri };
    default:
      throw new TypeError(`authKoa: ${option} has unsupported scheme "${scheme}://" (use a path, file://, lmdb://, bolt:// or mongodb://)`);
  }
}

/**
 * Opens the store a URI names (see parseStoreUri); an AvatarStore object is returned as it is.
 * GridFS connects and pings first, so an unreachable server rejects here.
 */
export async function openStore(uri: string | AvatarStore, option = 'avatarStore'): Promise<AvatarStore> {
  if (typeof uri !== 'string') {
    if (isAvatarStore(uri)) return uri;
    throw new TypeError(`authKoa: ${option} must be a store URI or an object with put, get, remove, list and close`);
  }
  const target = parseStoreUri(uri, option);
  switch (target.kind) {
    case 'file':
      return new FileStore(target.path);
    case 'lmdb':
      return new LmdbStore(target.path);
    case 'mongodb':
      return GridFsStore.open(target.uri);
  }
}

/** Outcome of a migration. */
export interface MigrateResult {
  /** Avatars listed in the source. */
  total: number;
  /** Copied into the destination. */
  copied: number;
  /** Ids that could not be read or written (logged through onError and skipped, as the original). */
  failed: string[];
}

export interface MigrateOptions {
  /** Called after each avatar with the running count (total is known once the source is listed). */
  onProgress?: (done: number, total: number, id: string) => void;
  /** Called for an avatar that failed; the migration goes on. */
  onError?: (id: string, err: unknown) => void;
  /** Avatars copied at once (default 8). */
  concurrency?: number;
}

/**
 * Copies every avatar of `from` into `to`, ids kept (the 40-hex hash passes through avatarId). Either
 * side may be a URI (opened and closed here) or an open store (left open). Per-avatar failures are
 * reported and skipped; listing or opening failures reject.
 */
export async function migrate(from: string | AvatarStore, to: string | AvatarStore, opts: MigrateOptions = {}): Promise<MigrateResult> {
  const src = await openStore(from, 'from');
  let dst: AvatarStore | undefined;
  try {
    dst = await openStore(to, 'to');
    const ids: string[] = [];
    for await (const e of src.list()) ids.push(e.id); // list first: the total drives progress bars
    const result: MigrateResult = { total: ids.length, copied: 0, failed: [] };
    let done = 0;
    let next = 0;
    // A few copies in flight: file stores fsync every write, and serial fsyncs make big stores crawl.
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        try {
          const got = await src.get(id);
          if (got) {
            await dst!.put(avatarHash(id), got.data);
            result.copied++;
          }
        } catch (err) {
          result.failed.push(id);
          opts.onError?.(id, err);
        }
        opts.onProgress?.(++done, ids.length, id);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
    return result;
  } finally {
    if (typeof to === 'string') await dst?.close();
    if (typeof from === 'string') await src.close();
  }
}
