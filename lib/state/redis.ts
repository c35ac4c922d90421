import { Redis } from 'ioredis';
import { parseRedisUri } from './redis-uri.js';
import { CREATE, HIT, REPLACE, SWEEP, TAKE } from './redis-scripts.js';
import { PUBLISH, redisBroadcast, type BroadcastRedis } from './redis-broadcast.js';
import type { Broadcast } from './broadcast.js';
import {
  checkExpiry,
  checkKey,
  checkLimitKeys,
  encodeValue,
  markUsedWith,
  rev,
  type LimitKey,
  type StateEntry,
  type StateStore,
  type StateStoreOptions,
} from './types.js';

/** Options of a Redis state store beyond the URI. */
export interface RedisStateStoreOptions extends StateStoreOptions {
  /** Prepended to every key, so several applications share one Redis. Default `authkoa:` (URI: `?prefix=`). */
  prefix?: string;
  /** How long one command may take before it fails, in ms. Default 2000 (URI: `?timeout=`). */
  timeoutMs?: number;
}

/** The scripted commands, as ioredis's defineCommand() adds them (EVALSHA, with EVAL after a script flush). */
interface ScriptedRedis extends BroadcastRedis {
  authkoaCreate(key: string, now: number, value: string, exp: number, rev: string, ttl: number): Promise<number>;
  authkoaReplace(
    key: string,
    now: number,
    expected: string,
    value: string,
    exp: number,
    rev: string,
    ttl: number,
  ): Promise<number>;
  authkoaTake(key: string, expected: string): Promise<number>;
  authkoaSweep(numKeys: number, ...args: (string | number)[]): Promise<number>;
  authkoaHit(numKeys: number, ...args: (string | number)[]): Promise<number>;
}

/** Server answers that no reconnect will fix: the URI's password, user or database is wrong. */
const CONFIG_ERROR = /WRONGPASS|NOAUTH|NOPERM|invalid password|DB index is out of range/i;

/**
 * State in Redis, shared by every process and host that uses the same server and prefix. Each write is
 * one Lua script (create, replace, take, hit) or one command (remove), so it is atomic across all of
 * them. Expiry is the caller's clock, stored with the entry, plus a Redis TTL that drops it.
 *
 * While the server is away nothing is queued: a call fails at once (the service answers 503) and the
 * client reconnects in the background, so the app recovers by itself when Redis is back. (A server
 * away at start-up fails the open; the service opens again on the next use.)
 */
export class RedisStateStore implements StateStore {
  /** The URI with any password replaced by `***`: safe to log. */
  readonly uri: string;
  readonly prefix: string;
  readonly #client: ScriptedRedis;
  readonly #clock: () => number;
  #lastError: Error | undefined;
  #closed = false;

