import { clientOf } from '../events/bus.js';
import type { Provider, ProviderDepsWith, ProviderModule, ProviderOptions } from './core/contract.js';
import { randomId } from './kit.js';
import { commonOptions, endpointURL, providerError } from './oauth2/flow.js';
import { startOAuth2Server, type OAuth2ServerOptions } from './oauth2-server/local.js';
import { resolveServerOptions } from './oauth2-server/options.js';
import { ownServerProvider } from './oauth2-server/provider.js';
import { optionNames } from '../util/options.js';

/**
 * `authkoa/server`: the local OAuth2 authorization server on its own, for an app that runs it apart from the provider.
 */
export {
  startOAuth2Server,
  type OAuth2Server,
  type OAuth2ServerClient,
  type OAuth2ServerOptions,
  type LoginPage,
  type LoginPageHandler,
  type ServerChecker,
  type ServerUser,
} from './oauth2-server/local.js';
export type { ClaimsFunction, StandardClaims } from './oauth2-server/claims.js';
export type { IdTokenAlg } from './oauth2-server/clients.js';

/** Options of a `kind: 'server'` entry: the local OAuth2 server plus the provider that consumes it. */
export interface ServerProviderOptions extends Omit<OAuth2ServerOptions, 'logger' | 'signing' | 'onSignInRefused'> {
  kind: 'server';
  /** Provider name (default `server`). User ids are the checker's ids, unhashed, as in the original. */
  name?: string;
  /**
   * Redirect URIs registered for authkoa (default `<url><authRoutePath>/<name>/callback`); give them when the app is
   * mounted under a prefix.
   */
  redirectURIs?: string[];
  /** Deadline for authkoa's calls to the server in ms (default 10 000). */
  timeout?: number;
}

/**
 * Ids shaped like another provider's (`github_<sha1>`): a local user named so could take over that
 * account, because the local server's ids are kept raw.
 */
const FOREIGN_ID = /^[A-Za-z0-9.~-]+_[0-9a-f]{40}$/;

/**
 * `kind: 'server'` wires both ends at once: it starts the local OAuth2 server with authkoa registered
 * as a client (a random secret per start, the callback as the only redirect URI) and returns the
 * OAuth2 provider that signs users in through it. The server stops with `auth.close()`. With the
 * service's `signing` keys the server is also an OpenID provider for other apps, its id_tokens signed
 * with those keys.
 */
export const serverProvider: ProviderModule<ProviderOptions, 'throttle' | 'signer'> = {
  kind: 'server',
  // The local server counts its sign-in page's failures itself, and signs id_tokens with the service's keys.
  needs: ['throttle', 'signer'],
  options: optionNames<ServerProviderOptions>({
    kind: true,
    name: true,
    redirectURIs: true,
    timeout: true,
    url: true,
    host: true,
    checker: true,
    clients: true,
    withLoginPage: true,
    loginPageHandler: true,
    requirePKCE: true,
    codeTTL: true,
    tokenTTL: true,
    sessionTTL: true,
    refreshTokenTTL: true,
    claims: true,
    rsaKey: true,
    sessionKeys: true,
    throttle: true,
    clock: true,
  }),
  async create(opts, deps: ProviderDepsWith<'throttle' | 'signer'>): Promise<Provider> {
    const name = opts.name ?? 'server';
    if (typeof name !== 'string' || !name) throw new TypeError('name must be a non-empty string');
    const serverOpts = opts as unknown as ServerProviderOptions;
    const redirectURIs = serverOpts.redirectURIs ?? [deps.routeURL(name, 'callback')];
    if (!Array.isArray(redirectURIs) || !redirectURIs.length)
      throw new TypeError('redirectURIs must list at least one URI');
    redirectURIs.forEach((u, i) => endpointURL(u, `redirectURIs[${i}]`));
    const client = { id: `authkoa-${name}`, secret: randomId(), redirectURIs };
    const full: OAuth2ServerOptions = {
      throttle: deps.throttle(name) ?? false,
      ...serverOpts,
      clients: [...(serverOpts.clients ?? []), client],
      logger: deps.logger,
      signing: deps.signer,
      onSignInRefused: (ctx, { userName, reason, status }) => {
        if (deps.events.has('login_failed'))
          deps.events.emit(
            'login_failed',
            { provider: name, kind: 'server', reason, status, userName: userName.slice(0, 256), ...clientOf(ctx) },
            ctx,
          );
      },
    };
    // Checked before the server starts, so a bad entry fails start-up (auth.ready) rather than the first login.
    resolveServerOptions(full);
    const common = commonOptions({ cid: client.id, csecret: client.secret, timeout: opts.timeout }, { scopes: [] });
    return ownServerProvider(
      {
        name,
        kind: 'server',
        common,
        ready: startOAuth2Server(full),
        what: 'local OAuth2 server',
        endpoints: (server) => server.endpoints(),
        checkId(id) {
          if (FOREIGN_ID.test(id) && !id.startsWith(`${name}_`))
            throw providerError(name, 'foreign_user_id', "user id looks like another provider's id");
        },
      },
      deps,
    );
  },
};
