import type { Claims } from './claims.js';

/**
 * The token's provider must be configured, by its exact name. Every login writes that name in
 * `auth_provider`, and then nothing else counts: the user id is no evidence, since a passkey login keeps
 * the account's `local_…` id and a removed `a_b` provider's ids start with a configured `a`. Only a
 * token without the claim (minted by the application, or by an old version of the original) falls back
 * on its id, `<name>_…`: names may contain `_` themselves, so the id is cut at each `_` in turn.
 */
export function providerAllowed(claims: Claims, providers: { has(name: string): boolean }): boolean {
  const named = claims.auth_provider;
  if (named !== undefined && named !== null) return typeof named.name === 'string' && providers.has(named.name);
  const id = claims.user?.id ?? '';
  for (let us = id.lastIndexOf('_'); us > 0; us = id.lastIndexOf('_', us - 1)) {
    if (providers.has(id.slice(0, us))) return true;
  }
  return false;
}