  constructor(uri: string, opts: RedisStateStoreOptions = {}) {
    const target = parseRedisUri(uri);
    this.uri = target.redacted;
    this.prefix = opts.prefix ?? target.prefix;
    if (typeof this.prefix !== 'string') throw new TypeError('authKoa: stateStore: prefix must be a string');
    const timeoutMs = opts.timeoutMs ?? target.timeoutMs;
    this.#clock = opts.clock ?? Date.now;
    this.#client = new Redis({
      ...target.options,
      lazyConnect: true,
      // No offline queue and no replays: a command either reaches a connected server or fails now, so
      // an outage costs each request one quick 503, never a growing buffer or a hung request.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    }) as ScriptedRedis;
    // Remembered for the next failure's message; without a listener ioredis would print them itself.
    this.#client.on('error', (err: Error) => (this.#lastError = err));
    this.#client.on('ready', () => (this.#lastError = undefined));
    this.#client.defineCommand('authkoaCreate', { numberOfKeys: 1, lua: CREATE });
    this.#client.defineCommand('authkoaReplace', { numberOfKeys: 1, lua: REPLACE });
    this.#client.defineCommand('authkoaTake', { numberOfKeys: 1, lua: TAKE });
    this.#client.defineCommand('authkoaSweep', { lua: SWEEP });
    this.#client.defineCommand('authkoaHit', { lua: HIT });
    this.#client.defineCommand('authkoaPublish', { numberOfKeys: 1, lua: PUBLISH });
    this.broadcast = redisBroadcast(this.#client, (topic) => this.#key('bc', topic));
  }

  /** What one process publishes, every process following the topic receives (redis-broadcast.ts). */
  readonly broadcast: Broadcast;

  /**
   * Connects and checks the credentials and database. A refused password or a database out of range
   * rejects with a TypeError (no retry will fix it), a server that cannot be reached with an Error;
   * either way the client is closed. Once connected, an outage is ridden out by reconnecting.
   */
  async connect(): Promise<void> {
    try {
      await this.#client.connect();
      // ioredis reports a failed SELECT only as an event and carries on in database 0: ask ourselves.
      await this.#client.select(this.#client.options.db ?? 0);
    } catch (err) {
      const cause = CONFIG_ERROR.test(String(this.#lastError?.message))
        ? this.#lastError!
        : (this.#lastError ?? (err as Error));
      this.#closed = true;
      this.#client.disconnect();
      if (CONFIG_ERROR.test(cause.message)) throw new TypeError(`authKoa: stateStore ${this.uri}: ${cause.message}`);
      throw new Error(`redis ${this.uri} is unavailable (${cause.message})`, { cause });
    }
  }

  async create(ns: string, key: string, value: unknown, expiresAtMs: number): Promise<boolean> {
    checkKey('create', ns, key);
    checkExpiry('create', expiresAtMs);
    const now = this.#clock();
    const json = encodeValue(value);
    return (
      (await this.#run('create', (c) =>
        c.authkoaCreate(this.#key(ns, key), now, json, expiresAtMs, rev(), ttl(expiresAtMs, now)),
      )) === 1
    );
  }

  async get<V = unknown>(ns: string, key: string): Promise<StateEntry<V> | undefined> {
    checkKey('get', ns, key);
    const [v, e, r] = await this.#run('get', (c) => c.hmget(this.#key(ns, key), 'v', 'e', 'r'));
    if (v === null || e === null || r === null) return undefined;
    return { value: JSON.parse(v) as V, expiresAt: Number(e), rev: r };
  }

  async replace(ns: string, key: string, expected: string, value: unknown, expiresAtMs: number): Promise<boolean> {
    checkKey('replace', ns, key);
    checkExpiry('replace', expiresAtMs);
    const now = this.#clock();
    const json = encodeValue(value);
    const k = this.#key(ns, key);
    return (
      (await this.#run('replace', (c) =>
        c.authkoaReplace(k, now, String(expected), json, expiresAtMs, rev(), ttl(expiresAtMs, now)),
      )) === 1
    );
  }

  async take(ns: string, key: string, expected: string): Promise<boolean> {
    checkKey('take', ns, key);
    return (await this.#run('take', (c) => c.authkoaTake(this.#key(ns, key), String(expected)))) === 1;
  }

  async remove(ns: string, key: string): Promise<void> {
    checkKey('remove', ns, key);
    await this.#run('remove', (c) => c.del(this.#key(ns, key)));
  }

  /** Redis's TTLs sweep on their own; this removes entries the clock says are over before their TTL ran out. */
  async sweep(): Promise<number> {
    const now = this.#clock();
    const pattern = `${this.prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    let removed = 0;
    do {
      const [next, keys] = await this.#run('sweep', (c) => c.scan(cursor, 'MATCH', pattern, 'COUNT', 500));
      if (keys.length > 0) removed += await this.#run('sweep', (c) => c.authkoaSweep(keys.length, ...keys, now));
      cursor = next;
    } while (cursor !== '0');
    return removed;
  }

  async hit(ns: string, keys: readonly LimitKey[], windowMs: number): Promise<number | undefined> {
    checkLimitKeys(ns, keys, windowMs);
    const now = this.#clock();
    const args = [
      ...keys.map((k) => this.#key(ns, k.key)),
      now,
      windowMs,
      now + windowMs,
      ...keys.map((k) => k.limit),
      ...keys.map(() => rev()),
    ];
    const wait = await this.#run('hit', (c) => c.authkoaHit(keys.length, ...args));
    return wait < 0 ? undefined : wait;
  }

  async markUsed(id: string, expiresAtMs: number): Promise<boolean> {
    return markUsedWith(this, id, expiresAtMs, this.#clock());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#client.quit().catch(() => this.#client.disconnect());
  }

  /** `<prefix><ns>:<key>`; `%` and `:` in a namespace are escaped, so no two (ns, key) pairs share a key. */
  #key(ns: string, key: string): string {
    return `${this.prefix}${ns.replace(/[%:]/g, encodeURIComponent)}:${key}`;
  }

  /** Runs one command; a failure names the store (password redacted) and what the connection last reported. */
  async #run<T>(call: string, command: (c: ScriptedRedis) => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error(`state store is closed (${call})`);
    if (this.#client.status !== 'ready')
      throw new Error(`redis ${this.uri} is unavailable (${this.#lastError?.message ?? this.#client.status})`);
    try {
      return await command(this.#client);
    } catch (err) {
      throw new Error(`redis ${this.uri}: ${call} failed: ${(err as Error).message}`, { cause: err });
    }
  }
}

/**
 * The Redis TTL: the time left by the caller's clock, at least 1 ms (an expired entry is still written, as elsewhere).
 */
function ttl(expiresAtMs: number, now: number): number {
  return Math.max(1, Math.ceil(expiresAtMs - now));
}

/** The `redis` and `rediss` schemes' opener: connects and checks the credentials (see connect()). */
export async function openRedisStateStore(uri: string, opts: RedisStateStoreOptions = {}): Promise<RedisStateStore> {
  const store = new RedisStateStore(uri, opts);
  await store.connect();
  return store;
}
