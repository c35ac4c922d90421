import type { Context } from 'koa';
import type { LoginAttempt } from '../../features/contract.js';
import { AuthError } from '../../errors.js';
import { writeJSON } from '../../http/respond.js';
import type { Claims } from '../../session/claims.js';
import { requireFresh, type SessionOf } from '../../session/fresh.js';
import type { User } from '../../user.js';
import { accountError } from '../errors.js';
import type { AccountStore } from '../store.js';
import { normalizeEmail } from '../store.js';
import { INTENT_COOKIE, OFFER_COOKIE, type LinkCookies } from './cookies.js';
import { offeredByEmail } from './email.js';
import type { IdentityStore, LinkedIdentity } from './identities.js';
import { LINK_INTENT_MS, PENDING_LINK_MS, type BrowserOffers, type LinkIntent, type PendingLinks } from './offers.js';
import { answerNotice } from './page.js';

/**
 * Account linking at login (docs/accounts.md#linking): every login's identity mapped to its account, a link made
 * when a fresh session asked for one, an offer kept when a trusted address is an account's, that offer completed by
 * the account's own login. The accounts feature's `loginStarts`, `identify` and `sessionStarted` are these.
 */

/** A link start needs a login at most this old, as every change to how an account logs in does. */
export const LINK_FRESH_MS = 5 * 60_000;

