import { featureError, type AuthError } from '../errors.js';
import type { PasswordProblem } from './password-policy.js';

/**
 * The accounts' own error codes, each with its one status: the feature's `errors`, added to the OpenAPI
 * document's `ErrorCode` enum when `accounts` is set. Codes shared with the rest of the service
 * (`bad_credentials`, `reauth_required`, `confirmation_used`, `rate_limited`, …) stay in ERROR_STATUS.
 */
export const ACCOUNT_ERRORS = {
  /** Not one plain address (normalizeEmail). */
  invalid_email: 400,
  /** The password breaks the policy: too short, too long, the address or name, or a breached one. */
  weak_password: 400,
  /** `signup: false`: accounts are made by an operator. */
  signup_disabled: 403,
  /** The new address belongs to another account (said only to the holder of a confirmation link). */
  email_taken: 409,
  /** The account changed while the request ran (a concurrent change won): try again. */
  account_changed: 409,
  /** The account the session or link names is gone. */
  account_not_found: 404,
  /** The breached-password service did not answer: the password could not be checked. */
  breach_check_unavailable: 503,
  /** The identity a link callback brought is linked to another account already (its own one included). */
  identity_in_use: 409,
  /**
   * A first login's trusted, verified address is an existing account's: no account made, nobody logged in; the
   * account's owner completes the link by logging in to the account in this browser.
   */
  account_exists: 409,
  /** Unlinking this would leave the account no way in (no password, no other identity, no passkey). */
  last_login_method: 409,
  /** The account's own identity (the one its id is) cannot be unlinked from it: delete the account instead. */
  identity_is_account: 409,
  /** The session's account has no identity of that provider. */
  link_not_found: 404,
  /** Unlinking by a provider's name when the account has several identities of it: name one by its id. */
  link_ambiguous: 409,
} as const;

export type AccountErrorCode = keyof typeof ACCOUNT_ERRORS;

declare module '../errors.js' {
  interface FeatureErrorCodes {
    invalid_email: true;
    weak_password: true;
    signup_disabled: true;
    email_taken: true;
    account_changed: true;
    account_not_found: true;
    breach_check_unavailable: true;
    identity_in_use: true;
    account_exists: true;
    last_login_method: true;
    identity_is_account: true;
    link_not_found: true;
    link_ambiguous: true;
  }
}

/** An AuthError with one of the accounts' own codes, at its status. */
export function accountError(code: AccountErrorCode, message: string, options?: { cause?: unknown }): AuthError {
  return featureError(code, ACCOUNT_ERRORS[code], message, options);
}

/**
 * Why an admin call (`auth.accounts`, `authctl accounts`) was refused: `code` says which, `reason` which rule a
 * refused password broke. Kept here, beside the codes, so the main entry exports it without the hashing code.
 */
export class AccountError extends Error {
  override readonly name = 'AccountError';
  constructor(
    readonly code: 'invalid_email' | 'weak_password' | 'email_taken' | 'not_found' | 'changed',
    message: string,
    /** For weak_password: which rule the password broke. */
    readonly reason?: PasswordProblem,
  ) {
    super(message);
  }
}
