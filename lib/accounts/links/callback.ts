import type { Context } from 'koa';
import type { LoginAttempt } from '../../features/contract.js';
import { writeJSON } from '../../http/respond.js';
import { normalizeEmail } from '../store.js';
import { OFFER_COOKIE } from './cookies.js';
import { offeredByEmail } from './email.js';
import { PENDING_LINK_MS, type LinkIntent } from './offers.js';
import { answerNotice } from './page.js';
import type { LinkLoginParts } from './parts.js';
import { identityOf, profileUser } from './profile.js';

/**
 * What a login's end does instead of logging in: the link a fresh session asked for, made at the provider's
 * callback (or `identity_in_use`); an offer kept when a first login's trusted, verified address is an account's.
 */

/** The identity of this login linked to the intent's account; the answer sent (a redirect, or the link). */
export async function linkAtCallback(
  p: LinkLoginParts,
  ctx: Context,
  login: LoginAttempt,
  intent: LinkIntent,
): Promise<true> {
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
    writeJSON(ctx, 200, await profileUser(p, intent.userId, login));
  }
  return true;
}

/** An offer by address, when this first login's trusted, verified address is an account's: answered 409. */
export async function offerByAddress(p: LinkLoginParts, ctx: Context, login: LoginAttempt): Promise<boolean> {
  if (!p.trustEmail.includes(login.provider) || login.emailVerified !== true) return false;
  const email = normalizeEmail(login.user.email);
  const account = email === undefined ? undefined : await p.accounts.findByEmail(email);
  const report = { provider: login.provider, email: login.user.email, verified: login.emailVerified };
  if (!account || !offeredByEmail(report, p.trustEmail, account)) return false;
  const own = await p.accountUserId(account.id);
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
