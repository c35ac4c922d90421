import type { Context } from 'koa';

/** What the second-step page shows. */
export interface MfaPageInput {
  /** The auth routes' prefix: the page posts to `<authRoutePath>/mfa/…`. */
  authRoutePath: string;
  /** The factors the pending login may answer with: `totp`, `recovery`, `passkey`. */
  factors: string[];
  /** The pending login must set up TOTP first (mfa.required, no factor yet). */
  enroll: boolean;
  /** The browser has a pending login. */
  pending: boolean;
  /** The browser's pending login is too old (or not valid): the page says to log in again. */
  expired: boolean;
  /** Where to go once the second step passed: a `from` the redirect policy permits; undefined: '/'. */
  next: string | undefined;
}

/** Renders the built-in second-step page into `ctx`. */
export function sendMfaPage(ctx: Context, input: MfaPageInput): void {
  ctx.status = 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html><title>Two-step login</title><p>${input.pending ? 'Enter the code from your app.' : 'No login to finish.'}</p>`;
}
