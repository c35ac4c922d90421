import type { Context } from 'koa';
import type { SessionOf } from '../../session/fresh.js';
import type { AccountStore } from '../store.js';
import type { LinkCookies } from './cookies.js';
import type { IdentityStore } from './identities.js';
import type { BrowserOffers, LinkIntent, PendingLinks } from './offers.js';

/** What linking at login works with (login.ts, callback.ts, profile.ts): the stores and the instance's parts. */
export interface LinkLoginParts {
  identities: IdentityStore;
  intents: BrowserOffers<LinkIntent>;
  offers: PendingLinks;
  cookies: LinkCookies;
  accounts: AccountStore;
  /** The user id of an account's own identity (user-ids.ts), once a password provider has run. */
  accountUserId(accountId: string): Promise<string | undefined>;
  trustEmail: readonly string[];
  clock: () => number;
  /** The request's full login, a same-site navigation's included (Authenticator.navigationSession). */
  navigationSession(ctx: Context): Promise<SessionOf>;
  /** The session the request's token names, checked by signature only: the callback's browser still the same? */
  presentedSid(ctx: Context): Promise<string | undefined>;
  /** A link was made: the account's other sessions end, but `keep` (endOtherSessionsOnFactorChange). */
  linked(userId: string, keep: string | undefined): Promise<void>;
  /** A `from` the redirect policy permits, else undefined. */
  safeRedirect(from: string | undefined): string | undefined;
  url: string;
  emit(type: 'identity_linked' | 'link_offered', fields: Record<string, unknown>, ctx?: Context): void;
}
