import { serviceKey } from '../../util/service-key.js';

/**
 * What ends the sessions a back-channel logout token names: the session list's, which the `sessions` feature offers.
 */
export interface SessionEnder {
  revoke(userId: string, sid: string): Promise<boolean>;
}

/**
 * The key the `oidc` kind asks for it by: a module of its own, so the session list names its offer without loading
 * the back-channel logout's code.
 */
export const SESSION_ENDER = serviceKey<SessionEnder>('the session list');