export interface LinkLoginParts {
  identities: IdentityStore;
  intents: BrowserOffers<LinkIntent>;
  offers: PendingLinks;
  cookies: LinkCookies;
  accounts: AccountStore;
  /** The user id of an account's own identity under the first password provider, when there is one. */
  accountUserId(accountId: string): string | undefined;
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

/** The feature's members at login, each a function of its own (handed to the feature set as they are). */
export interface LinkLogin {
  loginStarts: (ctx: Context, provider: string) => Promise<void>;
  identify: (ctx: Context, login: LoginAttempt) => Promise<User | undefined | true>;
  sessionStarted: (ctx: Context, claims: Claims) => Promise<void>;
}

export function linkLogin(p: LinkLoginParts): LinkLogin {
  // A link started and finished by one request (a password login's POST with `?link=1`): its intent's id by request.
  const startedHere = new WeakMap<object, string>();

  /** The intent this browser holds for a login through `provider`, spent; undefined when it holds none for it. */
  async function takeIntent(ctx: Context, provider: string): Promise<LinkIntent | undefined> {
    const id = startedHere.get(ctx.req) ?? p.cookies.read(ctx, INTENT_COOKIE);
    if (!id) return undefined;
    const intent = await p.intents.redeem(id, (i) => i.provider === provider);
    if (!intent) return undefined;
    p.cookies.clear(ctx, INTENT_COOKIE);
    // The browser must still be in the session that asked: after a logout, or in another user's session, a
    // login is a login, not a link to someone else's account.
    return intent.sid !== undefined && (await p.presentedSid(ctx)) === intent.sid ? intent : undefined;
  }

  /** The identity of this login linked to the intent's account; the answer sent (a redirect, or the link). */
  async function linkNow(ctx: Context, login: LoginAttempt, intent: LinkIntent): Promise<true> {
    const subject = login.user.id;
    const back = p.safeRedirect(intent.from);
    if (subject !== intent.userId) {
      const made = await p.identities.link(identityOf(login, intent.userId, p.clock()));
      if (made === 'in_use' && (await p.identities.get(subject))?.userId !== intent.userId) {
        answerNotice(ctx, login.navigation, {
          status: 409,
          code: 'identity_in_use',
          message: 'That identity is linked to another account already',
          back: back ?? p.url,
        });
        return true;
      }
      if (made === 'linked') {
        p.emit('identity_linked', { userId: intent.userId, provider: login.provider, by: 'user' }, ctx);
        await p.linked(intent.userId, intent.sid);
      }
    }
    if (back) {
      ctx.status = 303;
      ctx.redirect(back);
    } else {
      // As a login answers: the user, who is still the account's.
      writeJSON(ctx, 200, await profileUser(intent.userId, login));
    }
    return true;
  }

  /** An offer by address, when this first login's trusted, verified address is an account's: answered 409. */
  async function offerByAddress(ctx: Context, login: LoginAttempt): Promise<boolean> {
    if (!p.trustEmail.includes(login.provider) || login.emailVerified !== true) return false;
    const email = normalizeEmail(login.user.email);
    const account = email === undefined ? undefined : await p.accounts.findByEmail(email);
    const report = { provider: login.provider, email: login.user.email, verified: login.emailVerified };
    if (!account || !offeredByEmail(report, p.trustEmail, account)) return false;
    const own = p.accountUserId(account.id);
    if (own === undefined) return false;
    const userId = (await p.identities.get(own))?.userId ?? own;
    const offered = identityOf(login, userId, 0);
    const identity = {
      subject: offered.subject,
      provider: offered.provider,
      ...(offered.name && { name: offered.name }),
      ...(offered.email && { email: offered.email }),
    };
    const id = await p.offers.offer({ userId, identity, createdAt: p.clock() }, PENDING_LINK_MS);
    p.cookies.set(ctx, OFFER_COOKIE, id, PENDING_LINK_MS);
    p.emit('link_offered', { userId, provider: login.provider }, ctx);
    answerNotice(ctx, login.navigation, {
      status: 409,
      code: 'account_exists',
      message: 'An account with this address exists: log in to it here within 15 minutes to link this identity',
      back: p.safeRedirect(login.from) ?? p.url,
    });
    return true;
  }

  /** The user a login through a known identity is: its account's; undefined when that is the login's own user. */
  async function accountUser(link: LinkedIdentity, login: LoginAttempt): Promise<User | undefined> {
    if (link.userId === link.subject) {
      // The account's own identity: what its provider says now is the account's profile.
      if (link.provider === login.provider) await p.identities.remember(link.subject, profileOf(login.user));
      return undefined;
    }
    return profileUser(link.userId, login);
  }

  /** The account `userId` as its own identity last logged in (its name, picture, role), else as this login. */
  async function profileUser(userId: string, login: LoginAttempt): Promise<User> {
    const own = (await p.identities.get(userId))?.profile;
    return { ...(own ?? { name: login.user.name, picture: login.user.picture }), id: userId };
  }

  /**
   * The account's own identity, written when missing (a session from before accounts were turned on): its links
   * and the last way in are counted with it.
   */
  async function ownIdentity(me: SessionOf): Promise<void> {
    const provider = me.claims.auth_provider?.name;
    if (!provider || (await p.identities.get(me.user.id))) return;
    await p.identities.link(identityOf({ provider, user: me.user, amr: [] }, me.user.id, p.clock()));
  }

  return {
    async loginStarts(ctx, provider) {
      const asked = ctx.query.link;
      if (asked === undefined) return;
      if (asked !== '1') throw new AuthError('bad_request', 'link must be 1');
      const me = await p.navigationSession(ctx);
      requireFresh(me, LINK_FRESH_MS, p.clock());
      await ownIdentity(me);
      const from = typeof ctx.query.from === 'string' ? ctx.query.from : undefined;
      const intent: LinkIntent = { userId: me.user.id, sid: me.claims.sid, provider, ...(from && { from }) };
      const id = await p.intents.offer(intent, LINK_INTENT_MS);
      p.cookies.set(ctx, INTENT_COOKIE, id, LINK_INTENT_MS);
      startedHere.set(ctx.req, id);
    },

    async identify(ctx, login) {
      const intent = await takeIntent(ctx, login.provider);
      if (intent) return linkNow(ctx, login, intent);
      const subject = login.user.id;
      const link = await p.identities.get(subject);
      if (link) return accountUser(link, login);
      if (await offerByAddress(ctx, login)) return true;
      // A first login with accounts on: the identity is an account of its own, under the id it has today.
      if ((await p.identities.link(identityOf(login, subject, p.clock()))) === 'linked') return undefined;
      const raced = await p.identities.get(subject);
      return raced ? accountUser(raced, login) : undefined;
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

/** The identity a login brought, as linked to `userId`. */
function identityOf(login: LoginAttempt, userId: string, now: number): LinkedIdentity {
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
function profileOf(u: User): User {
  const profile: User = { ...u };
  delete profile.aud;
  delete profile.ip;
  return profile;
}
