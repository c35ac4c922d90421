import { parseDuration, type Duration } from '../util/duration.js';
import { unknownOption } from '../util/options.js';
import { isVolatileStateOption, requireDurable } from '../util/store-policy.js';
import { checkPrefix, DEFAULT_PREFIX } from './format.js';
import type { LookupThrottleConfig } from './lookup-throttle.js';

/** The `tokens` option: personal access tokens for the accounts' users (docs/accounts.md#personal-access-tokens). */
export interface PersonalTokensOptions {
  /** What every token starts with, before `_` (default `akp`): secret scanners look for it. 2–10 of `a-z0-9`. */
  prefix?: string;
  /**
   * How long a process trusts a token it verified (default '30s'): a token revoked or expired in another process
   * is refused here within this delay. With `strictRevocation`, every use reads the store and it is refused at once.
   */
  revocationDelay?: Duration;
  /** How many verified tokens each process keeps in memory (default 10000; the least recently used go). */
  cacheSize?: number;
  /** How many live tokens one user may hold (default 50): one more is 409 `too_many_tokens`. */
  maxPerUser?: number;
  /**
   * The longest life a token may ask for with `expiresIn`, and the life of one that asks none. Default: none, so a
   * token without `expiresIn` works until revoked.
   */
  maxLifetime?: Duration;
  /** The scope names a token may hold: another one is 400 `invalid_scope`. Default: any name. */
  scopes?: string[];
  /** How recent the login that creates a token must be (default '5m'): older is 401 `reauth_required`. */
  fresh?: Duration;
  /**
   * Bearer tokens of the right shape that the store does not know, per client (IPv4 address, IPv6 /64), before that
   * client's personal tokens are refused 429 `rate_limited` for the rest of the window, with no store read. Default
   * `{ limit: 20, window: '1m' }`; `false` counts nothing.
   */
  failedLookups?: false | { limit?: number; window?: Duration };
}

/** The `tokens` option, checked. */
export interface PersonalTokensConfig {
  readonly prefix: string;
  readonly revocationDelayMs: number;
  readonly cacheSize: number;
  readonly maxPerUser: number;
  readonly maxLifetimeMs: number | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly freshMs: number;
  /** Undefined: not counted (`failedLookups: false`). */
  readonly failedLookups: LookupThrottleConfig | undefined;
}

/** What the `tokens` reader needs from the options read before it. */
export interface PersonalTokensOptionsContext {
  /** `accounts` is set: the tokens belong to its users, and go with an account that is deleted. */
  accounts: boolean;
  /** `stateStore` as given: where the tokens' hashes are kept, which must outlive the process. */
  stateStore: unknown;
  /** `allowVolatileStores`: a memory state store is accepted (tests, demos). */
  allowVolatileStores: boolean;
}

const TOKENS_OPTIONS = [
  'prefix',
  'revocationDelay',
  'cacheSize',
  'maxPerUser',
  'maxLifetime',
  'scopes',
  'fresh',
  'failedLookups',
];
const SCOPE = /^[A-Za-z0-9:._-]{1,64}$/;

/** Checks the `tokens` option (a TypeError naming `tokens.<key>`); undefined when it is not set. */
export function readTokensOptions(input: unknown, ctx: PersonalTokensOptionsContext): PersonalTokensConfig | undefined {
  if (input === undefined || input === false) return undefined;
  if (input === true) input = {};
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError("authKoa: tokens must be true or an object: { prefix: 'akp' }");
  for (const key of Object.keys(input)) {
    if (!TOKENS_OPTIONS.includes(key))
      throw new TypeError(`authKoa: ${unknownOption(key, TOKENS_OPTIONS).replace('"', '"tokens.')}`);
  }
  if (!ctx.accounts)
    throw new TypeError("authKoa: tokens needs accounts: { store: 'lmdb://…' } (a token belongs to an account)");
  // Every token would stop working at the next restart, and its owner would not know why.
  requireDurable(
    { volatile: isVolatileStateOption(ctx.stateStore) },
    'authKoa: stateStore (where tokens keeps its hashes)',
    'every personal token',
    ctx.allowVolatileStores,
    'lmdb://<path>, redis:// with persistence, postgres://…, mongodb://…',
  );
  const o = input as PersonalTokensOptions;
  const count = (value: unknown, option: string, fallback: number) => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || (value as number) < 1)
      throw new TypeError(`authKoa: tokens.${option} must be a positive integer`);
    return value as number;
  };
  return {
    prefix: o.prefix === undefined ? DEFAULT_PREFIX : checkPrefix(o.prefix, 'authKoa: tokens.prefix'),
    revocationDelayMs: parseDuration(o.revocationDelay ?? '30s', 'authKoa: tokens.revocationDelay'),
    cacheSize: count(o.cacheSize, 'cacheSize', 10_000),
    maxPerUser: count(o.maxPerUser, 'maxPerUser', 50),
    maxLifetimeMs:
      o.maxLifetime === undefined ? undefined : parseDuration(o.maxLifetime, 'authKoa: tokens.maxLifetime'),
    scopes: readScopes(o.scopes),
    freshMs: parseDuration(o.fresh ?? '5m', 'authKoa: tokens.fresh'),
    failedLookups: readFailedLookups(o.failedLookups),
  };
}

/** `tokens.failedLookups`: false, or `{ limit, window }` with the defaults filled in. */
function readFailedLookups(input: unknown): LookupThrottleConfig | undefined {
  if (input === false) return undefined;
  const option = 'authKoa: tokens.failedLookups';
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input)))
    throw new TypeError(`${option} must be false or { limit, window }: { limit: 20, window: '1m' }`);
  const o = (input ?? {}) as { limit?: unknown; window?: unknown };
  for (const key of Object.keys(o))
    if (key !== 'limit' && key !== 'window')
      throw new TypeError(`${option} takes limit and window, not ${JSON.stringify(key)}`);
  if (o.limit !== undefined && (!Number.isInteger(o.limit) || (o.limit as number) < 1))
    throw new TypeError(`${option}.limit must be a positive integer`);
  // Whole milliseconds, as the store's counters keep them.
  const windowMs = Math.ceil(parseDuration((o.window ?? '1m') as Duration, `${option}.window`));
  return { limit: (o.limit as number | undefined) ?? 20, windowMs };
}

function readScopes(scopes: unknown): readonly string[] | undefined {
  if (scopes === undefined) return undefined;
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !SCOPE.test(s)))
    throw new TypeError('authKoa: tokens.scopes must be an array of scope names (letters, digits and :._-)');
  return Object.freeze([...new Set(scopes as string[])]);
}

/** Whether a scope name has the shape every scope must have. */
export function isScopeName(s: unknown): s is string {
  return typeof s === 'string' && SCOPE.test(s);
}
