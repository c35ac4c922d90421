import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { writeJSON } from '../../http/respond.js';
import { readParams } from '../../providers/kit.js';
import { accountError } from '../errors.js';
import { hashPassword } from '../password-hash.js';
import { newAccountId } from '../admin.js';
import { normalizeEmail, type Account, type StoredAccount } from '../store.js';
import { mintLink } from './links.js';
import { checkPassword, sendMessage, withinLimits, type PasswordParts } from './parts.js';

const MAX_NAME = 128;
const MAX_FROM = 2048;
// Controls, line separators and bidi overrides: none belongs in a name a message or a page shows.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const BODY_LIMIT = 16 * 1024;

/** The answer to every well-formed sign-up, whether or not the address has an account. */
const CHECK_EMAIL = { status: 'check_email' };

/**
 * `POST signup` `{ email, password, name?, from? }`: 202 `check_email` for every well-formed request. A free address
 * gets an account (unconfirmed) and a confirmation link; an address with a confirmed account gets a notice
 * instead; an unconfirmed one takes the new password and name and gets a new link (the earlier links die with
 * the old password: someone who signed up with another's address cannot keep it). Every path hashes the
 * password once, so the time does not tell them apart either.
 */
export function signupRoute(p: PasswordParts): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'sign up with a POST');
    if (!p.config.signup) throw accountError('signup_disabled', 'sign-up is turned off: ask an administrator');
    const params = await readParams(ctx, BODY_LIMIT);
    const email = normalizeEmail(params.email);
    if (email === undefined) throw accountError('invalid_email', 'email must be one plain address');
    const name = readName(params.name);
    const from = params.from || undefined;
    if (from !== undefined && (from.length > MAX_FROM || UNSAFE.test(from)))
      throw new AuthError('bad_request', 'invalid from');
    await withinLimits(p, ctx, 'signup', email);
    const password = await checkPassword(p, params.password, { email, name });
    const hash = await hashPassword(password, p.config.scrypt);
    const now = p.accounts.clock();
    const account: Account = {
      ...{ id: newAccountId(), email, emailConfirmed: false },
      ...(name !== undefined && { name }),
      ...{ passwordHash: hash, createdAt: now, updatedAt: now },
    };
    const { store } = p.accounts;
    if (await store.create(account)) {
      p.accounts.emit('signup', { accountId: account.id, provider: p.config.name, by: 'signup' }, ctx);
      await sendConfirmation(p, account, from);
    } else {
      const existing = await store.findByEmail(email);
      if (existing && !existing.emailConfirmed) await signUpAgain(p, existing, { hash, name, from });
      else await sendMessage(p, 'taken', email, { url: p.deps.url, name: existing?.name });
    }
    writeJSON(ctx, 202, CHECK_EMAIL);
  };
}

/** An unconfirmed account signed up for again: the new password and name, and a new link. */
async function signUpAgain(
  p: PasswordParts,
  existing: StoredAccount,
  again: { hash: string; name: string | undefined; from: string | undefined },
) {
  const { rev, ...fields } = existing;
  const next: Account = { ...fields, passwordHash: again.hash, updatedAt: p.accounts.clock() };
  if (again.name !== undefined) next.name = again.name;
  else delete next.name;
  // A concurrent change (the owner confirming just now) wins; this request still answers alike.
  if ((await p.accounts.store.update(next, rev)) === 'updated') await sendConfirmation(p, next, again.from);
}

/** Mints the account's confirmation link and mails it. */
export async function sendConfirmation(p: PasswordParts, account: Account, from?: string): Promise<void> {
  const link = { purpose: 'confirm' as const, account, ...(from !== undefined && { from }) };
  const { url } = await mintLink(p.deps, p.config.name, p.config.confirmS, link);
  await sendMessage(p, 'confirm', account.email, { url, name: account.name });
}

/** The optional display name: trimmed, at most 128 characters, nothing that could disguise a page or a message. */
function readName(input: string | undefined): string | undefined {
  if (input === undefined) return undefined;
  const name = input.trim();
  if (name === '') return undefined;
  if (name.length > MAX_NAME || UNSAFE.test(name)) throw new AuthError('bad_request', 'invalid name');
  return name;
}
