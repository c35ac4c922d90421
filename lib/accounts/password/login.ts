import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { crossSite } from '../../http/origin.js';
import { readParams, sessionOnly } from '../../providers/kit.js';
import { MAX_EMAIL_LENGTH, normalizeEmail, type Account } from '../store.js';
import { MAX_PASSWORD_LENGTH } from '../password-policy.js';
import type { PasswordCheck } from '../password-login.js';
import { mayAlsoSend, sessionUserOf, type PasswordParts } from './parts.js';
import { sendConfirmation } from './signup.js';

/**
 * What every refused password login answers (403 `bad_credentials`): a wrong password, an unknown address, and an
 * unconfirmed account whatever the password, so a sign-up followed by a login tells nobody whether the address
 * was free (a new unconfirmed account) or had an account (the sign-up changed nothing).
 */
export const BAD_CREDENTIALS = 'bad credentials; if you just signed up, confirm your address first';

/**
 * `POST login` `{ user, passwd }` (the address in `user`: the shape of `direct`, so `$.RestClient`, the client
 * and the throttle work unchanged) → the session, or the second step. Through the credential throttle,
 * reserved before the hash is computed. A wrong password, an unknown address and an unconfirmed account answer
 * alike (403 `bad_credentials`, counted by the throttle as a failure), after one scrypt derivation each; the right
 * password for an unconfirmed account also mails a new link, after the answer (its sending time does not show).
 */
export function loginRoute(p: PasswordParts): (ctx: Context) => Promise<void> {
  const origin = new URL(p.deps.url).origin;
  return async (ctx) => {
    if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'log in with a POST');
    if (crossSite(ctx, origin)) throw new AuthError('origin_mismatch', 'login must come from this site');
    const params = await readParams(ctx);
    const user = params.user ?? '';
    const passwd = params.passwd ?? '';
    // Longer than any address or password could be: refused before any work, whatever the address.
    if (!user || user.length > MAX_EMAIL_LENGTH + 64 || passwd.length > 4 * MAX_PASSWORD_LENGTH)
      throw new AuthError('bad_request', 'failed to parse credentials');
    const answer: { found: PasswordCheck } = { found: { result: 'wrong' } };
    try {
      // Counted by the address as accounts compare it: changing its case does not make a new name to guess on.
      await p.deps.checkCredentials(ctx, p.config.name, normalizeEmail(user) ?? user, async () => {
        answer.found = await p.check(user, passwd);
        const { found } = answer;
        // The right password: only the owner, who reads the mail, learns the address has an account.
        if (found.result === 'unconfirmed') resendConfirmation(p, ctx.ip, found.account);
        return found.result === 'ok';
      });
    } catch (err) {
      if (err instanceof AuthError && err.code === 'bad_credentials')
        throw new AuthError('bad_credentials', BAD_CREDENTIALS);
      throw err;
    }
    const { found } = answer;
    if (found.result !== 'ok') throw new AuthError('bad_credentials', BAD_CREDENTIALS);
    await p.deps.completeLogin(ctx, {
      provider: p.config.name,
      user: await sessionUserOf(p, found.account),
      aud: params.aud ?? '',
      sessionOnly: sessionOnly(ctx),
      amr: ['pwd'],
    });
  };
}

/** A new confirmation link for an unconfirmed account, within the `rateLimit` of new links, after the answer. */
function resendConfirmation(p: PasswordParts, ip: string, account: Account): void {
  p.later.run('sending a new confirmation link', async () => {
    if (await mayAlsoSend(p, ip, account.email)) await sendConfirmation(p, account);
  });
}
