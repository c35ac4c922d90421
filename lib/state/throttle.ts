import { parseDuration, type Duration } from '../util/duration.js';
import { clientKey } from '../http/client-key.js';
import { promised } from '../util/promised.js';
import type { StateEntry, StateStore } from './types.js';

/** How failed credential logins are throttled (the `loginThrottle` option). */
export interface LoginThrottleOptions {
  /**
   * Failed attempts for one user name from one client (IP address, IPv6 /64) before that pair is locked out. Default 5.
   */
  perUser?: number;
  /**
   * Failed attempts for one user name from all clients together before the name is locked out for
   * everyone. Default 50: higher than `perUser`, so one guesser cannot lock the owner out, and still a
   * ceiling for guessers spread over many addresses. See docs/security.md for the trade-off.
   */
  perUserTotal?: number;
  /** Failed attempts from one client (`ctx.ip`; an IPv6 address by its /64) before it is locked out. Default 50. */
  perIP?: number;
  /** The first lock-out; each further one doubles, up to `maxLockout`. Default 1 minute. */
  lockout?: Duration;
  /** The longest a lock-out lasts, however often it recurs. Default 15 minutes. */
  maxLockout?: Duration;
  /** A key's failures and lock-out count are forgotten this long after its last failure. Default 1 hour. */
  forgetAfter?: Duration;
}

/** Failed-login counting for one provider (or the local server, or basic auth). */
export interface CredentialThrottle {
  /**
   * Reserves one attempt for `user` from `ip` before the checker runs, counted as a failure until the
   * attempt says otherwise: of any number of parallel attempts, at most the limit's number get through.
   */
  attempt(user: string, ip: string): Promise<Attempt>;
}

/** One login attempt, reserved before the checker ran. */
export interface Attempt {
  /**
   * The ms until this name or client may try again; undefined when the attempt was reserved. Refuse without checking
   * when set.
   */
  readonly wait: number | undefined;
  /** The checker refused: the reservation stays counted (nothing more to write). */
  failed(): Promise<void>;
  /** The checker accepted: this client's failures for the name are forgotten, and the other reservations given back. */
  succeeded(): Promise<void>;
  /** The checker could not decide (it threw): every reservation is given back, since the fault is not the caller's. */
  abandoned(): Promise<void>;
}

/**
 * One key's record: attempts counted since its last lock-out, how many lock-outs so far, and when the current one ends.
 */
interface Failures {
  n: number;
  locks: number;
  until: number;
}

export const THROTTLE_NS = 'throttle';

/** Settled options, checked once. */
export interface ThrottlePolicy {
  perUser: number;
  perUserTotal: number;
  perIP: number;
  lockoutMs: number;
  maxLockoutMs: number;
  forgetMs: number;
}

type Count = 'perUser' | 'perUserTotal' | 'perIP';

/** Checks `loginThrottle` (false turns throttling off) and fills in the defaults. */
export function throttlePolicy(input: unknown, option = 'loginThrottle'): ThrottlePolicy | undefined {
  if (input === false) return undefined;
  if (input !== undefined && (typeof input !== 'object' || input === null))
    throw new TypeError(
      `authKoa: ${option} must be false or { perUser, perUserTotal, perIP, lockout, maxLockout, forgetAfter }`,
    );
  const o = (input ?? {}) as LoginThrottleOptions;
  const count = (key: Count, dflt: number) => {
    const v = o[key];
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
      throw new TypeError(`authKoa: ${option}.${key} must be a positive integer`);
    return v;
  };
  const duration = (key: 'lockout' | 'maxLockout' | 'forgetAfter', dflt: string) => {
    try {
      return parseDuration(o[key] ?? dflt, key);
    } catch (err) {
      throw new TypeError(`authKoa: ${option}.${(err as Error).message}`);
    }
  };
  const perUser = count('perUser', 5);
  const policy = {
    perUser,
    perUserTotal: count('perUserTotal', Math.max(50, perUser)),
    perIP: count('perIP', 50),
    lockoutMs: duration('lockout', '1m'),
    maxLockoutMs: duration('maxLockout', '15m'),
    forgetMs: duration('forgetAfter', '1h'),
  };
  if (policy.maxLockoutMs < policy.lockoutMs)
    throw new TypeError(`authKoa: ${option}.maxLockout must not be shorter than lockout`);
  if (policy.perUserTotal < policy.perUser)
    throw new TypeError(`authKoa: ${option}.perUserTotal must not be lower than perUser`);
  return policy;
}

/** Attempts of one compare-and-set before giving up on counting: a key that busy is under a flood, and is refused. */
const CAS_TRIES = 64;

/** What a reservation on one key did, so it can be given back exactly. */
interface Reserved {
  key: string;
  /** The key as a lock-out event names it: `pair:<name>@<client>`, `user:<name>`, `ip:<client>`. */
  label: string;
  limit: number;
  /** The lock-out this reservation started (its `until`), when it was the one that reached the limit. */
  locked?: number;
}

