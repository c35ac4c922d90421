import type { AuthEventBase, ClientFields } from '../events/types.js';

/**
 * The second factor's events, declared by the feature (feature.ts `MFA_EVENTS`) and joined to the instance's
 * event map by declaration merging, as a feature outside the package declares its own (docs/features.md).
 */

/** The user turned a second factor on (`totp` confirmed) or off, or made new recovery codes. */
export interface MfaChangedEvent extends AuthEventBase {
  type: 'mfa_changed';
  userId: string;
  /** What changed. */
  change: 'totp_enabled' | 'totp_disabled' | 'recovery_codes_generated';
  sid?: string;
}

/** A second step was refused (a wrong or spent code, a passkey that did not verify). */
export interface MfaFailedEvent extends AuthEventBase, ClientFields {
  type: 'mfa_failed';
  userId: string;
  provider: string;
  /** The error code the client was answered with. */
  reason: string;
}

declare module '../events/types.js' {
  interface AuthEventMap {
    mfa_changed: MfaChangedEvent;
    mfa_failed: MfaFailedEvent;
  }
}
