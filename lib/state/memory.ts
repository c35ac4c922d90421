import { randomBytes } from 'node:crypto';
import { countHits } from './limiter.js';
import { checkExpiry, checkKey, checkLimitKeys, markUsedWith, type LimitKey, type StateEntry, type StateStore, type StateStoreOptions } from './types.js';

/** Counters kept before the oldest are forgotten: a flood of distinct keys must not grow the map without bound. */
const MAX_COUNTERS = 100_000;

/**
 * The in-process state store, the default: right when the Telegram poller runs inside the one app
 * process. Values are copied in and out (see copy()) so a caller never mutates stored state.
 * Expired entries go every `sweepEvery` creates instead of on a timer, so an idle store keeps
 * nothing alive and needs no teardown.
 */
export function memoryStateStore(opts: StateStoreOptions = {}): StateStore & { readonly size: number } {
  const clock = opts.clock ?? Date.now;
  const sweepEvery = opts.sweepEvery ?? 256;
  const entries = new Map<string, StateEntry>();
  let creates = 0;
  // Revisions only have to differ between the writes of this one map (it is never shared with another
  // process), so a counter does; a random tag per write cost a microsecond each on the basic-auth path.
  let writes = 0;
  const nextRev = () => (++writes).toString(16).padStart(16, '0');
  let closed = false;
  const id = (ns: string, key: string) => `${ns}\u0000${key}`;
  const live = (e: StateEntry | undefined, now: number): e is StateEntry => e !== undefined && e.expiresAt > now;
  const open = (call: string) => {
    if (closed) throw new Error(`state store is closed (${call})`);
  };
  const sweepNow = (now: number) => {
    let n = 0;
    for (const [k, e] of entries) if (e.expiresAt <= now && entries.delete(k)) n++;
    return n;
  };

  const store = {
    get size() {
      return entries.size;
    },
    async create(ns: string, key: string, value: unknown, expiresAtMs: number) {
      open('create');
      checkKey('create', ns, key);
      checkExpiry('create', expiresAtMs);
      const now = clock();
      if (++creates % sweepEvery === 0) sweepNow(now);
      if (live(entries.get(id(ns, key)), now)) return false;
      entries.set(id(ns, key), { value: copy(value), expiresAt: expiresAtMs, rev: nextRev() });
      return true;
    },
    async get<V>(ns: string, key: string) {
      open('get');
      checkKey('get', ns, key);
      const e = entries.get(id(ns, key));
      return e && ({ ...e, value: copy(e.value) } as StateEntry<V>);
    },
    async replace(ns: string, key: string, expected: string, value: unknown, expiresAtMs: number) {
      open('replace');
      checkKey('replace', ns, key);
      checkExpiry('replace', expiresAtMs);
      const e = entries.get(id(ns, key));
      if (!live(e, clock()) || e.rev !== expected) return false;
      entries.set(id(ns, key), { value: copy(value), expiresAt: expiresAtMs, rev: nextRev() });
      return true;
    },
    async take(ns: string, key: string, expected: string) {
      open('take');
      checkKey('take', ns, key);
      const e = entries.get(id(ns, key));
      if (!e || e.rev !== expected) return false;
      return entries.delete(id(ns, key));
    },
    async remove(ns: string, key: string) {
      open('remove');
      checkKey('remove', ns, key);
      entries.delete(id(ns, key));
    },
    async sweep() {
      open('sweep');
      return sweepNow(clock());
    },
    async hit(ns: string, keys: readonly LimitKey[], windowMs: number) {
      open('hit');
      checkLimitKeys(ns, keys, windowMs);
      const now = clock();
      if (entries.size >= MAX_COUNTERS) {
        sweepNow(now);
        // Still nearly full: forget the oldest tenth of the counters (a forgotten key merely starts a
        // fresh window), so the next sweep is 10 000 hits away rather than one.
        const prefix = id(ns, '');
        for (const k of entries.keys()) {
          if (entries.size < MAX_COUNTERS * 0.9) break;
          if (k.startsWith(prefix)) entries.delete(k);
        }
      }
      return countHits(
        keys,
        windowMs,
        now,
        (key) => {
          const e = entries.get(id(ns, key));
          return e && { count: e.value as number, endsAt: e.expiresAt };
        },
        (key, w) => {
          entries.delete(id(ns, key)); // re-inserted, so Map order stays oldest-first for the bound above
          entries.set(id(ns, key), { value: w.count, expiresAt: w.endsAt, rev: nextRev() });
        },
      );
    },
    async markUsed(tokenId: string, expiresAtMs: number) {
      return markUsedWith(store, tokenId, expiresAtMs, clock());
    },
    async close() {
      closed = true;
      entries.clear();
    },
  };
  return store;
}

/**
 * A copy through which a caller cannot change what is stored. Flat records (counters, the throttle's
 * records, most login state) are copied by spread; anything deeper, or not a plain object, by
 * structuredClone, which costs half a microsecond even for three numbers.
 */
function copy<V>(value: V): V {
  if (value === null || typeof value !== 'object') return value;
  if (Object.getPrototypeOf(value) === Object.prototype) {
    const fields = Object.values(value as Record<string, unknown>);
    if (fields.every((f) => f === null || typeof f !== 'object')) return { ...value };
  }
  return structuredClone(value);
}

/** A fresh revision tag: 64 random bits, enough that two writes never share one. */
export function rev(): string {
  return randomBytes(8).toString('hex');
}

/** The `memory` scheme's opener: state of this process only. */
export function openMemoryStateStore(_uri: string, opts: StateStoreOptions): StateStore {
  return memoryStateStore(opts);
}
