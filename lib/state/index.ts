import { splitUri } from '../util/table.js';
import { stateSchemes } from './schemes.js';
import { lazyResource } from '../util/lazy.js';
import { hitIn } from './limiter.js';
import { isStateStore, type StateStore, type StateStoreOptions } from './types.js';

export { memoryStateStore } from './memory.js';
export { isStateStore, USED_NS, type LimitKey, type StateEntry, type StateStore, type StateStoreOptions } from './types.js';
export { stateLimiter, type Limiter } from './limiter.js';
export { credentialThrottle, throttlePolicy, type Attempt, type CredentialThrottle, type LoginThrottleOptions, type ThrottlePolicy } from './throttle.js';

/** A parsed state store URI: the scheme that opens it, the path for LMDB, and the URI as given. */
export interface StateTarget {
  kind: string;
  path?: string;
  uri: string;
}


/**
 * Parses a state store URI without loading any backend: `memory://` (this process only),
 * `lmdb://<path>` (processes on one host; the path is the text after the scheme, so `lmdb://var/state`
 * is relative and `lmdb:///var/state` absolute, as for avatar stores), `redis://…` / `rediss://…`,
 * `mongodb://…` / `mongodb+srv://…` (several hosts), or a scheme added with registerStateStore(). Throws a TypeError
 * naming `option`; the URI is not echoed, since it may carry a password.
 */
export function parseStateUri(uri: string, option = 'stateStore'): StateTarget {
  const known = () => stateSchemes.names().map((s) => (s === 'lmdb' ? 'lmdb://<path>' : `${s}://`)).join(', ');
  if (typeof uri !== 'string' || uri.trim() === '') throw new TypeError(`authKoa: ${option} must be ${known()} or a StateStore object`);
  const { scheme, rest } = splitUri(uri);
  if (scheme === undefined) throw new TypeError(`authKoa: ${option} must be ${known()} or a StateStore object`);
  if (!stateSchemes.has(scheme)) throw new TypeError(`authKoa: ${option} has unsupported scheme "${scheme}://" (${known()}, or registerStateStore() one)`);
  if (scheme !== 'lmdb') return { kind: scheme === 'mongodb+srv' ? 'mongodb' : scheme === 'rediss' ? 'redis' : scheme, uri };
  if (rest === '') throw new TypeError(`authKoa: ${option} with scheme "lmdb://" needs a path after the scheme`);
  return { kind: 'lmdb', path: rest, uri };
}

/** The registry key of a URI already checked by parseStateUri. */
function schemeOf(uri: string): string {
  return splitUri(uri).scheme!;
}

/** Loads the backend module of a state store URI without opening anything: start-up finds a missing package this way. */
export async function loadStateBackend(uri: string, option = 'stateStore'): Promise<void> {
  parseStateUri(uri, option);
  await stateSchemes.load(schemeOf(uri));
}

/**
 * Opens the state store a URI names, loading its backend on first use; a StateStore object is returned
 * as it is. MongoDB connects and pings first, so an unreachable server rejects here.
 */
export async function openStateStore(uri: string | StateStore, opts: StateStoreOptions = {}, option = 'stateStore'): Promise<StateStore> {
  if (typeof uri !== 'string') {
    if (isStateStore(uri)) return uri;
    throw new TypeError(`authKoa: ${option} must be a state store URI or an object with create, get, replace, take, remove, sweep, markUsed and close`);
  }
  parseStateUri(uri, option);
  const scheme = schemeOf(uri);
  const open = await stateSchemes.load(scheme);
  const store = await open(uri, opts);
  if (!isStateStore(store)) throw new TypeError(`authKoa: ${option}: the "${scheme}://" opener did not return a StateStore`);
  return store;
}

/**
 * A StateStore for `uri` returned at once, opened on first use (and again after a failed open), for
 * code that needs the store before it can await (a limiter built at module load, a provider's option).
 * The service-wide `stateStore` option needs none of this: give it the URI. The caller closes it.
 */
export function createStateStore(uri: string, opts: StateStoreOptions = {}, option = 'stateStore'): StateStore {
  parseStateUri(uri, option);
  const opened = lazyResource(() => openStateStore(uri, opts, option), { what: 'state store', final: true });
  const store = opened.get;
  return {
    create: async (ns, key, value, exp) => (await store()).create(ns, key, value, exp),
    get: async (ns, key) => (await store()).get(ns, key),
    replace: async (ns, key, rev, value, exp) => (await store()).replace(ns, key, rev, value, exp),
    take: async (ns, key, rev) => (await store()).take(ns, key, rev),
    remove: async (ns, key) => (await store()).remove(ns, key),
    sweep: async () => (await store()).sweep(),
    markUsed: async (id, exp) => (await store()).markUsed(id, exp),
    hit: async (ns, keys, windowMs) => hitIn(await store(), ns, keys, windowMs, opts.clock ?? Date.now),
    close: opened.close,
  };
}

export { memoryUsedTokenStore, type MemoryUsedTokenStoreOptions, type UsedTokenStore } from './used-tokens.js';
