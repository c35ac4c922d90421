import { promised } from '../util/promised.js';
import { memoryBroadcast } from './broadcast.js';
import { isFlatRecord } from './copy.js';
import { extensibleCopy } from '../util/extensible-copy.js';
import { countHits } from './limiter.js';
import {
  checkExpiry,
  checkKey,
  checkLimitKeys,
  markUsedWith,
  type LimitKey,
  type StateEntry,
  type StateStore,
  type StateStoreOptions,
} from './types.js';

/** Counters kept before the oldest are forgotten: a flood of distinct keys must not grow the map without bound. */
const MAX_COUNTERS = 100_000;

/**
 * The in-process state store, the default: right when the Telegram poller runs inside the one app
 * process. A written value is copied and frozen (see Entries.hold()), and a read hands that frozen value
 * out as it is, so no caller can change what is stored, and nothing is copied on the way out.
 * Expired entries go every `sweepEvery` creates (or every quarter of the map's size in creates, when
 * that is more) instead of on a timer, so an idle store keeps
 * nothing alive and needs no teardown. The methods are the object's own, so a caller may spread it.
 */
export function memoryStateStore(opts: StateStoreOptions = {}): StateStore & { readonly size: number } {
  const m = new Entries(opts.clock ?? Date.now, opts.sweepEvery ?? 256);
  const store: StateStore & { readonly size: number } = {
    get size() {
      return m.size;
    },
    create: (ns, key, value, expiresAtMs) => promised(() => m.create(ns, key, value, expiresAtMs)),
    get: (ns, key) => promised(() => m.get(ns, key)),
    replace: (ns, key, expected, value, expiresAtMs) =>
      promised(() => m.replace(ns, key, expected, value, expiresAtMs)),
    take: (ns, key, expected) => promised(() => m.take(ns, key, expected)),
    remove: (ns, key) => promised(() => m.remove(ns, key)),
    sweep: () => promised(() => m.sweep()),
    hit: (ns, keys, windowMs) => promised(() => m.hit(ns, keys, windowMs)),
    markUsed: async (tokenId, expiresAtMs) => markUsedWith(store, tokenId, expiresAtMs, m.clock()),
    close: () => promised(() => m.close()),
    broadcast: memoryBroadcast(m.clock),
    volatile: true,
  };
  return store;
}

/** The map behind a memory store and the rules of its entries, synchronous: the store's methods are one call each. */
class Entries {
  readonly map = new Map<string, StateEntry>();
  /** Creates left until the next sweep. */
  #untilSweep: number;
  /** Keys holding EMPTY: in the map, but not in the store. */
  #empties = 0;
  // Revisions only have to differ between the writes of this one map (it is never shared with another
  // process), so a counter does; a random tag per write cost a microsecond each on the basic-auth path.
  #writes = 0;
  #closed = false;
  /**
   * Marks the frozen copies this store made (a symbol-keyed property, not enumerable, so no copy, JSON or
   * comparison sees it): read out as they are, and kept as they are inside a later write (a session list
   * written back with one record more copies one record, not fifty). A WeakSet did the same but made every
   * garbage collection walk its entries: a fifth of a login's time with a map of ended sessions.
   */
  readonly #mark = Symbol('held by this memory store');

  constructor(
    readonly clock: () => number,
    readonly sweepEvery: number,
  ) {
    this.#untilSweep = sweepEvery;
  }

  get size(): number {
    return this.map.size - this.#empties;
  }

