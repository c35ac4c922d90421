import { randomBytes } from 'node:crypto';
import type { ConnectionShare } from '../util/connections.js';
import type { BackendTarget } from '../util/scheme-table.js';
import type { UsedTokenStore } from './used-tokens.js';
import type { Broadcast } from './broadcast.js';

/** One entry of a state store, as read back. */
export interface StateEntry<V = unknown> {
  /** What was stored: plain JSON data (objects, arrays, strings, numbers, booleans, null). */
  value: V;
  /** When the entry stops being live, in ms since the epoch. */
  expiresAt: number;
  /** Changes on every write; replace() and take() succeed only against the revision they read. */
  rev: string;
}

/**
 * Short-lived login state shared by every process that serves one application: Telegram's pending
 * login requests and the verified provider's spent token ids. Keys live in namespaces so one store
 * serves several providers. Expiry is enforced here, in code, against the store's clock (no database
 * TTL index), so an entry past its time is never treated as live even before it is swept.
 *
 * Every write is a compare-and-set that is atomic across the processes sharing the store (LMDB write
 * transactions, single-document MongoDB operations), so of two racing callers exactly one wins.
 */
export interface StateStore extends UsedTokenStore {
  /** Creates `key` unless a live entry holds it (an expired one is overwritten). True when created. */
  create(ns: string, key: string, value: unknown, expiresAtMs: number): Promise<boolean>;
  /**
   * The entry under `key`, live or expired but not yet swept; undefined when there is none. Read-only:
   * the memory store hands out the frozen value it holds, so a change is a TypeError, not a silent write.
   */
  get<V = unknown>(ns: string, key: string): Promise<StateEntry<V> | undefined>;
  /** Overwrites a live entry that still has revision `rev`. True when written. */
  replace(ns: string, key: string, rev: string, value: unknown, expiresAtMs: number): Promise<boolean>;
  /** Deletes the entry if it still has revision `rev` (a one-time consume). True when this call deleted it. */
  take(ns: string, key: string, rev: string): Promise<boolean>;
  /** Deletes the entry whatever its revision. */
  remove(ns: string, key: string): Promise<void>;
  /** Deletes expired entries now; resolves to how many went. Stores also sweep on their own every so often. */
  sweep(): Promise<number>;
  /** Spent one-shot token ids (the verified provider), kept in namespace `used` until they expire. */
  markUsed(id: string, expiresAtMs: number): Promise<boolean>;
  /**
   * Optional: counts one hit on each key of `ns` in fixed windows of `windowMs`, atomically, unless a
   * key is already at its limit (then counts nothing). Resolves undefined when allowed, else the ms
   * until the first blocking window ends. A store without it is counted through create/get/replace
   * (see stateLimiter()); Redis, LMDB and memory do it in one step.
   */
  hit?(ns: string, keys: readonly LimitKey[], windowMs: number): Promise<number | undefined>;
  /** Releases the connection or environment. Further calls reject. */
  close(): Promise<void>;
  /**
   * Optional: a log every process sharing the store follows (broadcast.ts). Memory, LMDB, Redis and PostgreSQL
   * have one; without it, what one process publishes reaches the others only through the entries they read.
   */
  readonly broadcast?: Broadcast;
  /**
   * True for a store that forgets everything when its process ends (memory): refused for durable data
   * (`mfa.store`, passkeys) unless the app sets `allowVolatileStores`.
   */
  readonly volatile?: boolean;
}

/** One counter of a rate limit: its key and how many hits a window allows. */
export interface LimitKey {
  key: string;
  limit: number;
}

/** Options every state store takes. */
export interface StateStoreOptions {
  /** Clock in ms since the epoch; tests inject one. Default Date.now. */
  clock?: () => number;
  /** Sweep expired entries every this many create() calls. Default 256. */
  sweepEvery?: number;
  /**
   * The connections of the instance the store belongs to: stores on one database URI share one pool
   * (PostgreSQL). The service passes its own; a store opened alone has its own connection.
   */
  connections?: ConnectionShare;
}

/** A parsed state store URI (parseStateUri): `kind` is what opens it, `path` the LMDB folder. */
export type StateTarget = BackendTarget;

/** The namespace markUsed() writes to. */
export const USED_NS = 'used';

/**
 * How long a spent id is remembered: until its token expires, and at least a minute, so an id whose
 * token is already expired is still refused the same way (the same rule as memoryUsedTokenStore).
 */
export function usedUntil(expiresAtMs: number, now: number): number {
  return Math.max(expiresAtMs, now + 60_000);
}

/**
 * markUsed() for every store: a spent id is one create() in the USED_NS namespace, so "first caller wins"
 * is exactly create()'s atomicity, whatever the backend.
 */
export function markUsedWith(
  store: Pick<StateStore, 'create'>,
  id: string,
  expiresAtMs: number,
  now: number,
): Promise<boolean> {
  if (typeof id !== 'string' || id === '') throw new TypeError('markUsed() requires a non-empty id');
  return store.create(USED_NS, id, 1, usedUntil(expiresAtMs, now));
}

/**
 * A fresh revision tag for the stores other processes share: 64 random bits, enough that two writes never share one.
 */
export function rev(): string {
  return randomBytes(8).toString('hex');
}

/** True when `value` has the methods a StateStore needs. */
export function isStateStore(value: unknown): value is StateStore {
  const s = value as Partial<StateStore> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    ['create', 'get', 'replace', 'take', 'remove', 'sweep', 'markUsed', 'close'].every(
      (m) => typeof (s as Record<string, unknown>)[m] === 'function',
    )
  );
}

/** Argument checks shared by the stores: empty or non-string keys are programming errors. */
export function checkKey(call: string, ns: string, key: string): void {
  if (typeof ns !== 'string' || ns === '' || ns.includes('\u0000'))
    throw new TypeError(`${call}() requires a non-empty namespace without NUL`);
  if (typeof key !== 'string' || key === '') throw new TypeError(`${call}() requires a non-empty key`);
  if (key.length > 512) throw new TypeError(`${call}() key is longer than 512 characters`);
}

export function checkLimitKeys(ns: string, keys: readonly LimitKey[], windowMs: number): void {
  // Checked as unknown (JavaScript callers): narrowing a readonly array by isArray would make it any[].
  const given: unknown = keys;
  if (!Array.isArray(given) || keys.length === 0) throw new TypeError('hit() requires at least one key');
  for (const { key, limit } of keys) {
    checkKey('hit', ns, key);
    if (!Number.isInteger(limit) || limit < 1) throw new TypeError('hit() requires each limit as a positive integer');
  }
  if (!Number.isInteger(windowMs) || windowMs < 1) throw new TypeError('hit() requires windowMs as a positive integer');
}

export function checkExpiry(call: string, expiresAtMs: number): void {
  if (typeof expiresAtMs !== 'number' || !Number.isFinite(expiresAtMs))
    throw new TypeError(`${call}() requires expiresAtMs as a finite number`);
}

/** A state value as the network stores keep it: its JSON text; a value JSON cannot hold is a TypeError. */
export function encodeValue(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('state values must be JSON data');
  return json;
}
