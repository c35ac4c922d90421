import type { AuthEventBase } from '../events/types.js';
import type { RevokeReason } from './grant-types.js';

/**
 * The authorization server's events, declared by the feature and joined to the instance's event map by declaration
 * merging. None carries a code, a token or a secret.
 */

/** A client registered itself (dynamic client registration). */
export interface ClientRegisteredEvent extends AuthEventBase {
  type: 'client_registered';
  clientId: string;
  clientName?: string;
}

/** A user allowed a client on the consent page. */
export interface GrantApprovedEvent extends AuthEventBase {
  type: 'grant_approved';
  clientId: string;
  userId: string;
  scopes: string[];
  resources: string[];
}

/** A user denied a client on the consent page. */
export interface GrantDeniedEvent extends AuthEventBase {
  type: 'grant_denied';
  clientId: string;
  userId: string;
}

/**
 * A grant family ended: `revoked` by its client (the revocation endpoint), its user (connected apps), an operator or
 * the account's end; or by the server itself, for a replayed code, a reused refresh token, or the oldest of a user's
 * families over the caps (`evicted`).
 */
export interface GrantRevokedEvent extends AuthEventBase {
  type: 'grant_revoked';
  clientId: string;
  /** The user whose grant it was (the client's own id for client_credentials). */
  userId: string;
  /** The grant family: its access tokens' `sid`, which Shared Signals receivers refuse from now on. */
  sid: string;
  reason: RevokeReason;
}

/** The token endpoint issued an access token (and maybe a refresh token). */
export interface TokenIssuedEvent extends AuthEventBase {
  type: 'token_issued';
  clientId: string;
  /** The user, or the client's own id for client_credentials. */
  userId: string;
  grantType: string;
  scopes: string[];
  resources: string[];
}

declare module '../events/types.js' {
  interface AuthEventMap {
    client_registered: ClientRegisteredEvent;
    grant_approved: GrantApprovedEvent;
    grant_denied: GrantDeniedEvent;
    grant_revoked: GrantRevokedEvent;
    token_issued: TokenIssuedEvent;
  }
}

/** The event types the authorization server emits, in the order docs/events.md lists them. */
export const SERVER_EVENTS = [
  'client_registered',
  'grant_approved',
  'grant_denied',
  'grant_revoked',
  'token_issued',
] as const;
