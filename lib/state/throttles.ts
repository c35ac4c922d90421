import { noEvents, type EventSink } from '../events/bus.js';
import type { SharedState } from './shared.js';
import { credentialThrottle, type CredentialThrottle, type ThrottlePolicy } from './throttle.js';

/**
 * The failed-login throttle of each scope (a provider's name, `basic`, `mfa`), made on first use: a
 * credential kind asks for its own on every login. Undefined for every scope when `policy` is (the
 * `loginThrottle: false` option).
 */
export function throttlesPerScope(
  state: SharedState,
  policy: ThrottlePolicy | undefined,
  clock: () => number,
  events: EventSink = noEvents,
): (scope: string) => CredentialThrottle | undefined {
  const made = new Map<string, CredentialThrottle | undefined>();
  const onLockout = (lock: { scope: string; key: string; until: number }) => events.emit('lockout', lock);
  return (scope) => {
    if (!made.has(scope))
      made.set(scope, policy ? credentialThrottle(state.store, policy, scope, clock, onLockout) : undefined);
    return made.get(scope);
  };
}
