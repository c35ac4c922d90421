/**
 * `authkoa/browser`: the `$.RestClient` jQuery plugin as an ES module. Call `restClient($)`
 * with your jQuery (3.x or 4.x); it attaches `$.RestClient` and returns it.
 *
 * ```ts
 * import $ from 'jquery';
 * import restClient from 'authkoa/browser';
 * const RestClient = restClient($);
 * const api = new RestClient('/api');
 * const users = api.add('users');
 * users.read(42).done((user) => console.log(user));
 * ```
 *
 * For the auth routes themselves (login, second factor, passkeys, sessions) use `authkoa/client`; the
 * page helpers exported here (`verifyMfa`, `listSessions`, `registerPasskey`, …) are deprecated aliases of it.
 */
import { ResponseCache } from './cache.js';
import { RestClientError } from './errors.js';
import { builtInDefaults, clone, resolveRoot, validate } from './options.js';
import { ResourceNode } from './resource.js';
import type { JQueryLike, RestClientConstructor, RestOptions } from './types.js';

export type * from './types.js';
export { RestClientError, type RestClientErrorCode } from './errors.js';
// The page helpers below are deprecated thin wrappers over `authkoa/client` (the one client of the auth
// routes, docs/client.md), kept so existing pages go on working; their refusals are its AuthClientError.
export { AuthClientError } from './client/errors.js';
export {
  registerPasskey,
  loginWithPasskey,
  PasskeyError,
  type RegisterPasskeyOptions,
  type LoginWithPasskeyOptions,
  type PasskeyUser,
} from './passkey.js';
export {
  mfaStatus,
  setupTotp,
  confirmTotp,
  verifyMfa,
  disableTotp,
  newRecoveryCodes,
  verifyMfaWithPasskey,
  MfaError,
  type MfaOptions,
  type MfaUser,
  type MfaPending,
  type MfaSummary,
  type TotpSetup,
} from './mfa.js';
export {
  listSessions,
  endSession,
  endOtherSessions,
  SessionError,
  type SessionsOptions,
  type SessionInfo,
} from './sessions.js';

/** The plugin version. */
export const VERSION = '1.0.1';

const INSTALLED = Symbol.for('authkoa.jquery.rest');

/**
 * Attaches `$.RestClient` to the given jQuery and returns it. Calling it again with the same
 * jQuery returns the constructor already attached.
 */
export function restClient($: JQueryLike): RestClientConstructor {
  if (!$ || typeof $.ajax !== 'function' || typeof $.param !== 'function')
    throw new RestClientError('no_jquery', 'restClient($) needs jQuery (with $.ajax and $.param)');
  const existing: (RestClientConstructor & { [INSTALLED]?: boolean }) | undefined = $.RestClient;
  if (existing && existing[INSTALLED]) return existing;

  const builtIn = builtInDefaults($);

  class RestClient extends ResourceNode {
    /** The defaults each new client starts from; edits affect clients created afterwards. */
    static defaults: RestOptions = clone(builtIn);
    static readonly version = VERSION;

    /** A root client for `base`; add resources to it with `add`. */
    constructor(base?: string, options?: RestOptions) {
      if (base !== undefined && base !== null && typeof base !== 'string')
        throw new RestClientError('invalid_url', `'url' must be a string`);
      const own = validate(options);
      const changed = validate(RestClient.defaults) as Record<string, unknown>;
      const defaults = { ...builtIn } as Record<string, unknown>;
      for (const key of Object.keys(changed)) if (changed[key] !== undefined) defaults[key] = changed[key];
      super({ $, base: base ?? '', opts: resolveRoot(defaults as typeof builtIn, own), cache: new ResponseCache() });
    }
  }
  Object.defineProperty(RestClient, INSTALLED, { value: true });

  const ctor = RestClient as unknown as RestClientConstructor;
  $.RestClient = ctor;
  return ctor;
}

export default restClient;
