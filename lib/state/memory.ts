import { countHits } from './limiter.js';
import { checkExpiry, checkKey, checkLimitKeys, markUsedWith, type LimitKey, type StateEntry, type StateStore, type StateStoreOptions } from './types.js';

/** Counters kept before the oldest are forgotten: a flood of distinct keys must not grow the map without bound. */
const MAX_COUNTERS = 100_000;

/**
 * The in-process state store, the default: right when the Telegram poller runs inside the one app
 * process. Values are copied in and out (see copy()) so a caller never mutates stored state.
 * Expired entries go every `sweepEvery` creates instead of on a timer, so an idle store keeps
 * nothing alive and needs no teardown. The methods are the object's own, so a caller may spread it.
 */
export function memoryStateStore(opts: StateStoreOptions = {}): StateStore & { readonly size: number } {
  const m = new Entries(opts.clock ?? Date.now, opts.sweepEvery ?? 256);
  const store: StateStore & { readonly size: number } = {
    get size() {
      return m.size;
    },
    create: async (ns, key, value, expiresAtMs) => m.create(ns, key, value, expiresAtMs),
    get: async (ns, key) => m.get(ns, key),
    replace: async (ns, key, expected, value, expiresAtMs) => m.replace(ns, key, expected, value, expiresAtMs),
    take: async (ns, key, expected) => m.take(ns, key, expected),
    remove: async (ns, key) => m.remove(ns, key),
    sweep: async () => m.sweep(),
    hit: async (ns, keys, windowMs) => m.hit(ns, keys, windowMs),
    markUsed: async (tokenId, expiresAtMs) => markUsedWith(store, tokenId, expiresAtMs, m.clock()),
    close: async () => m.close(),
    volatile: true,
  };
  return store;
}

/** The map behind a memory store and the rules of its entries, synchronous: the store's methods are one call each. */
class Entries {
  readonly map = new Map<string, StateEntry>();
  #creates = 0;
  /** Keys holding EMPTY: in the map, but not in the store. */
  #empties = 0;
  // Revisions only have to differ between the writes of this one map (it is never shared with another
  // process), so a counter does; a random tag per write cost a microsecond each on the basic-auth path.
  #writes = 0;
  #closed = false;

  constructor(
    readonly clock: () => number,
    readonly sweepEvery: number,
  ) {}

  get size(): number {
    return this.map.size - this.#empties;
  }

  create(ns: string, key: string, value: unknown, expiresAtMs: number): boolean {
    const k = this.#at('create', ns, key);
    checkExpiry('create', expiresAtMs);
    const now = this.clock();
    if (++this.#creates % this.sweepEvery === 0) this.#sweep(now);
    if (live(this.map.get(k), now)) return false;
    this.#write(k, copy(value), expiresAtMs);
    return true;
  }

  get<V>(ns: string, key: string): StateEntry<V> | undefined {
    const e = this.map.get(this.#at('get', ns, key));
    return e === undefined || e === EMPTY ? undefined : ({ ...e, value: copy(e.value) } as StateEntry<V>);
  }

  replace(ns: string, key: string, expected: string, value: unknown, expiresAtMs: number): boolean {
    const k = this.#at('replace', ns, key);
    checkExpiry('replace', expiresAtMs);
    const e = this.map.get(k);
    if (!live(e, this.clock()) || e.rev !== expected) return false;
    this.#write(k, copy(value), expiresAtMs);
    return true;
  }

  take(ns: string, key: string, expected: string): boolean {
    const k = this.#at('take', ns, key);
    const e = this.map.get(k);
    if (e === undefined || e === EMPTY || e.rev !== expected) return false;
    this.#empty(k);
    return true;
  }

  remove(ns: string, key: string): void {
    const k = this.#at('remove', ns, key);
    if (this.map.has(k)) this.#empty(k);
  }

  sweep(): number {
    this.#isOpen('sweep');
    return this.#sweep(this.clock());
  }

  hit(ns: string, keys: readonly LimitKey[], windowMs: number): number | undefined {
    this.#isOpen('hit');
    checkLimitKeys(ns, keys, windowMs);
    const now = this.clock();
    if (this.map.size >= MAX_COUNTERS) this.#makeRoom(id(ns, ''), now);
    const read = (key: string) => {
      const e = this.map.get(id(ns, key));
      return e === undefined || e === EMPTY ? undefined : { count: e.value as number, endsAt: e.expiresAt };
    };
    return countHits(keys, windowMs, now, read, (key, w) => {
      const k = id(ns, key);
      this.#delete(k); // re-inserted, so Map order stays oldest-first for #makeRoom()
      this.#write(k, w.count, w.endsAt);
    });
  }

  close(): void {
    this.#closed = true;
    this.map.clear();
    this.#empties = 0;
  }

  #isOpen(call: string): void {
    if (this.#closed) throw new Error(`state store is closed (${call})`);
  }

  /** The map key of (ns, key), once the store is known to be open and the key valid. */
  #at(call: string, ns: string, key: string): string {
    this.#isOpen(call);
    checkKey(call, ns, key);
    return id(ns, key);
  }

  /** Writes `k`, in place when it holds EMPTY. */
  #write(k: string, value: unknown, expiresAt: number): void {
    if (this.map.get(k) === EMPTY) this.#empties--;
    this.map.set(k, { value, expiresAt, rev: (++this.#writes).toString(16).padStart(16, '0') });
  }

  /** A key taken or removed: EMPTY until the next sweep (see EMPTY); `k` is in the map. */
  #empty(k: string): void {
    if (this.map.get(k) === EMPTY) return;
    this.map.set(k, EMPTY);
    this.#empties++;
  }

  /** Deletes `k` from the map itself. */
  #delete(k: string): void {
    if (this.map.get(k) === EMPTY) this.#empties--;
    this.map.delete(k);
  }

  /** Deletes expired entries and EMPTY ones; the count of expired entries deleted. */
  #sweep(now: number): number {
    let n = 0;
    for (const [k, e] of this.map) {
      if (e.expiresAt > now) continue;
      this.#delete(k);
      if (e !== EMPTY) n++;
    }
    return n;
  }

