import { loadWithPackage } from '../../util/optional.js';
import { SchemeTable } from '../../util/scheme-table.js';
import { isAvatarStore, type AvatarStore, type StoreOpenOptions, type StoreTarget } from './types.js';

/** Opens the avatar store a URI names (the whole URI, scheme included). */
export type StoreOpener = (uri: string) => AvatarStore | Promise<AvatarStore>;

/** A row of the table: a registered StoreOpener, or a built-in one, which also takes the parsed target. */
type OpenStore = (
  uri: string,
  target: StoreTarget,
  opts: StoreOpenOptions & { option: string },
) => AvatarStore | Promise<AvatarStore>;

const lmdb = () =>
  import('./lmdb.js').then(
    (m): OpenStore =>
      (_uri, target) =>
        new m.LmdbStore(target.path!),
  );
const postgres = () =>
  loadWithPackage('pg', 'avatarStore postgres://', () => import('./postgres.js')).then(
    (m): OpenStore =>
      (uri, _target, opts) =>
        m.PostgresStore.open(uri, opts, opts.option),
  );
const gridfs = () =>
  loadWithPackage('mongodb', 'avatarStore mongodb://', () => import('./gridfs.js')).then(
    (m): OpenStore =>
      (uri) =>
        m.GridFsStore.open(uri),
  );

/**
 * Avatar-store schemes. A URI without a scheme is a `file` path; `bolt://` (the original's BoltDB) opens
 * an LMDB store at its path, and `mongodb+srv://` is MongoDB. The file and LMDB paths are the text after `://`.
 */
export const storeSchemes = new SchemeTable<OpenStore, AvatarStore>(
  'avatar store scheme',
  'registerStore()',
  {
    file: () =>
      import('./file.js').then(
        (m): OpenStore =>
          (_uri, target) =>
            new m.FileStore(target.path!),
      ),
    lmdb,
    bolt: lmdb,
    mongodb: gridfs,
    'mongodb+srv': gridfs,
    postgres,
    postgresql: postgres,
  },
  {
    aliases: { bolt: 'lmdb', 'mongodb+srv': 'mongodb', postgresql: 'postgres' },
    pathKinds: ['file', 'lmdb'],
    plainPath: 'file',
    isStore: isAvatarStore,
    list: (names) => `use a path, ${names.map((s) => `${s}://`).join(', ')}`,
    expected: (option) =>
      `authKoa: ${option} must be a store URI (a path, file://, lmdb://, bolt://, mongodb:// or postgres://) or ` +
      `an AvatarStore object`,
    notStore: (option) => `authKoa: ${option} must be a store URI or an object with put, get, remove, list and close`,
    openerReturns: 'an object with put, get, remove, list and close',
  },
);
