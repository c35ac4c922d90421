import type { ConnectionShare } from '../../util/connections.js';
import { hashId } from '../../user.js';
import type { BackendTarget } from '../../util/scheme-table.js';

/** One stored avatar as `list()` reports it. */
export interface AvatarEntry {
  /** Avatar id, `<40 hex>.image`. */
  id: string;
  /** Size in bytes. */
  size: number;
  /** When it was last written. */
  modified: Date;
}

/** A stored avatar read back: the bytes and a fingerprint used (quoted) as the HTTP ETag. */
export interface StoredAvatar {
  data: Buffer;
  etag: string;
}

/**
 * Where avatars live (docs/avatars.md). Any object with these methods can be passed as `avatarStore`;
 * `openStore(uri)` builds the built-in ones.
 */
export interface AvatarStore {
  /**
   * Stores `image` for the user, replacing any earlier one; returns the avatar id `<hash>.image`.
   * `opts.modified` (a migration keeping times) is honoured by the built-in stores.
   */
  put(userId: string, image: Buffer, opts?: PutOptions): Promise<string>;
  /** Reads an avatar by id; undefined when it is not stored. */
  get(avatarId: string): Promise<StoredAvatar | undefined>;
  /** Deletes an avatar; deleting a missing one is not an error. */
  remove(avatarId: string): Promise<void>;
  /** Every stored avatar, in no particular order. */
  list(): AsyncIterable<AvatarEntry>;
  /** Releases files, handles and connections; safe to call twice. */
  close(): Promise<void>;
}

/** What opening a built-in store may take beyond its URI. */
export interface StoreOpenOptions {
  /** The instance's connections: stores on one database URI share one pool (PostgreSQL). */
  connections?: ConnectionShare;
}

/** Options a stored avatar may be written with. */
export interface PutOptions {
  /** When the avatar was last written, kept by a migration; default now. */
  modified?: Date;
}

/**
 * A parsed store URI (parseStoreUri): `kind` is what opens it (`file` for a plain path, `lmdb` for
 * `bolt://`, `mongodb`, or a registered scheme), `path` the folder of the file and LMDB stores.
 */
export type StoreTarget = BackendTarget;

const AVATAR_ID = /^[0-9a-fA-F]{40}\.image$/;
const SUFFIX = '.image';

/** True for a well-formed avatar id (`<40 hex>.image`), the only thing the route lets reach a store. */
export function isAvatarId(value: string): boolean {
  return AVATAR_ID.test(value);
}

/**
 * The original's avatar id for a user id: hex sha1(id) + ".image"; a 40-hex id passes through and an
 * id already of the form `<40 hex>.image` keeps its hash, so migrations keep ids.
 */
export function avatarId(userId: string): string {
  if (AVATAR_ID.test(userId)) return userId;
  return hashId(userId) + SUFFIX;
}

/** The 40-hex part of a valid avatar id. */
export function avatarHash(id: string): string {
  return id.slice(0, id.length - SUFFIX.length);
}

/** Duck-type check used for the `avatarStore` option: an object with the five store methods. */
export function isAvatarStore(value: unknown): value is AvatarStore {
  if (value == null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return ['put', 'get', 'remove', 'list', 'close'].every((m) => typeof v[m] === 'function');
}

/** Rejects anything that is not a Buffer/Uint8Array before it reaches a store. */
export function toBuffer(image: Buffer | Uint8Array, where: string): Buffer {
  if (Buffer.isBuffer(image)) return image;
  if (image instanceof Uint8Array) return Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  throw new TypeError(`${where}: image must be a Buffer`);
}

/**
 * True for a store error that says its backend is away rather than that it refused (`unavailable: true`,
 * as the PostgreSQL store marks a dropped connection or a timeout): the routes answer those with 503.
 */
export function storeUnavailable(err: unknown): boolean {
  return (err as { unavailable?: unknown } | null)?.unavailable === true;
}
