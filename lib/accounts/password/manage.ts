import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { writeJSON } from '../../http/respond.js';
import { readParams } from '../../providers/kit.js';
import { requireFresh } from '../../session/fresh.js';
import { accountError } from '../errors.js';
import { hashPassword, verifyPassword } from '../password-hash.js';
import { normalizeEmail, type StoredAccount } from '../store.js';
import { eventOf } from './confirm.js';
import { mintLink } from './links.js';
import { sendPasswordNotice } from './notice.js';
import { checkPassword, sendMessage, withinLimits, type PasswordParts } from './parts.js';

const BODY_LIMIT = 16 * 1024;

/**
 * The routes an account's owner manages it with, each for a fresh login only: a full login (cookie with its
 * XSRF header, or the other transports of a full login) whose last login or step-up passed every factor and is
 * at most `fresh` old, else 401 `reauth_required` and nothing changes.
 */

/** The account of the request's fresh login through this provider; its session id. */
async function freshAccount(p: PasswordParts, ctx: Context): Promise<{ account: StoredAccount; sid?: string }> {
  const session = await p.deps.loginSession(ctx);
  requireFresh(session, p.config.freshMs, p.deps.clock());
  const id = await p.accounts.accountIdOf(session.user.id);
  const account = id === undefined ? undefined : await p.accounts.store.get(id);
  if (!account) throw accountError('account_not_found', `this login is not an account of ${p.config.name}`);
  return { account, sid: session.claims.sid };
}

/**
 * `POST password` `{ current, password }`: the new password; the account's other sessions end, and the owner is
 * mailed the notice of a new password (notice.ts).
 */
export function changePasswordRoute(p: PasswordParts): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'change the password with a POST');
    const { account, sid } = await freshAccount(p, ctx);
    const params = await readParams(ctx, BODY_LIMIT);
    const current = params.current ?? '';
    // Counted by the credential throttle as a login is: a session left open cannot be used to guess.
    await p.deps.checkCredentials(ctx, p.config.name, account.email, () =>
      account.passwordHash ? verifyPassword(current, account.passwordHash) : false,
    );
    const password = await checkPassword(p, params.password, account);
    const { rev, ...fields } = account;
    const next = { ...fields, passwordHash: await hashPassword(password, p.config.scrypt), updatedAt: p.deps.clock() };
    if ((await p.accounts.store.update(next, rev)) !== 'updated')
      throw accountError('account_changed', 'the account changed meanwhile: try again');
    await p.accounts.endSessions(account.id, sid);
    p.accounts.emit('password_changed', { ...(await eventOf(p, account)), by: 'user' }, ctx);
    sendPasswordNotice(p, account);
    writeJSON(ctx, 200, { status: 'password_changed' });
  };
}

/**
 * `POST email` `{ email }` → 202 `check_email`: a link to the new address (a notice instead when it has an
 * account: its owner learns of it, the asker does not) and a notice to the old one. The change applies when
 * the link is followed (confirm.ts).
 */
export function changeEmailRoute(p: PasswordParts): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'change the address with a POST');
    const { account, sid } = await freshAccount(p, ctx);
    const params = await readParams(ctx, BODY_LIMIT);
    const email = normalizeEmail(params.email);
    if (email === undefined) throw accountError('invalid_email', 'email must be one plain address');
    await withinLimits(p, ctx, 'email', email);
    if (email !== account.email) {
      const taken = await p.accounts.store.findByEmail(email);
      if (taken) await sendMessage(p, 'taken', email, { url: p.deps.url, name: taken.name });
      else {
        const link = { purpose: 'email' as const, account, email, ...(sid !== undefined && { keep: sid }) };
        const { url } = await mintLink(p.deps, p.config.name, p.config.confirmS, link);
        await sendMessage(p, 'emailChange', email, { url, name: account.name });
      }
      await sendMessage(p, 'emailNotice', account.email, { url: p.deps.url, name: account.name });
    }
    writeJSON(ctx, 202, { status: 'check_email' });
  };
}

/**
 * `DELETE account` → 200: every session ends (this one's cookies are cleared), the account goes, and with it
 * what the features and providers keep for its user (second factors, passkeys); the address can sign up again.
 */
export function deleteAccountRoute(p: PasswordParts): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    if (ctx.method !== 'DELETE') throw new AuthError('method_not_allowed', 'delete the account with DELETE');
    const { account } = await freshAccount(p, ctx);
    if (!(await p.accounts.store.delete(account.id, account.rev)))
      throw accountError('account_changed', 'the account changed meanwhile: try again');
    await p.accounts.endSessions(account.id);
    await p.accounts.forget(account.id);
    p.accounts.emit('account_deleted', { ...(await eventOf(p, account)), by: 'user' }, ctx);
    p.deps.endSession(ctx);
    writeJSON(ctx, 200, { status: 'account_deleted' });
  };
}
