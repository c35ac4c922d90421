import { loadWithPackage } from '../util/optional.js';
import { SchemeTable } from '../util/scheme-table.js';
import { isStateStore, type StateStore, type StateStoreOptions, type StateTarget } from './types.js';

/** Opens the state store a URI names (the whole URI, scheme included). */
export type StateStoreOpener = (uri: string, opts: StateStoreOptions) => StateStore | Promise<StateStore>;

/** A row of the table: a registered StateStoreOpener, or a built-in one, which also takes the parsed target. */
type OpenState = (
  uri: string,
  opts: StateStoreOptions,
  target: StateTarget,
  option: string,
) => StateStore | Promise<StateStore>;

const mongoState = () =>
  loadWithPackage('mongodb', 'stateStore mongodb://', () => import('./mongodb.js')).then(
    (m): OpenState =>
      (uri, opts) =>
        m.MongoStateStore.open(uri, opts),
  );
const postgresState = () =>
  loadWithPackage('pg', 'stateStore postgres://', () => import('./postgres.js')).then(
    (m): OpenState =>
      (uri, opts, _target, option) =>
        m.openPostgresStateStore(uri, opts, option),
  );
const redisState = () =>
  loadWithPackage('ioredis', 'stateStore redis://', () => import('./redis.js')).then(
    (m): OpenState => m.openRedisStateStore,
  );

/** Lists the schemes as messages name them: `memory://, lmdb://<path>, …`. */
const known = (names: readonly string[]) => names.map((s) => (s === 'lmdb' ? 'lmdb://<path>' : `${s}://`)).join(', ');

/**
 * State-store schemes. Every state URI has a scheme; `lmdb://` takes a path (the text after `://`, as
 * for avatar stores), `mongodb+srv://` is MongoDB, `rediss://` Redis over TLS and `postgresql://` PostgreSQL.
 */
export const stateSchemes = new SchemeTable<OpenState, StateStore>(
  'state store scheme',
  'registerStateStore()',
  {
    memory: () =>
      import('./memory.js').then(
        (m): OpenState =>
          (_uri, opts) =>
            m.memoryStateStore(opts),
      ),
    lmdb: () =>
      import('./lmdb.js').then(
        (m): OpenState =>
          (_uri, opts, target) =>
            new m.LmdbStateStore(target.path!, opts),
      ),
    mongodb: mongoState,
    'mongodb+srv': mongoState,
    redis: redisState,
    rediss: redisState,
    postgres: postgresState,
    postgresql: postgresState,
  },
  {
    aliases: { 'mongodb+srv': 'mongodb', rediss: 'redis', postgresql: 'postgres' },
    pathKinds: ['lmdb'],
    isStore: isStateStore,
    list: known,
    expected: (option, names) => `authKoa: ${option} must be ${known(names)} or a StateStore object`,
    notStore: (option) =>
      `authKoa: ${option} must be a state store URI or an object with create, get, replace, take, remove, sweep, ` +
      `markUsed and close`,
    openerReturns: 'a StateStore',
  },
);
