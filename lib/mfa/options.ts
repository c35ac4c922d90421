import { parseStateUri } from '../state/open.js';
import { isStateStore, type StateStore, type StateTarget } from '../state/types.js';
import type { User } from '../user.js';
import { parseDuration, type Duration } from '../util/duration.js';
import { optionNames, unknownOption } from '../util/options.js';
// Types only: the store's code loads with the rest of lib/mfa/, when the option is set.
import type { FactorStore } from './store.js';
import { requireDurable } from '../util/store-policy.js';

/** The `mfa` option: a second factor after every login, and step-up for the routes that change it. */
export interface MfaOptions {
  /**
   * Where second factors (TOTP keys, hashed recovery codes) live: a state store URI (`lmdb://./var/mfa`,
   * `redis://…`, `mongodb://…`, a registered scheme), a StateStore, or a FactorStore. Durable data: never
   * the short-lived `stateStore`, never `memory://` outside tests.
   */
  store: string | StateStore | FactorStore;
  /** The name authenticator apps show beside the account. Default: the host of `url`. */
  issuer?: string;
  /**
   * Whether a user must pass a second factor: `true` sends every user without one to set one up after
   * their first login; a function decides per user (after the postAuthHook). Default `false`: only users
   * who turned a factor on are asked.
   */
  required?: boolean | ((user: User) => boolean | Promise<boolean>);
  /** TOTP steps of 30 s accepted either side of now, for phones whose clock drifts. Default 1. */
  window?: number;
  /**
   * The page that asks for the second step; logins that end in a redirect go there. Default `<authRoutePath>/mfa/page`.
   */
  page?: string;
  /** How recent a login the routes that change factors need (setup, removal, new recovery codes). Default '5m'. */
  fresh?: Duration;
  /**
   * The secret the TOTP keys are sealed with and the partial token signed with: by default a key derived
   * from `secret`. Required when the service has only a `secretReader`.
   */
  secret?: string;
  /** Earlier values of `mfa.secret` (or of `secret`), still opening keys sealed under them until rotated. */
  previousSecrets?: string[];
}

/** The `mfa` option checked, every default filled in. */
export interface MfaConfig {
  /** The store URI parsed, or the object given. */
  store: StateTarget | StateStore | FactorStore;
  issuer: string;
  /** Undefined when every user without a factor may skip it. */
  required: ((user: User) => boolean | Promise<boolean>) | undefined;
  window: number;
  /** Absolute path or URL of the second-step page. */
  page: string;
  freshMs: number;
  /** The root secret every MFA key derives from, and the earlier ones. */
  secret: string;
  previousSecrets: string[];
  /** How long a partial login (first factor passed, second pending) lasts: 5 minutes. */
  partialMs: number;
}

const MFA_OPTIONS = optionNames<MfaOptions>({
  store: true,
  issuer: true,
  required: true,
  window: true,
  page: true,
  fresh: true,
  secret: true,
  previousSecrets: true,
});

/** What the `mfa` reader needs from the options read before it. */
export interface MfaOptionsContext {
  url: string;
  authRoutePath: string;
  /** The `secret` option; undefined when a secretReader decides. */
  staticSecret: string | undefined;
  previousSecrets: string[];
  /** `allowVolatileStores`: a memory `mfa.store` is accepted (tests, demos). */
  allowVolatileStores: boolean;
}

const fail = (key: string, must: string): never => {
  throw new TypeError(`authKoa: mfa.${key} ${must}`);
};

/** Checks the `mfa` option (a TypeError naming `mfa.<key>`); undefined when it is not set. */
export function readMfaOptions(input: unknown, ctx: MfaOptionsContext): MfaConfig | undefined {
  if (input === undefined || input === false) return undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError('authKoa: mfa must be an object: { store, issuer?, required?, window?, page?, fresh? }');
  const o = input as MfaOptions;
  for (const key of Object.keys(o)) {
    // Named with its place: `unknown option "mfa.windw" (did you mean "window"?)`.
    if (!MFA_OPTIONS.includes(key))
      throw new TypeError(`authKoa: ${unknownOption(key, MFA_OPTIONS).replace('"', '"mfa.')}`);
  }
  const window = o.window ?? 1;
  if (!Number.isInteger(window) || window < 0 || window > 10)
    fail('window', 'must be a whole number of 30-second steps from 0 to 10');
  const required = o.required;
  if (required !== undefined && typeof required !== 'boolean' && typeof required !== 'function')
    fail('required', 'must be a boolean or a function (user) => boolean');
  const issuer = o.issuer ?? new URL(ctx.url).hostname;
  if (typeof issuer !== 'string' || issuer === '' || issuer.includes(':'))
    fail('issuer', 'must be a non-empty string without ":"');
  const page = o.page ?? `${ctx.authRoutePath}/mfa/page`;
  if (typeof page !== 'string' || !(page.startsWith('/') || /^https?:\/\//.test(page)))
    fail('page', "must be a path starting with '/' or an http(s) URL");
  let freshMs: number;
  try {
    freshMs = parseDuration(o.fresh ?? '5m', 'mfa.fresh');
  } catch (err) {
    return fail('fresh', (err as Error).message.slice('mfa.fresh '.length));
  }
  const secret = o.secret ?? ctx.staticSecret;
  if (secret === undefined) fail('secret', 'is required when the service has a secretReader instead of a secret');
  if (typeof secret !== 'string' || secret.length < 16) fail('secret', 'must be a string of at least 16 characters');
  const previous = o.previousSecrets ?? (o.secret === undefined ? ctx.previousSecrets : []);
  if (!Array.isArray(previous) || !previous.every((s) => typeof s === 'string' && s !== ''))
    fail('previousSecrets', 'must be an array of non-empty strings');
  return {
    store: readStore(o.store, ctx.allowVolatileStores),
    issuer,
    required: required === true ? () => true : typeof required === 'function' ? required : undefined,
    window,
    page,
    freshMs,
    secret: secret!,
    previousSecrets: previous,
    partialMs: 5 * 60_000,
  };
}

function readStore(store: unknown, allowVolatile: boolean): MfaConfig['store'] {
  if (store === undefined)
    return fail(
      'store',
      "is required: where second factors are kept, e.g. 'lmdb://./var/mfa' (durable; not the stateStore)",
    );
  const read = typeof store === 'string' ? parseStateUri(store, 'mfa.store') : store;
  if (typeof store !== 'string' && !isStateStore(store) && !isFactorStore(store)) {
    return fail('store', 'must be a state store URI, a StateStore or a FactorStore ({ get, set })');
  }
  // Every user's second factor would be gone at the next restart, and with it their way in.
  const volatile = isStateStore(read) ? read.volatile === true : (read as StateTarget).kind === 'memory';
  requireDurable({ volatile }, 'authKoa: mfa.store', 'every second factor', allowVolatile);
  return read as MfaConfig['store'];
}

/** True when `value` has get() and set() and is not a StateStore (which the caller wraps with stateFactorStore). */
export function isFactorStore(value: unknown): value is FactorStore {
  if (typeof value !== 'object' || value === null || isStateStore(value)) return false;
  const s = value as Record<string, unknown>;
  return typeof s.get === 'function' && typeof s.set === 'function';
}
