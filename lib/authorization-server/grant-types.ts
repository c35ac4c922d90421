import type { ClaimsRequest, StandardClaims } from '../providers/oauth2-server/claims.js';

/**
 * What the authorization server's grant store keeps and answers (grant-store.ts builds it; the endpoints call it).
 * Types only, apart from the store's files so they can all name them without importing each other in a circle.
 */

/**
 * What an OpenID grant keeps of its user: the standard claims (`name`, `picture`, `email`, `email_verified`, …) taken
 * from their session when they authorized, only those the grant's scopes and `claims` parameter may let out, so its
 * id_tokens and userinfo answer alike for the grant's whole life without a store of users to read.
 */
export type GrantProfile = StandardClaims;

/** What OpenID adds to a grant that has the `openid` scope; every member optional. */
export interface OpenIDGrant {
  /** The user's claims the grant may let out. */
  profile?: GrantProfile;
  /** The standard claims the `claims` request parameter named, per place (OpenID Connect Core §5.5). */
  claims?: ClaimsRequest;
  /** The user's app session the authorization happened in: the id_tokens' `sid`. */
  sessionId?: string;
}

/** What an authorization code stands for until it is redeemed. */
export interface CodeGrant extends Omit<OpenIDGrant, 'sessionId'> {
  clientId: string;
  redirectURI: string;
  /**
   * The authorization request named no redirect_uri (a client with one registered URI): the token request may then
   * omit it too (OAuth 2.1 §4.1.3). Otherwise the token request must repeat `redirectURI` exactly.
   */
  redirectURIOmitted?: boolean;
  /** S256 code challenge (always present: PKCE is required for every client). */
  challenge: string;
  scopes: string[];
  /** RFC 8707 resource indicators the grant is bound to ([] = OpenID only). */
  resources: string[];
  userId: string;
  /** When the user logged in, seconds (id_token auth_time). */
  authTime: number;
  nonce?: string;
  /** The user's session id (the app session the authorization happened in). */
  sid?: string;
}

/** Every token issued from one grant: revoked together, refreshed together. */
export interface Family extends OpenIDGrant {
  /** The grant family id: access tokens carry it as `sid`, so a revocation reaches resource servers. */
  id: string;
  /** For client_credentials: the client id. */
  userId: string;
  clientId: string;
  scopes: string[];
  resources: string[];
  authTime?: number;
  /** ms since the epoch. */
  createdAt: number;
}

/** One connected app of a user: the union of its live families. Times in ms. */
export interface GrantSummary {
  clientId: string;
  scopes: string[];
  resources: string[];
  firstUsed: number;
  lastUsed: number;
}

/** A family that was live when revoked (onRevoked): whose tokens a resource server must now refuse. */
export interface RevokedFamily {
  id: string;
  userId: string;
  clientId: string;
}

/** Why the store revoked families (onRevoked): on its own, or because a caller asked. */
export type RevokeReason =
  /** An authorization code presented again after it was redeemed. */
  | 'code_replay'
  /** A refresh token presented again after it was rotated (RFC 9700 §4.14.2). */
  | 'refresh_reuse'
  /** Dropped as the oldest over maxFamiliesPerClient or maxClientsPerUser. */
  | 'evicted'
  /** revokeFamily(), revokeRefresh(), revokeGrant(), revokeUser() or revokeClient(). */
  | 'revoked';

export interface GrantStoreOptions {
  codeTTLMs: number;
  refreshTTLMs: number;
  clock: () => number;
  /** How long a remembered consent lasts. Default 365 days. */
  consentTTLMs?: number;
  /** Families kept per user and client; a new one past it revokes the oldest. Default 20. */
  maxFamiliesPerClient?: number;
  /** Clients kept per user; a new one past it revokes the least recently granted one. Default 200. */
  maxClientsPerUser?: number;
  /**
   * Which clients have an index of their users, so revokeClient() finds their families (client-index.ts). Default:
   * every client. The server indexes the clients it registered, the ones an operator can remove.
   */
  indexClient?: (clientId: string) => boolean;
  /** Users kept in one client's index; past it the line that ends first goes. Default 1000. */
  maxUsersPerClient?: number;
  /**
   * Told of every family revoked, whatever decided it (a replayed code, a reused refresh token, one dropped over the
   * caps, or a caller's revoke…() call): the one place to tell the revocation channel. Awaited; what it throws is
   * what the call that revoked rejects with, so it should not throw.
   */
  onRevoked?: (familyIds: string[], reason: RevokeReason, families: RevokedFamily[]) => void | Promise<void>;
}

