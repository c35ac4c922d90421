import { lazyResource } from '../util/lazy.js';
import { hitIn } from './limiter.js';
import { stateSchemes } from './schemes.js';
import { isStateStore, type StateStore, type StateStoreOptions, type StateTarget } from './types.js';

/**
 * Parses a state store URI without loading any backend: `memory://` (this process only),
 * `lmdb://<path>` (processes on one host; the path is the text after the scheme, so `lmdb://var/state`
 * is relative and `lmdb:///var/state` absolute, as for avatar stores), `redis://…` / `rediss://…`,
 * `mongodb://…` / `mongodb+srv://…`, `postgres://…` / `postgresql://…` (several hosts), or a scheme added with
 * registerStateStore(). Throws a TypeError
 * naming `option`; the URI is not echoed, since it may carry a password.
 */
export function parseStateUri(uri: string, option = 'stateStore'): StateTarget {
  return stateSchemes.parse(uri, option);
}

/** Opens the state store a parsed URI names, loading its backend on first use. */
export function openStateTarget(
  target: StateTarget,
  opts: StateStoreOptions = {},
  option = 'stateStore',
): Promise<StateStore> {
  return stateSchemes.open(target, option, (open) => open(target.uri, opts, target, option));
}

/**
 * Opens the state store a URI names, loading its backend on first use; a StateStore object is returned
 * as it is. MongoDB connects and pings first, so an unreachable server rejects here.
 */
export async function openStateStore(
  uri: string | StateStore,
  opts: StateStoreOptions = {},
  option = 'stateStore',
): Promise<StateStore> {
  const source = stateSchemes.source(uri, option);
  return isStateStore(source) ? source : openStateTarget(source, opts, option);
}

/**
 * A StateStore for `uri` returned at once, opened on first use (and again after a failed open), for
 * code that needs the store before it can await (a limiter built at module load, a provider's option).
 * The service-wide `stateStore` option needs none of this: give it the URI. The caller closes it.
 */
export function createStateStore(uri: string, opts: StateStoreOptions = {}, option = 'stateStore'): StateStore {
  const target = parseStateUri(uri, option);
  const opened = lazyResource(() => openStateTarget(target, opts, option), { what: 'state store', final: true });
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
    volatile: target.kind === 'memory',
  };
}
