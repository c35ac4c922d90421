import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { writeJSON } from '../../http/respond.js';
import { readParams, sessionFlag } from '../../providers/kit.js';
import { alreadySpent, writeDeadLinkPage } from '../../providers/verified/confirm-page.js';
import { accountError } from '../errors.js';
import type { StoredAccount } from '../store.js';
import { fingerprint, readLink, spendLink, spentId, type AccountLink } from './links.js';
import { writeAccountPage, writeLinkButtonPage } from './pages.js';
import { isFormPost, sessionUserOf, type PasswordParts } from './parts.js';

/**
 * The confirmation link (`GET`/`POST confirm`), for a sign-up's address and for a new address. A GET (the
 * link opened in a browser, or by a mail scanner) only shows a page whose button POSTs the token; the POST
 * (that button, or a client's `{ token }`) spends the link once and confirms. A sign-up's link then logs the
 * browser in (or sends it to the second step); a new address's link applies the change and ends the
 * account's other sessions, without logging anyone in.
 */
export function confirmRoute(p: PasswordParts): (ctx: Context) => Promise<void> {
  const confirm = async (ctx: Context) => {
    const params = await readParams(ctx);
    const link = await readLink(p.deps, p.config.name, params.token, ['confirm', 'email']);
    if (ctx.method !== 'POST') {
      // A spent link says so at once, instead of a button whose POST can only be refused.
      if (await alreadySpent(p.deps.stateStore, spentId(p.config.name, link), p.deps.clock()))
        throw new AuthError('confirmation_used', 'the link has been used already');
      writeLinkButtonPage(ctx, {
        title: link.purpose === 'email' ? 'Confirm your new address' : 'Confirm your address',
        text: link.purpose === 'email' ? 'Use this address for your account:' : 'Confirm this address and log in:',
        address: link.email,
        action: 'confirm',
        button: 'Confirm',
        fields: { token: params.token, session: sessionFlag(params) ? '1' : '0' },
      });
      return;
    }
    const account = await liveAccount(p, link);
    await spendLink(p.deps.stateStore, p.config.name, link);
    if (link.purpose === 'email') await changeAddress(p, ctx, account, link);
    else await confirmAndLogIn(p, ctx, account, { params, from: link.from });
  };
  return (ctx) =>
    confirm(ctx).catch((err: unknown) => {
      // Opened from a message in a browser: a dead link gets a page, not raw JSON.
      if (!writeDeadLinkPage(ctx, err)) throw err;
    });
}

/**
 * The account a link names, as it was when the link was sent; else the link is dead: 403 `confirmation_used`
 * when it was spent (its redemption changed the account), else `confirmation_invalid`.
 */
export async function liveAccount(p: PasswordParts, link: AccountLink): Promise<StoredAccount> {
  const account = await p.accounts.store.get(link.account);
  if (!account || fingerprint(account) !== link.fp) {
    // Spent by a redemption that changed the account itself (a new password, a new address): say so, as a
    // second click on the same link would be told anyway, not that the link is invalid.
    if (await alreadySpent(p.deps.stateStore, spentId(p.config.name, link), p.deps.clock()))
      throw new AuthError('confirmation_used', 'the link has been used already');
    throw new AuthError('confirmation_invalid', 'the link is no longer valid: the account has changed since');
  }
  return account;
}

/** Marks the address confirmed and logs the browser in, as any login ends. */
async function confirmAndLogIn(
  p: PasswordParts,
  ctx: Context,
  account: StoredAccount,
  { params, from }: { params: Record<string, string>; from: string | undefined },
) {
  let current = account;
  if (!account.emailConfirmed) {
    const { rev, ...fields } = account;
    const next = { ...fields, emailConfirmed: true, updatedAt: p.accounts.clock() };
    if ((await p.accounts.store.update(next, rev)) !== 'updated')
      throw accountError('account_changed', 'the account changed meanwhile: ask for a new link');
    current = { ...next, rev };
    p.accounts.emit('account_confirmed', await eventOf(p, account), ctx);
  }
  // The link's page in a browser goes on to where the sign-up asked, else to the site; a client's call gets JSON.
  const navigation = isFormPost(ctx);
  await p.deps.completeLogin(ctx, {
    provider: p.config.name,
    user: await sessionUserOf(p, current),
    aud: '',
    sessionOnly: sessionFlag(params) ?? false,
    amr: ['email'],
    from: from ?? (navigation ? p.deps.url : undefined),
    navigation,
  });
}

/** Applies a confirmed new address; the account's other sessions end (all but the one that asked). */
async function changeAddress(p: PasswordParts, ctx: Context, account: StoredAccount, link: AccountLink) {
  const { rev, ...fields } = account;
  const next = { ...fields, email: link.email, emailConfirmed: true, updatedAt: p.accounts.clock() };
  const done = await p.accounts.store.update(next, rev);
  if (done === 'email_taken') throw accountError('email_taken', 'that address belongs to another account now');
  if (done !== 'updated') throw accountError('account_changed', 'the account changed meanwhile: ask again');
  await p.accounts.endSessions(account.id, link.keep);
  p.accounts.emit('email_changed', await eventOf(p, account), ctx);
  if (isFormPost(ctx))
    writeAccountPage(ctx, {
      title: 'Address changed',
      text: `Your account now uses ${link.email}. Log in with it from now on.`,
      home: p.deps.url,
    });
  else writeJSON(ctx, 200, { status: 'email_changed', email: link.email });
}

/** The fields every account event of this provider carries. */
export async function eventOf(p: PasswordParts, account: { id: string }) {
  return {
    accountId: account.id,
    provider: p.config.name,
    userId: await p.accounts.userIdOf(account.id),
  };
}