  /**
   * Room for counters in a full map: expired entries go first; while still nearly full, the oldest
   * tenth of the namespace's counters is forgotten (a forgotten key merely starts a fresh window), so
   * the next sweep is 10 000 hits away rather than one.
   */
  #makeRoom(prefix: string, now: number): void {
    this.#sweep(now);
    for (const k of this.map.keys()) {
      if (this.map.size < MAX_COUNTERS * 0.9) break;
      if (k.startsWith(prefix)) this.#delete(k);
    }
  }
}

/**
 * What a key taken or removed holds until the next sweep, instead of being deleted from the map. V8's Map
 * keeps a deleted entry in its bucket's chain until the whole table is rebuilt, which in a large map is
 * rare: a key deleted and written again at every login (the throttle's counter of a name and client) left
 * thousands of dead entries for each lookup of it to walk, once the map held many others (the sessions the
 * cap ended, kept for cookieDuration): about 20 µs per write at 30 000 entries. An EMPTY key written
 * again is updated in place. Its expiry of 0 makes it dead to create, replace and the sweep.
 */
const EMPTY: StateEntry = Object.freeze({ value: undefined, expiresAt: 0, rev: '' });

/** One flat key space; NUL cannot occur in a namespace, so `ns` + key never collide. */
function id(ns: string, key: string): string {
  return `${ns}\u0000${key}`;
}

function live(e: StateEntry | undefined, now: number): e is StateEntry {
  return e !== undefined && e.expiresAt > now;
}

/**
 * A copy through which a caller cannot change what is stored. State values are JSON data (the network
 * stores keep them as JSON text), so plain objects and arrays are copied by hand; anything else inside,
 * or nesting deeper than any state value goes (a cycle), is left to structuredClone, which took 2 µs
 * per record of a user's session list, written and read again at every login.
 */
function copy<V>(value: V): V {
  if (value === null || typeof value !== 'object') return value;
  return (plainCopy(value, 0) ?? structuredClone(value)) as V;
}

/** Deeper than any state value nests: past it, a value is taken for a cycle and left to structuredClone. */
const MAX_DEPTH = 16;

/** A deep copy of plain objects, arrays and primitives; undefined when something else is inside. */
function plainCopy(value: object, depth: number): object | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    // Indexed, not for…in: three times faster over a session list.
    for (let i = 0; i < value.length; i++) {
      const f: unknown = value[i];
      if (f === null || typeof f !== 'object') out[i] = f;
      else if ((out[i] = plainCopy(f, depth + 1)) === undefined) return undefined;
    }
    return out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const out: Record<string, unknown> = { ...value };
  for (const k in out) {
    const f = out[k];
    // Only nested objects are written back: storing every field again cost five times the copy.
    if (f !== null && typeof f === 'object' && (out[k] = plainCopy(f, depth + 1)) === undefined) return undefined;
  }
  return out;
}
