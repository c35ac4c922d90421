import { splitUri } from '../util/table.js';
import { storeMismatch } from './layout.js';
import { storeSchemes } from './schemes.js';
import { avatarHash, isAvatarStore, type AvatarStore } from './types.js';

export type { AvatarEntry, AvatarStore, StoredAvatar } from './types.js';
export { avatarId, isAvatarId, isAvatarStore } from './types.js';
export { prune, type PruneOptions, type PruneResult } from './prune.js';

/**
 * A parsed store URI: the scheme that opens it (`file` for a plain path, `lmdb` for `bolt://`), the
 * path for the file and LMDB stores, and the URI as given.
 */
export interface StoreTarget {
  kind: string;
  path?: string;
  uri: string;
}

/** Built-in schemes whose URI is a path; the others (MongoDB, registered schemes) take the whole URI. */
const PATH_SCHEMES: Record<string, string> = { file: 'file', lmdb: 'lmdb', bolt: 'lmdb' };

/**
 * Parses an avatar store URI without loading any backend: `file:///abs`, `file://rel`, a plain path,
 * `lmdb://path`, `bolt://path` (the original's scheme, now LMDB), `mongodb://…` / `mongodb+srv://…`,
 * or any scheme added with registerStore(). As in the original, the path is the text after `://`, so
 * `lmdb://var/ava` is relative and `lmdb:///var/ava` absolute. Throws a TypeError naming `option` and
 * the scheme; the URI itself is not echoed (it may hold a password).
 */
export function parseStoreUri(uri: string, option = 'avatarStore'): StoreTarget {
  if (typeof uri !== 'string' || uri.trim() === '') {
    throw new TypeError(`authKoa: ${option} must be a store URI (a path, file://, lmdb://, bolt:// or mongodb://) or an AvatarStore object`);
  }
  const { scheme, rest } = splitUri(uri);
  if (scheme === undefined) return { kind: 'file', path: uri, uri };
  if (!storeSchemes.has(scheme)) {
    throw new TypeError(`authKoa: ${option} has unsupported scheme "${scheme}://" (use a path, ${storeSchemes.names().map((s) => `${s}://`).join(', ')}, or registerStore() one)`);
  }
  const pathKind = PATH_SCHEMES[scheme];
  if (pathKind === undefined) return { kind: scheme === 'mongodb+srv' ? 'mongodb' : scheme, uri };
  if (rest === '') throw new TypeError(`authKoa: ${option} with scheme "${scheme}://" needs a path after the scheme`);
  return { kind: pathKind, path: rest, uri };
}

/** The registry key of a URI already checked by parseStoreUri: its scheme, or `file` for a plain path. */
function schemeOf(uri: string): string {
  return splitUri(uri).scheme ?? 'file';
}

/** Throws a TypeError naming `option` when the URI's folder holds the other built-in store (see storeMismatch). */
function checkStoreLayout(uri: string, option = 'avatarStore'): void {
  const mismatch = storeMismatch(parseStoreUri(uri, option));
  if (mismatch) throw new TypeError(`authKoa: ${option}: ${mismatch}`);
}

/**
 * Loads the backend module of a store URI without opening anything: start-up finds a missing package this
 * way, and a URI whose folder holds another kind of store.
 */
export async function loadStoreBackend(uri: string, option = 'avatarStore'): Promise<void> {
  checkStoreLayout(uri, option);
  await storeSchemes.load(schemeOf(uri));
}

/**
 * Opens the store a URI names (see parseStoreUri), loading its backend on first use; an AvatarStore
 * object is returned as it is. GridFS connects and pings first, so an unreachable server rejects here.
 */
export async function openStore(uri: string | AvatarStore, option = 'avatarStore'): Promise<AvatarStore> {
  if (typeof uri !== 'string') {
    if (isAvatarStore(uri)) return uri;
    throw new TypeError(`authKoa: ${option} must be a store URI or an object with put, get, remove, list and close`);
  }
  checkStoreLayout(uri, option);
  const open = await storeSchemes.load(schemeOf(uri));
  const store = await open(uri);
  if (!isAvatarStore(store)) throw new TypeError(`authKoa: ${option}: the "${schemeOf(uri)}://" opener did not return an object with put, get, remove, list and close`);
  return store;
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
