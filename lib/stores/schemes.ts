import { loadWithPackage } from '../util/optional.js';
import { NameTable } from '../util/table.js';
import type { AvatarStore } from './types.js';

/** Opens the avatar store a URI names (the whole URI, scheme included). */
export type StoreOpener = (uri: string) => AvatarStore | Promise<AvatarStore>;

const gridfs = () => loadWithPackage('mongodb', 'avatarStore mongodb://', () => import('./gridfs.js')).then((m) => m.openGridFsStore);

/** Avatar-store schemes; a URI without a scheme is a `file` path. */
export const storeSchemes = new NameTable<StoreOpener>('avatar store scheme', 'registerStore()', {
  file: () => import('./file.js').then((m) => m.openFileStore),
  lmdb: () => import('./lmdb.js').then((m) => m.openLmdbStore),
  bolt: () => import('./lmdb.js').then((m) => m.openLmdbStore),
  mongodb: gridfs,
  'mongodb+srv': gridfs,
});
