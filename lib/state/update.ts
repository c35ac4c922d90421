import type { StateStore } from './types.js';

/**
 * A read-change-write of one entry by compare-and-set, tried again while another writer wins: what every index and
 * counter kept in a state store is changed through (an identity map's user index, the webhooks' outbox counters).
 * `change` gets the current value (undefined when there is none) and returns the new one, or undefined to leave it
 * as it is. Resolves to what was written, or undefined when nothing was; rejects after `tries` lost races.
 */
export async function updateEntry<T>(
  store: StateStore,
  ns: string,
  key: string,
  change: (current: T | undefined) => T | undefined,
  expiresAt: () => number,
  tries = 16,
): Promise<T | undefined> {
  for (let i = 0; i < tries; i++) {
    const cur = await store.get<T>(ns, key);
    const next = change(cur?.value);
    if (next === undefined) return undefined;
    const written = cur
      ? await store.replace(ns, key, cur.rev, next, expiresAt())
      : await store.create(ns, key, next, expiresAt());
    if (written) return next;
  }
  throw new Error(`${ns} ${key}: the entry kept changing`);
}