  create(ns: string, key: string, value: unknown, expiresAtMs: number): boolean {
    const k = this.#at('create', ns, key);
    checkExpiry('create', expiresAtMs);
    const now = this.clock();
    if (--this.#untilSweep <= 0) this.#sweep(now);
    if (live(this.map.get(k), now)) return false;
    this.#write(k, this.#hold(value), expiresAtMs);
    return true;
  }

  get<V>(ns: string, key: string): StateEntry<V> | undefined {
    const e = this.map.get(this.#at('get', ns, key));
    if (e === undefined || e === EMPTY) return undefined;
    const v = e.value;
    // A frozen value (or a primitive) is handed out as it is; a flat record is copied, as it was written.
    if (v === null || typeof v !== 'object' || this.#holds(v)) return e as StateEntry<V>;
    return { ...e, value: isFlatRecord(v) ? { ...v } : structuredClone(v) } as StateEntry<V>;
  }

  replace(ns: string, key: string, expected: string, value: unknown, expiresAtMs: number): boolean {
    const k = this.#at('replace', ns, key);
    checkExpiry('replace', expiresAtMs);
    const e = this.map.get(k);
    if (!live(e, this.clock()) || e.rev !== expected) return false;
    this.#write(k, this.#hold(value), expiresAtMs);
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

  /**
   * What the store keeps of a written value, out of the caller's reach. A flat record (a counter, the
   * throttle's, a challenge) is copied by spread, in and out: 0.05 µs, where freezing and remembering it
   * cost 1.2 µs, five times a login. Nested JSON data (a session list) is copied by hand and frozen, once:
   * reads share it, and a later write shares the parts it kept. Anything else inside, or nesting deeper
   * than any state value goes (a cycle), is cloned whole by structuredClone (2 µs per record of a
   * session list), in and out.
   */
  #hold(value: unknown): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (isFlatRecord(value)) return { ...value };
    return this.#frozenCopy(value, 0) ?? structuredClone(value);
  }

  /**
   * A frozen deep copy of plain objects, arrays and primitives, sharing what this store froze before; undefined when
   * something else is inside.
   */
  #frozenCopy(value: object, depth: number): object | undefined {
    if (this.#holds(value)) return value;
    if (depth > MAX_DEPTH) return undefined;
    let out: object;
    if (Array.isArray(value)) {
      const list: unknown[] = new Array(value.length);
      // Indexed, not for…in: three times faster over a session list.
      for (let i = 0; i < value.length; i++) {
        const f: unknown = value[i];
        if (f === null || typeof f !== 'object') list[i] = f;
        else if ((list[i] = this.#frozenCopy(f, depth + 1)) === undefined) return undefined;
      }
      out = list;
    } else {
      if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
      // Not `{ ...value }`: the store's mark is added to the copy (see extensibleCopy).
      const fields = extensibleCopy(value as Record<string, unknown>);
      for (const k in fields) {
        const f = fields[k];
        // Only nested objects are written back: storing every field again cost five times the copy.
        if (f !== null && typeof f === 'object' && (fields[k] = this.#frozenCopy(f, depth + 1)) === undefined)
          return undefined;
      }
      out = fields;
    }
    Object.defineProperty(out, this.#mark, { value: true });
    return Object.freeze(out);
  }

  /** The value is one of this store's frozen copies. */
  #holds(value: object): boolean {
    return (value as Record<symbol, unknown>)[this.#mark] === true;
  }

  /** Writes `k`, in place when it holds EMPTY. */
  #write(k: string, value: unknown, expiresAt: number): void {
    if (this.map.get(k) === EMPTY) this.#empties--;
    this.map.set(k, Object.freeze({ value, expiresAt, rev: (++this.#writes).toString(16).padStart(16, '0') }));
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
    // The next one after sweepEvery creates, or after a quarter of the map's size when that is more: a
    // sweep visits every entry, and a map that holds every session the cap ended (tens of thousands)
    // swept every 256 creates cost a login more than its store writes. So a create pays for about four
    // visits however large the map, and what waits to be swept stays a fraction of what is live.
    this.#untilSweep = Math.max(this.sweepEvery, this.map.size >> 2);
    let n = 0;
    // forEach, not for…of over entries: no [key, value] array per entry, where the map holds every
    // session the cap ended (a fifth of a login's time in the bench). Deleting while it runs is allowed.
    this.map.forEach((e, k) => {
      if (e.expiresAt > now) return;
      this.#delete(k);
      if (e !== EMPTY) n++;
    });
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

/** Deeper than any state value nests: past it, a value is taken for a cycle and left to structuredClone. */
const MAX_DEPTH = 16;
