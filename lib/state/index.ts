import { LmdbStateStore } from './lmdb.js';
import { memoryStateStore } from './memory.js';
import { MongoStateStore } from './mongo.js';
import { isStateStore, type StateStore, type StateStoreOptions } from './types.js';

export { LmdbStateStore } from './lmdb.js';
export { memoryStateStore } from './memory.js';
export { MongoStateStore, parseMongoStateUri, type MongoStateTarget } from './mongo.js';
export { isStateStore, USED_NS, type StateEntry, type StateStore, type StateStoreOptions } from './types.js';

/** A parsed state store URI. */
export type StateTarget = { kind: 'memory' } | { kind: 'lmdb'; path: string } | { kind: 'mongodb'; uri: string };

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/**
 * Parses a state store URI: `memory://` (this process only), `lmdb://<path>` (processes on one host;
 * the path is the text after the scheme, so `lmdb://var/state` is relative and `lmdb:///var/state`
 * absolute, as for avatar stores), `mongodb://…` / `mongodb+srv://…` (several hosts). Throws a
 * TypeError naming `option`; the URI is not echoed, since it may carry a password.
 */
export function parseStateUri(uri: string, option = 'stateStore'): StateTarget {
  const usage = `authKoa: ${option} must be memory://, lmdb://<path>, mongodb://… or a StateStore object`;
  if (typeof uri !== 'string' || uri.trim() === '') throw new TypeError(usage);
  const m = SCHEME.exec(uri);
  if (!m) throw new TypeError(usage);
  const scheme = m[1]!.toLowerCase();
  const rest = uri.slice(m[0].length);
  switch (scheme) {
    case 'memory':
      return { kind: 'memory' };
    case 'lmdb':
      if (rest === '') throw new TypeError(`authKoa: ${option} with scheme "lmdb://" needs a path after the scheme`);
      return { kind: 'lmdb', path: rest };
    case 'mongodb':
    case 'mongodb+srv':
      return { kind: 'mongodb', uri };
    default:
      throw new TypeError(`authKoa: ${option} has unsupported scheme "${scheme}://" (${usage.slice(usage.indexOf('must be') + 8)})`);
  }
}

/**
 * Opens the state store a URI names; a StateStore object is returned as it is. MongoDB connects and
 * pings first, so an unreachable server rejects here.
 */
export async function openStateStore(uri: string | StateStore, opts: StateStoreOptions = {}, option = 'stateStore'): Promise<StateStore> {
  if (typeof uri !== 'string') {
    if (isStateStore(uri)) return uri;
    throw new TypeError(`authKoa: ${option} must be a state store URI or an object with create, get, replace, take, remove, sweep, markUsed and close`);
  }
  const target = parseStateUri(uri, option);
  switch (target.kind) {
    case 'memory':
      return memoryStateStore(opts);
    case 'lmdb':
      return new LmdbStateStore(target.path, opts);
    case 'mongodb':
      return MongoStateStore.open(target.uri, opts);
  }
}
