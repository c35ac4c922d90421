import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import type { LoginAttempt } from '../../features/contract.js';
import type { Claims } from '../../session/claims.js';
import { requireFresh, type SessionOf } from '../../session/fresh.js';
import type { User } from '../../user.js';
import { accountError } from '../errors.js';
import { linkAtCallback, offerByAddress } from './callback.js';
import { INTENT_COOKIE, OFFER_COOKIE } from './cookies.js';
import type { LinkedIdentity } from './identities.js';
import { LINK_INTENT_MS, type LinkIntent } from './offers.js';
import type { LinkLoginParts } from './parts.js';
import { identityOf, profileOf, profileUser } from './profile.js';

export type { LinkLoginParts } from './parts.js';

/**
 * Account linking at login (docs/accounts.md#linking-one-user-many-ways-in): every login's identity mapped to its
 * account, a link made when a fresh session asked for one, an offer kept when a trusted address is an account's, that
 * offer completed by the account's own login. The accounts feature's `loginStarts`, `identify` and `sessionStarted`
 * are these.
 */

/** A link start needs a login at most this old, as every change to how an account logs in does. */
export const LINK_FRESH_MS = 5 * 60_000;

/** The feature's members at login, each a function of its own (handed to the feature set as they are). */
export interface LinkLogin {
  loginStarts: (ctx: Context, provider: string) => Promise<void>;
  identify: (ctx: Context, login: LoginAttempt) => Promise<User | undefined | true>;
  sessionStarted: (ctx: Context, claims: Claims) => Promise<void>;
}

export function linkLogin(p: LinkLoginParts): LinkLogin {
  // A link started and finished by one request (a password login's POST with `?link=1`): its intent's id by request.
  const startedHere = new WeakMap<object, string>();
  return {
    async loginStarts(ctx, provider) {
      const asked = ctx.query.link;
      if (asked === undefined) return;
      if (asked !== '1') throw new AuthError('bad_request', 'link must be 1');
      const me = await p.navigationSession(ctx);
      requireFresh(me, LINK_FRESH_MS, p.clock());
      await ownIdentity(p, me);
      const from = typeof ctx.query.from === 'string' ? ctx.query.from : undefined;
      const intent: LinkIntent = { userId: me.user.id, sid: me.claims.sid, provider, ...(from && { from }) };
      const id = await p.intents.offer(intent, LINK_INTENT_MS);
      p.cookies.set(ctx, INTENT_COOKIE, id, LINK_INTENT_MS);
      startedHere.set(ctx.req, id);
    },

    async identify(ctx, login) {
      const intent = await takeIntent(p, startedHere, ctx, login.provider);
      if (intent) return linkAtCallback(p, ctx, login, intent);
      const subject = login.user.id;
      const link = await p.identities.get(subject);
      if (link) return accountUser(p, link, login);
      if (await offerByAddress(p, ctx, login)) return true;
      // A first login with accounts on: the identity is an account of its own, under the id it has today.
      if ((await p.identities.link(identityOf(login, subject, p.clock()))) === 'linked') return undefined;
      const raced = await p.identities.get(subject);
      return raced ? accountUser(p, raced, login) : undefined;
    },

    async sessionStarted(ctx, claims) {
      const id = p.cookies.read(ctx, OFFER_COOKIE);
      const userId = claims.user?.id;
      if (!id || !userId) return;
      const offer = await p.offers.redeem(id, userId);
      if (!offer) return;
      p.cookies.clear(ctx, OFFER_COOKIE);
      const made = await p.identities.link({ ...offer.identity, userId, linkedAt: p.clock() });
      if (made !== 'linked') throw accountError('identity_in_use', 'the identity offered is linked elsewhere now');
      p.emit('identity_linked', { userId, provider: offer.identity.provider, by: 'email' }, ctx);
    },
  };
}

/** The intent this browser holds for a login through `provider`, spent; undefined when it holds none for it. */
async function takeIntent(
  p: LinkLoginParts,
  startedHere: WeakMap<object, string>,
  ctx: Context,
  provider: string,
): Promise<LinkIntent | undefined> {
  const id = startedHere.get(ctx.req) ?? p.cookies.read(ctx, INTENT_COOKIE);
  if (!id) return undefined;
  const intent = await p.intents.redeem(id, (i) => i.provider === provider);
  if (!intent) return undefined;
  p.cookies.clear(ctx, INTENT_COOKIE);
  // The browser must still be in the session that asked: after a logout, or in another user's session, a
  // login is a login, not a link to someone else's account.
  return intent.sid !== undefined && (await p.presentedSid(ctx)) === intent.sid ? intent : undefined;
}

/** The user a login through a known identity is: its account's; undefined when that is the login's own user. */
async function accountUser(p: LinkLoginParts, link: LinkedIdentity, login: LoginAttempt): Promise<User | undefined> {
  if (link.userId === link.subject) {
    // The account's own identity: what its provider says now is the account's profile.
    if (link.provider === login.provider) await p.identities.remember(link.subject, profileOf(login.user));
    return undefined;
  }
  return profileUser(p, link.userId, login);
}

/**
 * The account's own identity, written when missing (a session from before accounts were turned on): its links
 * and the last way in are counted with it.
 */
async function ownIdentity(p: LinkLoginParts, me: SessionOf): Promise<void> {
  const provider = me.claims.auth_provider?.name;
  if (!provider || (await p.identities.get(me.user.id))) return;
  await p.identities.link(identityOf({ provider, user: me.user, amr: [] }, me.user.id, p.clock()));
}
