import { parseDuration, type Duration } from '../util/duration.js';
import type { StateEntry, StateStore } from './types.js';

/** How failed credential logins are throttled (the `loginThrottle` option). */
export interface LoginThrottleOptions {
  /** Failed attempts for one user name before it is locked out. Default 5. */
  perUser?: number;
  /** Failed attempts from one client IP (`ctx.ip`) before it is locked out. Default 50. */
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
  /** Looks `user` and `ip` up before the checker runs (one store round trip). */
  attempt(user: string, ip: string): Promise<Attempt>;
}

/** One login attempt, as the throttle saw it before the checker ran. */
export interface Attempt {
  /** The ms until `user` or `ip` may try again; undefined when neither is locked out. Refuse without checking when set. */
  readonly wait: number | undefined;
  /** The checker refused: counts against the user name and the IP; the one that reaches a limit starts a lock-out. */
  failed(): Promise<void>;
  /** The checker accepted: the user name's failures are forgotten (the IP's are not). Free when it had none. */
  succeeded(): Promise<void>;
}

/** One key's record: failures since its last lock-out, how many lock-outs so far, and when the current one ends. */
interface Failures {
  n: number;
  locks: number;
  until: number;
}

export const THROTTLE_NS = 'throttle';

/** Settled options, checked once. */
export interface ThrottlePolicy {
  perUser: number;
  perIP: number;
  lockoutMs: number;
  maxLockoutMs: number;
  forgetMs: number;
}

/** Checks `loginThrottle` (false turns throttling off) and fills in the defaults. */
export function throttlePolicy(input: unknown, option = 'loginThrottle'): ThrottlePolicy | undefined {
  if (input === false) return undefined;
  if (input !== undefined && (typeof input !== 'object' || input === null)) throw new TypeError(`authKoa: ${option} must be false or { perUser, perIP, lockout, maxLockout, forgetAfter }`);
  const o = (input ?? {}) as LoginThrottleOptions;
  const count = (key: 'perUser' | 'perIP', dflt: number) => {
    const v = o[key];
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new TypeError(`authKoa: ${option}.${key} must be a positive integer`);
    return v;
  };
  const duration = (key: 'lockout' | 'maxLockout' | 'forgetAfter', dflt: string) => {
    try {
      return parseDuration(o[key] ?? dflt, key);
    } catch (err) {
      throw new TypeError(`authKoa: ${option}.${(err as Error).message}`);
    }
  };
  const policy = {
    perUser: count('perUser', 5),
    perIP: count('perIP', 50),
    lockoutMs: duration('lockout', '1m'),
    maxLockoutMs: duration('maxLockout', '15m'),
    forgetMs: duration('forgetAfter', '1h'),
  };
  if (policy.maxLockoutMs < policy.lockoutMs) throw new TypeError(`authKoa: ${option}.maxLockout must not be shorter than lockout`);
  return policy;
}

/** Attempts of one compare-and-set before giving up on counting (a flood on one key is locked out already). */
const CAS_TRIES = 8;

/**
 * Failed-attempt counting in a state store, per user name and per client IP, under `scope` (a provider
 * name), so every process sharing the store shares the counts. Reaching a limit locks the key out for
 * `lockout`, doubling with each further lock-out up to `maxLockout`; attempts while locked out are
 * refused without reaching the checker and without being counted, so a lock-out always ends and an
 * attacker must fail `perUser` times again to start the next one. Unknown and known user names are
 * counted alike, so the answers never tell them apart.
 */
export function credentialThrottle(store: StateStore, policy: ThrottlePolicy, scope: string, clock: () => number): CredentialThrottle {
  const userKey = (user: string) => `${scope}:u:${normalise(user)}`;
  const ipKey = (ip: string) => `${scope}:ip:${ip || 'unknown'}`;

  const lockedFor = (e: StateEntry<Failures> | undefined, now: number): number | undefined =>
    e && e.expiresAt > now && e.value.until > now ? e.value.until - now : undefined;

  const count = async (key: string, limit: number): Promise<void> => {
    for (let i = 0; i < CAS_TRIES; i++) {
      const now = clock();
      const e = await store.get<Failures>(THROTTLE_NS, key);
      if (!e || e.expiresAt <= now) {
        const first = next({ n: 0, locks: 0, until: 0 }, limit, now);
        if (await store.create(THROTTLE_NS, key, first, expiry(first, now))) return;
        continue;
      }
      if (e.value.until > now) return; // locked out: this attempt never reached the checker
      const updated = next(e.value, limit, now);
      if (await store.replace(THROTTLE_NS, key, e.rev, updated, expiry(updated, now))) return;
    }
  };

  /** The record after one more failure: a lock-out when it reaches the limit. */
  const next = (r: Failures, limit: number, now: number): Failures => {
    if (r.n + 1 < limit) return { n: r.n + 1, locks: r.locks, until: 0 };
    const locks = r.locks + 1;
    return { n: 0, locks, until: now + Math.min(policy.lockoutMs * 2 ** Math.min(locks - 1, 30), policy.maxLockoutMs) };
  };
  const expiry = (r: Failures, now: number) => Math.max(r.until, now) + policy.forgetMs;

  return {
    async attempt(user, ip) {
      const now = clock();
      const uk = userKey(user);
      const ik = ipKey(ip);
      const [ue, ie] = await Promise.all([store.get<Failures>(THROTTLE_NS, uk), store.get<Failures>(THROTTLE_NS, ik)]);
      const u = lockedFor(ue, now);
      const i = lockedFor(ie, now);
      return {
        wait: u === undefined && i === undefined ? undefined : Math.max(u ?? 0, i ?? 0),
        failed: async () => void (await Promise.all([count(uk, policy.perUser), count(ik, policy.perIP)])),
        succeeded: async () => {
          if (ue) await store.remove(THROTTLE_NS, uk);
        },
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
