import { noEvents, type EventSink } from '../events/bus.js';
import { credentialThrottle, throttlePolicy, type CredentialThrottle } from '../state/throttle.js';
import type { StateStore } from '../state/types.js';

/**
 * The throttle of second-factor codes: always on, since six digits fall to guessing without a limit.
 * `throttle` is the instance's throttle of each scope (state/throttles.ts); with `loginThrottle: false`
 * it has none, and codes are counted with the passwords' default policy.
 */
export function mfaThrottle(
  state: StateStore,
  throttle: (scope: string) => CredentialThrottle | undefined,
  clock: () => number,
  events: EventSink = noEvents,
): CredentialThrottle {
  return (
    throttle('mfa') ??
    credentialThrottle(state, throttlePolicy(undefined)!, 'mfa', clock, (lock) => events.emit('lockout', lock))
  );
}
