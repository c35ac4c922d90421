import { loadWithPackage } from '../util/optional.js';
import { NameTable } from '../util/table.js';
import type { StateStore, StateStoreOptions } from './types.js';

/** Opens the state store a URI names (the whole URI, scheme included). */
export type StateStoreOpener = (uri: string, opts: StateStoreOptions) => StateStore | Promise<StateStore>;

const mongoState = () => loadWithPackage('mongodb', 'stateStore mongodb://', () => import('./mongodb.js')).then((m) => m.openMongoStateStore);
const redisState = () => loadWithPackage('ioredis', 'stateStore redis://', () => import('./redis.js')).then((m) => m.openRedisStateStore);

/** State-store schemes. */
export const stateSchemes = new NameTable<StateStoreOpener>('state store scheme', 'registerStateStore()', {
  memory: () => import('./memory.js').then((m) => m.openMemoryStateStore),
  lmdb: () => import('./lmdb.js').then((m) => m.openLmdbStateStore),
  mongodb: mongoState,
  'mongodb+srv': mongoState,
  redis: redisState,
  rediss: redisState,
});
