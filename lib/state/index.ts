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

/**
 * A StateStore for `uri` returned at once, opened on first use (and again after a failed open), so
 * one object can be handed to several providers' synchronous options: `stateStore` of Telegram and
 * `usedTokens` of the verified provider. The caller closes it after the service.
 */
export function createStateStore(uri: string, opts: StateStoreOptions = {}, option = 'stateStore'): StateStore {
  parseStateUri(uri, option);
  let opening: Promise<StateStore> | undefined;
  let closed = false;
  const store = (): Promise<StateStore> => {
    if (closed) return Promise.reject(new Error('state store is closed'));
    opening ??= openStateStore(uri, opts, option).catch((err: unknown) => {
      opening = undefined;
      throw err;
    });
    return opening;
  };
  return {
    create: async (ns, key, value, exp) => (await store()).create(ns, key, value, exp),
    get: async (ns, key) => (await store()).get(ns, key),
    replace: async (ns, key, rev, value, exp) => (await store()).replace(ns, key, rev, value, exp),
    take: async (ns, key, rev) => (await store()).take(ns, key, rev),
    remove: async (ns, key) => (await store()).remove(ns, key),
    sweep: async () => (await store()).sweep(),
    markUsed: async (id, exp) => (await store()).markUsed(id, exp),
    async close() {
      closed = true;
      const s = opening;
      opening = undefined;
      await (await s?.catch(() => undefined))?.close();
    },
  };
}
