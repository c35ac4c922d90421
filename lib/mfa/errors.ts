import { featureError, type AuthError } from '../errors.js';

/**
 * The second factor's own error codes, each with its one status: the feature's `errors` (feature.ts), added
 * to the OpenAPI document's `ErrorCode` enum when the feature is configured. The codes it shares with the
 * rest of the service (`invalid_code`, `reauth_required`, …) stay in ERROR_STATUS.
 */
export const MFA_ERRORS = {
  /** The partial login (first factor passed, second step pending) was tampered with or already finished. */
  mfa_session_invalid: 401,
  /** The partial login is older than 5 minutes. */
  mfa_session_expired: 401,
  /** A login sent to set up a second factor (`mfa.required`) tried to verify, remove or regenerate instead. */
  enrollment_required: 403,
  /** A second step with a factor the user does not have, or new recovery codes without TOTP. */
  factor_not_enrolled: 409,
  /** A TOTP confirmation with no set-up waiting (never started, older than 15 minutes, or started again). */
  totp_not_pending: 409,
} as const;

declare module '../errors.js' {
  interface FeatureErrorCodes {
    mfa_session_invalid: true;
    mfa_session_expired: true;
    enrollment_required: true;
    factor_not_enrolled: true;
    totp_not_pending: true;
  }
}

/** An AuthError with one of the second factor's own codes, at its status. */
export function mfaError(code: keyof typeof MFA_ERRORS, message: string): AuthError {
  return featureError(code, MFA_ERRORS[code], message);
}
