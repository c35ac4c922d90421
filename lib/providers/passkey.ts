import { browserBinding, challengeStore, loginChallengeLimit } from './passkey/challenges.js';
import type { PasskeyConfig } from './passkey/config.js';
import { PASSKEY_ROUTE_DOCS } from './passkey/docs.js';
import {
  deleteRoute,
  listRoute,
  loginOptionsRoute,
  loginRoute,
  registrationOptionsRoute,
  registrationRoute,
  type PasskeyParts,
} from './passkey/routes.js';
import { passkeySecondFactor } from './passkey/second-factor.js';
import { statePasskeyStore } from './passkey/store.js';
import type { StateStore } from '../state/index.js';
import { providerState } from '../state/shared.js';
import { requireDurable } from '../util/store-policy.js';
import { parseDuration, type Duration } from '../util/duration.js';
import { optionNames } from '../util/options.js';
import type { Provider, ProviderDeps, ProviderDepsWith, ProviderModule, ProviderOptions } from './core/contract.js';

/** Options of a `kind: 'passkey'` provider: WebAuthn passkeys, added to an account and logged in with. */
export interface PasskeyProviderOptions {
  /** Implied by the name `passkey`. */
  kind?: 'passkey';
  /** Provider name; the routes are `/auth/<name>/…`. Default `passkey`. */
  name?: string;
  /** The name browsers show for the site. */
  rpName: string;
  /** The relying party id: the host of `url` (default) or a registrable suffix of it. */
  rpID?: string;
  /** Where passkeys are kept: a state store URI or object. Default: the service's `stateStore` (make it durable). */
  credentials?: string | StateStore;
  /** Whether the authenticator must verify the user (PIN, biometrics). Default `preferred`. */
  userVerification?: 'preferred' | 'required';
  /** How long a challenge may be answered. Default 5 minutes. */
  challengeTimeout?: Duration;
  /**
   * Login challenges (`login/options`, which anyone may ask for) per client per window, counted in the
   * state store; over it, 429 `rate_limited`. Default `{ perIP: 30, window: '5m' }`; `false` turns it off.
   */
  rateLimit?: { perIP?: number; window?: Duration } | false;
}

/**
 * Beyond the login context: the session user and the end of their other sessions, for the routes that add
 * and remove passkeys; the connections and the store policy, for its own `credentials` store.
 */
const PASSKEY_NEEDS = ['sessionUser', 'factorChanged', 'connections', 'stores'] as const;
type PasskeyNeed = (typeof PASSKEY_NEEDS)[number];

/**
 * The `passkey` kind (WebAuthn, on @simplewebauthn/server, an optional package). A logged-in user adds
 * passkeys; anyone logs in with one (discoverable credentials, no user name typed). Challenges live in
 * the service's state store and are spent on first use, so a replayed response is refused.
 */
export const passkeyProvider: ProviderModule<ProviderOptions, PasskeyNeed> = {
  kind: 'passkey',
  needs: PASSKEY_NEEDS,
  options: optionNames<PasskeyProviderOptions>({
    kind: true,
    name: true,
    rpName: true,
    rpID: true,
    credentials: true,
    userVerification: true,
    challengeTimeout: true,
    rateLimit: true,
  }),
  async create(input, deps: ProviderDepsWith<PasskeyNeed>): Promise<Provider> {
    const config = parsePasskeyOptions(input as unknown as PasskeyProviderOptions, deps);
    // Its own `credentials` store when it has one, else the service's.
    const own = providerState(config.credentials, deps.stateStore, {
      clock: deps.clock,
      option: 'credentials',
      connections: deps.connections,
      policy: deps.stores,
    });
    // Passkeys are durable: a memory store would lose every one of them at the next restart.
    const option = config.credentials === undefined ? 'credentials is unset and stateStore' : 'credentials';
    requireDurable(own.store, option, 'every passkey', deps.stores.allowVolatileStores);
    await own.start();
    const parts: PasskeyParts = {
      config,
      deps,
      passkeys: statePasskeyStore(own.store),
      challenges: challengeStore(config, deps),
      binding: browserBinding(config, deps),
      limit: loginChallengeLimit(config, deps),
    };
    return {
      name: config.name,
      kind: 'passkey',
      login: loginRoute(parts),
      logout(ctx) {
        deps.endSession(ctx);
        return Promise.resolve();
      },
      actions: {
        'register/options': registrationOptionsRoute(parts),
        register: registrationRoute(parts),
        'login/options': loginOptionsRoute(parts),
        list: listRoute(parts),
        '*': deleteRoute(parts),
      },
      // A deleted account's passkeys go with it: none could log in as a user who signs up again.
      async forgetUser(userId) {
        for (const passkey of await parts.passkeys.listByUser(userId)) await parts.passkeys.remove(passkey.id);
      },
      // Each passkey is a way in (account linking keeps the last one).
      waysIn: async (userId) => (await parts.passkeys.listByUser(userId)).length,
      close: () => own.close(),
      secondFactor: passkeySecondFactor(parts),
      routeDocs: PASSKEY_ROUTE_DOCS,
    };
  },
};

/** Checks a passkey entry's options (a TypeError naming the option) and fills in their defaults. */
export function parsePasskeyOptions(opts: PasskeyProviderOptions, deps: ProviderDeps): PasskeyConfig {
  const name = opts.name ?? 'passkey';
  if (typeof name !== 'string' || !name) throw new TypeError('name must be a non-empty string');
  if (typeof opts.rpName !== 'string' || !opts.rpName)
    throw new TypeError('rpName (the name browsers show for the site) is required');
  const { origin, hostname: host } = new URL(deps.url);
  const rpID = opts.rpID ?? host;
  if (typeof rpID !== 'string' || !(host === rpID || host.endsWith(`.${rpID}`)))
    throw new TypeError(`rpID must be the host of url (${host}) or a suffix of it`);
  // Browsers refuse WebAuthn on an IP address. Not a start-up error (the rest of the app may well run
  // on one in development), but said once, since every passkey call from a page would fail.
  if (/^[\d.]+$|:/.test(rpID))
    deps.logger.warn(
      `${name}: rpID ${rpID} is an IP address, which browsers refuse for passkeys: ` +
        `use a host name (localhost in development)`,
    );
  const userVerification = opts.userVerification ?? 'preferred';
  if (userVerification !== 'preferred' && userVerification !== 'required')
    throw new TypeError("userVerification must be 'preferred' or 'required'");
  const challengeMs = parseDuration(opts.challengeTimeout ?? '5m', 'challengeTimeout');
  return {
    name,
    rpName: opts.rpName,
    rpID,
    origin,
    userVerification,
    challengeMs,
    rateLimit: parseRateLimit(opts.rateLimit),
    credentials: opts.credentials,
  };
}

/** The `rateLimit` option: its per-client count and window, or undefined when it is false. */
function parseRateLimit(input: PasskeyProviderOptions['rateLimit']): PasskeyConfig['rateLimit'] {
  if (input === false) return undefined;
  if (input !== undefined && (typeof input !== 'object' || input === null))
    throw new TypeError('rateLimit must be false or { perIP, window }');
  const perIP = input?.perIP ?? 30;
  if (typeof perIP !== 'number' || !Number.isInteger(perIP) || perIP < 1)
    throw new TypeError('rateLimit.perIP must be a positive integer');
  return { perIP, windowMs: parseDuration(input?.window ?? '5m', 'rateLimit.window') };
}
