/**
 * `authkoa/stores`: opening avatar stores by URI, and the chores on them (migrate, prune). The stores
 * themselves are at `authkoa/stores/file`, `/lmdb` and `/gridfs`.
 */
export { openStore, parseStoreUri } from './open.js';
export { migrate, type MigrateOptions, type MigrateResult } from './migrate.js';
export { prune, type PruneOptions, type PruneResult } from './prune.js';
export { avatarId, type AvatarEntry, type AvatarStore, type StoredAvatar, type StoreTarget } from './types.js';
