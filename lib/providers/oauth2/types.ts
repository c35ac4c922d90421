import type { Claims } from '../../session/claims.js';
import type { User } from '../../user.js';
import type { OAuthToken } from './options.js';

/** The shapes the authorization-code flow (flow.ts) and its outbound side (io.ts) share. */

/** Where a provider lives; resolved per login because OIDC discovers it and the dev server picks a port. */
export interface Endpoints {
  authURL: string;
  tokenURL: string;
  /** User-info URL read with the access token; OIDC may go without one. */
  infoURL?: string;
}

/** What the handshake remembers for the callback besides state and PKCE. */
export interface HandshakeData {
  nonce?: string;
}

/** The user a provider identified, plus headers the avatar fetch needs (Microsoft's photo wants the bearer). */
export interface Identified {
  user: User;
  avatarHeaders?: Record<string, string>;
  /** The provider's own word that `user.email` is the user's (an id_token's `email_verified: true`). */
  emailVerified?: boolean;
  /** Claims the session is minted with (the oidc kind chooses its `sid`, to find it at a back-channel logout). */
  claims?: Partial<Claims>;
}

/** Everything that makes one OAuth2 provider different from another. */
export interface FlowSpec {
  name: string;
  kind: string;
  cid: string;
  csecret: string;
  scopes: readonly string[];
  /** How the client authenticates at the token endpoint: HTTP Basic ('header') or form fields ('body'). */
  authMethod: 'header' | 'body';
  /** Send an S256 PKCE challenge (on by default; a few servers reject unknown parameters). */
  pkce: boolean;
  /** Ask for and check an OIDC nonce. */
  nonce?: boolean;
  /** Extra authorize-URL parameters (Google's `prompt`, …). */
  authParams?: Record<string, string>;
  timeoutMs: number;
  maxBytes: number;
  endpoints(): Promise<Endpoints>;
  /**
   * Turns the token (and usually the user-info JSON) into the user; `params` are the callback's (Apple's `user` field).
   */
  identify(token: OAuthToken, hs: HandshakeData, io: FlowIO, params: Record<string, string>): Promise<Identified>;
  /** Called with the final user and the provider token (custom providers keep it to call APIs later). */
  bearerTokenHook?: (provider: string, user: User, token: OAuthToken) => void | Promise<void>;
  /** Checks the RFC 9207 `iss` callback parameter when the provider sends one. */
  issuer?(): string | undefined;
  /**
   * The provider comes back with a cross-site form POST (Apple's form_post). The handshake cookie is
   * then SameSite=None whenever cookies are Secure, so that POST carries it; browsers refuse
   * SameSite=None without Secure, so on plain http a POST arriving without it is answered 303 to the
   * same callback as a GET, which the Lax cookie does travel with.
   */
  formPost?: boolean;
  /** Makes the client secret for each exchange (Apple's signed JWT); `csecret` is used without it. */
  clientSecret?(): Promise<string>;
  close?(this: void): Promise<void>;
}

/** Outbound helpers handed to identify(), carrying the provider's limits and naming it in errors. */
export interface FlowIO {
  /** GETs a URL with the bearer token and returns its JSON object; provider errors become AuthErrors. */
  userInfo(url: string, token: OAuthToken): Promise<Record<string, unknown>>;
  /** GETs a public JSON document (discovery, JWKS). */
  getJSON(url: string, what: string): Promise<Record<string, unknown>>;
}
