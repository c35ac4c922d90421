import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { crossSite } from '../../http/origin.js';
import { readParams, sessionOnly } from '../../providers/kit.js';
import { accountError } from '../errors.js';
import { MAX_EMAIL_LENGTH, normalizeEmail } from '../store.js';
import { MAX_PASSWORD_LENGTH } from '../password-policy.js';
import type { PasswordCheck } from '../password-login.js';
import { mayAlsoSend, sessionUserOf, type PasswordParts } from './parts.js';
import { sendConfirmation } from './signup.js';

/**
 * `POST login` `{ user, passwd }` (the address in `user`: the shape of `direct`, so `$.RestClient`, the client
 * and the throttle work unchanged) → the session, or the second step. Through the credential throttle,
 * reserved before the hash is computed. A wrong password, an unknown address and an unconfirmed account with
 * a wrong password answer alike (403 `bad_credentials`), after one scrypt derivation each; the right password
 * for an unconfirmed account answers 403 `email_not_confirmed` and sends a new link.
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
    // Counted by the address as accounts compare it: changing its case does not make a new name to guess on.
    await p.deps.checkCredentials(ctx, p.config.name, normalizeEmail(user) ?? user, async () => {
      answer.found = await p.check(user, passwd);
      return answer.found.result !== 'wrong';
    });
    const { found } = answer;
    if (found.result === 'unconfirmed') {
      // The password is right: only the owner learns the address has an account, and gets a new link.
      if (await mayAlsoSend(p, ctx, found.account.email)) await sendConfirmation(p, found.account);
      throw accountError('email_not_confirmed', 'confirm your address first: a new link has been sent');
    }
    if (found.result !== 'ok') throw new AuthError('bad_credentials', 'bad credentials');
    await p.deps.completeLogin(ctx, {
      provider: p.config.name,
      user: await sessionUserOf(p, found.account),
      aud: params.aud ?? '',
      sessionOnly: sessionOnly(ctx),
      amr: ['pwd'],
    });
  };
}
