import { normalizeEmail, type Account } from '../store.js';

/**
 * Never by email alone : when a first login through an unlinked
 * identity reports the address of an existing account, that is at most an offer to link, which the account's owner
 * completes by logging in to the account, with every factor, in the same browser. It is not even an offer unless
 * the provider is one the application trusts for addresses (`accounts.trustEmail`), the provider says it verified
 * the address (the boolean `true`, not a string), the account confirmed its own address, and the two are the same
 * address as accounts compare them (normalizeEmail: trimmed, NFC, lower case). No other folding: a `+tag`, a dot in
 * the local part, a trailing dot, a homoglyph or a full-width letter is another address.
 */

/** What a provider reported of an identity's address. */
export interface ReportedEmail {
  provider: string;
  email?: unknown;
  /** The provider's own word that the address is the user's (`email_verified`); anything but `true` is no. */
  verified?: unknown;
}

/** Whether `report` may be offered to the account holding `account.email` (see above). */
export function offeredByEmail(
  report: ReportedEmail,
  trustEmail: readonly string[],
  account: Pick<Account, 'email' | 'emailConfirmed'>,
): boolean {
  if (!trustEmail.includes(report.provider) || report.verified !== true || !account.emailConfirmed) return false;
  const email = normalizeEmail(report.email);
  return email !== undefined && email === account.email;
}
