import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { writeJSON } from '../../http/respond.js';
import { readParams } from '../../providers/kit.js';
import { alreadySpent, writeDeadLinkPage } from '../../providers/verified/confirm-page.js';
import { accountError } from '../errors.js';
import { hashPassword } from '../password-hash.js';
import { normalizeEmail, type Account, type StoredAccount } from '../store.js';
import { eventOf, liveAccount } from './confirm.js';
import { mintLink, readLink, spendLink, spentId } from './links.js';
import { sendPasswordNotice } from './notice.js';
import { writeAccountPage, writeResetPage } from './pages.js';
import { checkPassword, isFormPost, sendMessage, withinLimits, type PasswordParts } from './parts.js';

const BODY_LIMIT = 16 * 1024;

/**
 * `POST reset` `{ email }` → 202 `check_email` for every well-formed request (429 over the limits, whatever the
 * address). An account's owner gets a single-use link (`resetTimeout`). The answer goes before the message is
 * handed to the sender, so neither its body nor its time tells whether the address has an account; a failed
 * send is logged.
 */
export function resetRoute(p: PasswordParts): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'ask for a reset with a POST');
    const params = await readParams(ctx, BODY_LIMIT);
    const email = normalizeEmail(params.email);
    if (email === undefined) throw accountError('invalid_email', 'email must be one plain address');
    await withinLimits(p, ctx, 'reset', email);
    const account = await p.accounts.store.findByEmail(email);
    writeJSON(ctx, 202, { status: 'check_email' });
    if (account) p.later.run('sending a reset link', () => sendResetLink(p, account));
  };
}

/** Mints a reset link for the account (as the admin's resetLink does) and mails it. */
async function sendResetLink(p: PasswordParts, account: Account): Promise<void> {
  await sendMessage(p, 'reset', account.email, { url: await resetLink(p, account), name: account.name });
}

/** A single-use reset link for the account. */
export async function resetLink(p: PasswordParts, account: Account): Promise<string> {
  return (await mintLink(p.deps, p.config.name, p.config.resetS, { purpose: 'reset', account })).url;
}

/**
 * The reset link: `GET reset/confirm?token=` shows the form for a new password; `POST reset/confirm`
 * `{ token, password }` sets it. A password the policy refuses is answered without spending the link; the
 * link then works once. Following it proves the address, which counts as confirmed. It does not log in: every
 * session and personal token of the account ends (`accounts.resetRevokes`), the owner is mailed the notice of a
 * new password (notice.ts), and logs in with it (the second factor asked as always).
 */
export function resetConfirmRoute(p: PasswordParts): (ctx: Context) => Promise<void> {
  const handle = async (ctx: Context) => {
    const params = await readParams(ctx, BODY_LIMIT);
    const link = await readLink(p.deps, p.config.name, params.token, ['reset']);
    const account = await liveAccount(p, link);
    if (ctx.method !== 'POST') {
      if (await alreadySpent(p.deps.stateStore, spentId(p.config.name, link), p.deps.clock()))
        throw new AuthError('confirmation_used', 'the link has been used already');
      writeResetPage(ctx, { token: params.token, address: account.email, minLength: p.config.policy.minLength });
      return;
    }
    let password: string;
    try {
      password = await checkPassword(p, params.password, account);
    } catch (err) {
      if (!(isFormPost(ctx) && err instanceof AuthError && err.status === 400)) throw err;
      const problem = err.message;
      const page = { token: params.token, address: account.email, minLength: p.config.policy.minLength };
      writeResetPage(ctx, { ...page, problem, status: 400 });
      return;
    }
    await spendLink(p.deps.stateStore, p.config.name, link);
    await setPassword(p, account, await hashPassword(password, p.config.scrypt));
    // Whoever held the account keeps nothing: its sessions and personal tokens end (`accounts.resetRevokes`), and
    // the owner is told which logins are linked to it, one of them perhaps linked by that someone.
    await p.accounts.recovered(account.id);
    p.accounts.emit('password_reset', await eventOf(p, account), ctx);
    sendPasswordNotice(p, account);
    if (isFormPost(ctx))
      writeAccountPage(ctx, {
        title: 'Password changed',
        text: 'Your password is changed: log in with it now.',
        home: p.deps.url,
      });
    else writeJSON(ctx, 200, { status: 'password_reset' });
  };
  return (ctx) =>
    handle(ctx).catch((err: unknown) => {
      if (!writeDeadLinkPage(ctx, err)) throw err;
    });
}

/** Writes the new hash (the address counts as confirmed); a concurrent change is a 409 `account_changed`. */
async function setPassword(p: PasswordParts, account: StoredAccount, passwordHash: string): Promise<void> {
  const { rev, ...fields } = account;
  const next = { ...fields, passwordHash, emailConfirmed: true, updatedAt: p.accounts.clock() };
  if ((await p.accounts.store.update(next, rev)) !== 'updated')
    throw accountError('account_changed', 'the account changed meanwhile: ask for a new link');
}
