import type { LoginAttempt } from '../../features/contract.js';
import type { User } from '../../user.js';
import type { LinkedIdentity } from './identities.js';
import type { LinkLoginParts } from './parts.js';

/** Who an identity is in the links: its record, and the profile an account's own identity keeps. */

/** The identity a login brought, as linked to `userId`. */
export function identityOf(login: LoginAttempt, userId: string, now: number): LinkedIdentity {
  const u = login.user;
  return {
    subject: u.id,
    provider: login.provider,
    userId,
    ...(u.name && { name: u.name }),
    ...(u.email && { email: u.email }),
    linkedAt: now,
    ...(userId === u.id && { profile: profileOf(u) }),
  };
}

/** A user as an identity keeps it: what a token carries of them, not the request's audience or address hash. */
export function profileOf(u: User): User {
  const profile: User = { ...u };
  delete profile.aud;
  delete profile.ip;
  return profile;
}

/** The account `userId` as its own identity last logged in (its name, picture, role), else as this login. */
export async function profileUser(
  p: Pick<LinkLoginParts, 'identities'>,
  userId: string,
  login: LoginAttempt,
): Promise<User> {
  const own = (await p.identities.get(userId))?.profile;
  return { ...(own ?? { name: login.user.name, picture: login.user.picture }), id: userId };
}
