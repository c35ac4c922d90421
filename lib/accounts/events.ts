import type { AuthEventBase } from '../events/types.js';

/**
 * The accounts' events, declared by the feature (feature.ts `ACCOUNT_EVENTS`) and joined to the instance's
 * event map by declaration merging. None carries a password, a hash, a link or a token; `userId` is the
 * session user id of the password provider that acted (`<provider>_<account id>`).
 */

/** What every account event says: which account, through which provider (absent for an admin call). */
interface AccountEventBase extends AuthEventBase {
  accountId: string;
  provider?: string;
  userId?: string;
}

/** An account was made (`POST signup`, or `auth.accounts.create` with `by: 'admin'`); its address is unconfirmed. */
export interface SignupEvent extends AccountEventBase {
  type: 'signup';
  by: 'signup' | 'admin';
}

/** The owner followed the link sent to the account's address. */
export interface AccountConfirmedEvent extends AccountEventBase {
  type: 'account_confirmed';
}

/** A reset link was redeemed with a new password; every session of the account ended. */
export interface PasswordResetEvent extends AccountEventBase {
  type: 'password_reset';
}

/** The password was changed by its owner (`POST password`) or an operator (`by: 'admin'`). */
export interface PasswordChangedEvent extends AccountEventBase {
  type: 'password_changed';
  by: 'user' | 'admin';
}

/** A new address was confirmed and replaced the old one. */
export interface EmailChangedEvent extends AccountEventBase {
  type: 'email_changed';
}

/** The account was deleted by its owner (`DELETE account`) or an operator. */
export interface AccountDeletedEvent extends AccountEventBase {
  type: 'account_deleted';
  by: 'user' | 'admin';
}

/** What the link events say: the account (its user id) and the identity's provider. */
interface LinkEventBase extends AuthEventBase {
  /** The account's user id. */
  userId: string;
  /** The provider of the identity linked or unlinked. */
  provider: string;
}

/**
 * An identity was linked to an account: by its owner's fresh session (`by: 'user'`), by the owner's login that
 * completed an offer made by address (`by: 'email'`), or by an operator (`auth.accounts.link`, `by: 'admin'`).
 */
export interface IdentityLinkedEvent extends LinkEventBase {
  type: 'identity_linked';
  by: 'user' | 'email' | 'admin';
}

/** An identity was unlinked from an account (`DELETE /auth/links/<provider>`, or `auth.accounts.unlink`). */
export interface IdentityUnlinkedEvent extends LinkEventBase {
  type: 'identity_unlinked';
  by: 'user' | 'admin';
}

/** A first login's trusted, verified address was an account's: an offer to link was kept for 15 minutes. */
export interface LinkOfferedEvent extends LinkEventBase {
  type: 'link_offered';
}

declare module '../events/types.js' {
  interface AuthEventMap {
    signup: SignupEvent;
    account_confirmed: AccountConfirmedEvent;
    password_reset: PasswordResetEvent;
    password_changed: PasswordChangedEvent;
    email_changed: EmailChangedEvent;
    account_deleted: AccountDeletedEvent;
    identity_linked: IdentityLinkedEvent;
    identity_unlinked: IdentityUnlinkedEvent;
    link_offered: LinkOfferedEvent;
  }
}

/** The event types the accounts emit, in the order docs/events.md lists them. */
export const ACCOUNT_EVENTS = [
  'signup',
  'account_confirmed',
  'password_reset',
  'password_changed',
  'email_changed',
  'account_deleted',
  'identity_linked',
  'identity_unlinked',
  'link_offered',
] as const;

export type AccountEventType = (typeof ACCOUNT_EVENTS)[number];
