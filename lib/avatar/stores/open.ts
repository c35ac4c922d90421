import { storeMismatch } from './layout.js';
import { storeSchemes } from './schemes.js';
import { isAvatarStore, type AvatarStore, type StoreOpenOptions, type StoreTarget } from './types.js';

/**
 * Parses an avatar store URI without loading any backend: `file:///abs`, `file://rel`, a plain path,
 * `lmdb://path`, `bolt://path` (the original's scheme, now LMDB), `mongodb://…` / `mongodb+srv://…`,
 * or any scheme added with registerStore(). As in the original, the path is the text after `://`, so
 * `lmdb://var/ava` is relative and `lmdb:///var/ava` absolute. Throws a TypeError naming `option` and
 * the scheme; the URI itself is not echoed (it may hold a password).
 */
export function parseStoreUri(uri: string, option = 'avatarStore'): StoreTarget {
  return storeSchemes.parse(uri, option);
}

/** True for a target parseStoreUri() made (the service's `avatarStore` once resolved), false for a store object. */
export function isStoreTarget(value: unknown): value is StoreTarget {
  return storeSchemes.isTarget(value);
}

/** Throws a TypeError naming `option` when the target's folder holds the other built-in store (see storeMismatch). */
function checkLayout(target: StoreTarget, option: string): void {
  const mismatch = storeMismatch(target);
  if (mismatch) throw new TypeError(`authKoa: ${option}: ${mismatch}`);
}

/**
 * Loads the backend module of a store without opening anything: start-up finds a missing package this
 * way, and a URI whose folder holds another kind of store.
 */
export async function loadStoreBackend(target: StoreTarget, option = 'avatarStore'): Promise<void> {
  checkLayout(target, option);
  await storeSchemes.loadFor(target, option);
}

/** Opens the store a parsed URI names, loading its backend on first use. */
export async function openStoreTarget(
  target: StoreTarget,
  option = 'avatarStore',
  opts: StoreOpenOptions = {},
): Promise<AvatarStore> {
  checkLayout(target, option);
  return storeSchemes.open(target, option, (open) => open(target.uri, target, { ...opts, option }));
}

/**
 * A store option checked without opening anything: a URI is parsed, a parsed target or an AvatarStore
 * passes, anything else throws a TypeError naming `option`.
 */
export function storeSource(
  value: string | StoreTarget | AvatarStore,
  option = 'avatarStore',
): StoreTarget | AvatarStore {
  return storeSchemes.source(value, option);
}

/**
 * Opens the store a URI (or its parsed target) names, loading its backend on first use; an AvatarStore
 * object is returned as it is. GridFS connects and pings first, so an unreachable server rejects here.
 */
export async function openStore(uri: string | StoreTarget | AvatarStore, option = 'avatarStore'): Promise<AvatarStore> {
  const source = storeSource(uri, option);
  return isAvatarStore(source) ? source : openStoreTarget(source, option);
}
