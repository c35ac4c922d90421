import type { Context } from 'koa';
import type { FeatureCapabilities } from '../features/capabilities.js';
import type { ClaimsFunction } from '../providers/oauth2-server/claims.js';
import type { IdTokenKeys } from '../providers/oauth2-server/id-token.js';
import type { SessionOf } from '../session/fresh.js';
import type { PublicJwk } from '../session/signing.js';
import type { StateStore } from '../state/types.js';
import type { User } from '../user.js';
import type { AccessTokenIssuer } from './access-token.js';
import type { ClientDirectory } from './clients/index.js';
import type { GrantStore } from './grant-store.js';
import type { ServerPlaces } from './metadata.js';
import type { AuthorizationServerConfig } from './options.js';

/** What the server's endpoints share: made once when the feature starts (feature.ts). */
export interface ServerParts {
  readonly config: AuthorizationServerConfig;
  readonly places: ServerPlaces;
  readonly clients: ClientDirectory;
  readonly grants: GrantStore;
  readonly state: StateStore;
  readonly clock: () => number;
  /** The access tokens' signer, issuer, lifetime and clock. */
  readonly accessTokens: AccessTokenIssuer;
  /** The keys id_tokens are signed with and `id_token_hint`s checked against: the `signing` key's (id-token.ts). */
  readonly ids: IdTokenKeys;
  /** A user's standard claims, from the session's user (the `claims` option, or the default). */
  readonly claims: ClaimsFunction<User>;
  /**
   * The request's full login from its session cookie alone: the authorization request is a navigation from the
   * client's site (no XSRF header can come with it) that changes nothing by itself, and the consent form carries
   * its own token.
   */
  session(ctx: Context): Promise<SessionOf>;
  /** The request's full login with its XSRF header: the routes that manage the user's grants. */
  fullSession(ctx: Context): Promise<SessionOf>;
  /** Where a browser without a full login is sent, `from` the authorization request. */
  loginPage: string;
  /** The service's public keys, current first: what the server's tokens verify with. */
  keySet(): { keys: PublicJwk[] };
  /** The configured providers, by name and kind (the built-in login page lists them). */
  providers(): Array<{ name: string; kind?: string }>;
  /** Tells one of the feature's events. */
  emit(type: string, fields: Record<string, unknown>, ctx?: Context): void;
}

/**
 * What the authorization server asks of the instance (index.ts `needs`): the `signing` key's signer and public keys
 * (its access tokens), the request's login from its cookie alone (its authorization request comes from another
 * site), and the configured providers (its login page).
 */
export const SERVER_NEEDS = ['signer', 'publicKeys', 'cookieSession', 'providers'] as const;
export type ServerCapabilities = Pick<FeatureCapabilities, (typeof SERVER_NEEDS)[number]>;
