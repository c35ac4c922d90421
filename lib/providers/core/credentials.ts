import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { rateLimited } from '../../http/respond.js';
import type { CredentialThrottle } from '../../state/throttle.js';

/**
 * One credential check through the failed-login throttle, as every password kind answers it: the
 * attempt is reserved (counted as a failure) before `check` runs, so parallel guesses cannot all pass
 * one look at the count, and a locked-out name or client is refused with 429 and Retry-After without
 * a check. `check` saying anything but true is 403 `bad_credentials` (or what `refusal` makes); `check` throwing is 500
 * `checker_failed` (its error the cause), or the AuthError it threw, and gives the attempt back.
 */
export async function checkCredentials(
  ctx: Context,
  throttle: CredentialThrottle | undefined,
  user: string,
  check: () => boolean | Promise<boolean>,
  refusal: () => AuthError = () => new AuthError('bad_credentials', 'incorrect user or password'),
): Promise<void> {
  const attempt = await throttle?.attempt(user, ctx.ip);
  if (attempt?.wait !== undefined) {
    throw rateLimited(ctx, attempt.wait, 'too many failed login attempts, try again later');
  }
  let ok: boolean;
  try {
    ok = await check();
  } catch (err) {
    await attempt?.abandoned();
    // An AuthError is the check's own answer (a store that is away: 503); anything else is a fault of it.
    if (err instanceof AuthError) throw err;
    throw new AuthError('checker_failed', 'failed to check user credentials', { cause: err });
  }
  if (ok !== true) {
    await attempt?.failed();
    throw refusal();
  }
  await attempt?.succeeded();
}