/**
 * Failed-attempt counting in a state store under `scope` (a provider name), so every process sharing
 * the store shares the counts. Three counters: the user name from this client (`perUser`), the name
 * from every client (`perUserTotal`) and the client alone (`perIP`); a client is its IPv4 address or
 * IPv6 /64 (see clientKey()).
 *
 * Each attempt is reserved on all three before the checker runs, by compare-and-set, and counts as a
 * failure unless the checker accepts: so parallel attempts cannot all pass a check made before any of
 * them failed. The reservation that reaches a limit locks the key out for `lockout`, doubling with each
 * further lock-out up to `maxLockout`; attempts while locked out are refused without reaching the
 * checker and without being counted, so a lock-out always ends. Unknown and known user names are
 * counted alike, so the answers never tell them apart.
 */
export function credentialThrottle(
  store: StateStore,
  policy: ThrottlePolicy,
  scope: string,
  clock: () => number,
  /** Told when a failed attempt locks a key out (the `lockout` event). */
  onLockout?: (lock: { scope: string; key: string; until: number }) => void,
): CredentialThrottle {
  /** The record after one more attempt: a lock-out when it reaches the limit. */
  const next = (r: Failures, limit: number, now: number): Failures => {
    if (r.n + 1 < limit) return { n: r.n + 1, locks: r.locks, until: 0 };
    const locks = r.locks + 1;
    return { n: 0, locks, until: now + Math.min(policy.lockoutMs * 2 ** Math.min(locks - 1, 30), policy.maxLockoutMs) };
  };
  const expiry = (r: Failures, now: number) => Math.max(r.until, now) + policy.forgetMs;
  const live = (e: StateEntry<Failures> | undefined, now: number) => (e && e.expiresAt > now ? e : undefined);

  /** Counts one attempt on `key` unless it is locked out: the reservation, or the ms to wait. */
  const reserve = async (key: string, label: string, limit: number): Promise<Reserved | number> => {
    for (let i = 0; i < CAS_TRIES; i++) {
      const now = clock();
      const e = live(await store.get<Failures>(THROTTLE_NS, key), now);
      if (e && e.value.until > now) return e.value.until - now;
      const updated = next(e?.value ?? { n: 0, locks: 0, until: 0 }, limit, now);
      const written = e
        ? await store.replace(THROTTLE_NS, key, e.rev, updated, expiry(updated, now))
        : await store.create(THROTTLE_NS, key, updated, expiry(updated, now));
      if (written) return { key, label, limit, locked: updated.until || undefined };
    }
    return policy.lockoutMs;
  };

  /** Takes one reservation back: the lock-out it started, or one count. */
  const release = async (r: Reserved): Promise<void> => {
    for (let i = 0; i < CAS_TRIES; i++) {
      const now = clock();
      const e = live(await store.get<Failures>(THROTTLE_NS, r.key), now);
      if (!e) return;
      const v = e.value;
      let back: Failures;
      if (r.locked !== undefined && v.until === r.locked) back = { n: r.limit - 1, locks: v.locks - 1, until: 0 };
      else if (v.until <= now && v.n > 0) back = { n: v.n - 1, locks: v.locks, until: 0 };
      else return; // a lock-out another attempt started stands
      if (await store.replace(THROTTLE_NS, r.key, e.rev, back, e.expiresAt)) return;
    }
  };

  return {
    async attempt(user, ip) {
      const name = normalise(user);
      const client = clientKey(ip);
      const keys: Array<[string, string, number]> = [
        [`${scope}:uc:${client}:${name}`, `pair:${name}@${client}`, policy.perUser],
        [`${scope}:u:${name}`, `user:${name}`, policy.perUserTotal],
        [`${scope}:ip:${client}`, `ip:${client}`, policy.perIP],
      ];
      const giveBack = (rs: Reserved[]) => Promise.all(rs.map(release)).then(() => undefined);
      // One key after the other, the narrowest first: a burst on one name stops at its first lock-out
      // and never contends for the wider counters, which other names share.
      const held: Reserved[] = [];
      for (const [key, label, limit] of keys) {
        const r = await reserve(key, label, limit);
        if (typeof r === 'number') {
          // Refused: what this attempt counted on the narrower keys is given back, so waiting out a
          // lock-out does not extend another.
          await giveBack(held);
          return { wait: r, failed: async () => {}, succeeded: async () => {}, abandoned: async () => {} };
        }
        held.push(r);
      }
      const [pair, ...rest] = held as [Reserved, Reserved, Reserved];
      return {
        wait: undefined,
        // The failure stands, so a lock-out this attempt started is now real.
        failed: () =>
          promised(() => {
            for (const r of held) if (r.locked !== undefined) onLockout?.({ scope, key: r.label, until: r.locked });
          }),
        succeeded: async () => {
          await Promise.all([store.remove(THROTTLE_NS, pair.key), giveBack(rest)]);
        },
        abandoned: () => giveBack(held),
      };
    },
  };
}

/**
 * User names compare case-insensitively and without surrounding space, as most checkers do, so a
 * guesser gains nothing by varying them; a name too long for a store key is counted by its prefix and
 * length (still one key per name in practice, since the checkers cap names well below that).
 */
function normalise(user: string): string {
  const u = user.trim().toLowerCase();
  return u.length <= 256 ? u : `${u.slice(0, 240)}…${u.length}`;
}
