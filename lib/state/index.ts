/**
 * `authkoa/state`: state stores opened by URI or made in memory, and the rate limits and credential
 * throttle counted in them. The shared backends are at `authkoa/state/lmdb`, `/mongodb` and `/redis`.
 */
export { createStateStore, openStateStore } from './open.js';
export { memoryStateStore } from './memory.js';
export { memoryUsedTokenStore, type MemoryUsedTokenStoreOptions, type UsedTokenStore } from './used-tokens.js';
export { stateLimiter, type Limiter } from './limiter.js';
export {
  credentialThrottle,
  throttlePolicy,
  type Attempt,
  type CredentialThrottle,
  type LoginThrottleOptions,
  type ThrottlePolicy,
} from './throttle.js';
export type { LimitKey, StateEntry, StateStore, StateStoreOptions } from './types.js';