/** An OAuth error as the token endpoint answers it (status 400). */
export interface GrantError<E extends string> {
  error: E;
  description: string;
}

export interface GrantStore {
  /** A one-use code (≥128 random bits, base64url) for `grant`, live codeTTLMs. */
  issueCode(grant: CodeGrant): Promise<string>;
  /**
   * Redeems a code once. Checks (in order, each error an OAuth error code + description): unknown/expired/spent →
   * invalid_grant (and if the code was already redeemed and produced a family, that family is revoked: replay);
   * clientId differs → invalid_grant; redirectURI differs → invalid_grant; the verifier's S256 hash ≠ challenge or
   * the verifier not of RFC 7636's form → invalid_grant. On success starts the family (and records code → family for
   * replay detection, kept 10 × codeTTL). A code is spent by its first presentation, whether the checks pass or not.
   */
  redeemCode(
    code: string,
    check: { clientId: string; redirectURI: string | undefined; verifier: string | undefined },
  ): Promise<{ grant: CodeGrant; family: Family } | GrantError<'invalid_grant'>>;
  /**
   * A family without a code (client_credentials). `ttlMs` (default refreshTTLMs): how long it lives without a
   * refresh token; give a client_credentials family its access token's lifetime, so it leaves the index with it.
   */
  startFamily(f: Omit<Family, 'id' | 'createdAt'> & { ttlMs?: number }): Promise<Family>;
  /**
   * A refresh token for the family (only its SHA-256 is stored), live refreshTTLMs; the family lives at least as long.
   * For a family revoked meanwhile the token returned was never stored: it is refused like any unknown one.
   */
  issueRefresh(family: Family): Promise<string>;
  /**
   * The refresh_token grant: the token is spent and a new one issued (rotation); a spent token presented again
   * revokes the whole family; narrower scopes/resources may be asked (never wider: invalid_scope / invalid_target);
   * the returned `family` view carries the narrowed scopes/resources for the new access token while the family
   * keeps the original grant for the next refresh. Of two presentations of one unspent token at once, exactly one
   * wins; the other is answered invalid_grant without revoking (see families.ts for why).
   */
  refresh(
    token: string,
    ask: { clientId: string; scopes?: string[]; resources?: string[] },
  ): Promise<
    { family: Family; refreshToken: string } | GrantError<'invalid_grant' | 'invalid_scope' | 'invalid_target'>
  >;
  revokeFamily(id: string): Promise<void>;
  /** True once the family is revoked, and for one unknown or expired (no token of it can be live). */
  isRevoked(id: string): Promise<boolean>;
  /** The family while it is live (what the userinfo endpoint reads); undefined once revoked, unknown or expired. */
  family(id: string): Promise<Family | undefined>;
  /** Revokes the refresh token given (RFC 7009): its family. Resolves whether one was found. */
  revokeRefresh(token: string, clientId: string): Promise<boolean>;
  /** The user's connected apps: one summary per client (union of its live families), newest lastUsed first. */
  listGrants(userId: string): Promise<GrantSummary[]>;
  /** Revokes every family of (user, client) and forgets the consent; resolves the ids revoked. */
  revokeGrant(userId: string, clientId: string): Promise<string[]>;
  /** Every family of a user (account deleted / password reset), consents too: resolves the ids revoked. */
  revokeUser(userId: string): Promise<string[]>;
  /**
   * Every family of a client, whoever's, and its users' consents to it (the client was removed): resolves the ids
   * revoked. Reaches the users of its index (`indexClient`, `maxUsersPerClient`).
   */
  revokeClient(clientId: string): Promise<string[]>;
  /** Consent remembered per user, client, scopes and resources: true when `scopes`/`resources` ⊆ what was allowed. */
  hasConsent(userId: string, clientId: string, scopes: string[], resources: string[]): Promise<boolean>;
  rememberConsent(userId: string, clientId: string, scopes: string[], resources: string[]): Promise<void>;
  /** Marks the family used now (lastUsed), e.g. at each refresh; cheap: writes at most once a minute. */
  touch(familyId: string): Promise<void>;
}
