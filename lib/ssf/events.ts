import type { AuthEventBase } from '../events/types.js';

/**
 * The Shared Signals transmitter's own event, declared by the feature and joined to the instance's event map by
 * declaration merging. It names the receiver by its `id` and the SET by its `jti`; never the credential or the SET.
 */

/**
 * A Security Event Token did not reach its receiver: a push failed (tried again later, or, `dead`, a dead letter
 * after its last try or a 400 from the receiver), or a poll receiver reported it in `setErrs` (`dead`).
 */
export interface SsfDeliveryFailedEvent extends AuthEventBase {
  type: 'ssf_delivery_failed';
  receiver: string;
  jti: string;
  /** The CAEP event type's last segment: `session-revoked`, `credential-change`. */
  event: string;
  /** The push's try (1 for the first); 0 for a poll receiver's report. */
  attempt: number;
  reason: string;
  dead: boolean;
}

declare module '../events/types.js' {
  interface AuthEventMap {
    ssf_delivery_failed: SsfDeliveryFailedEvent;
  }
}

export const SSF_EVENTS = ['ssf_delivery_failed'] as const;
