import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { escapeHTML } from './template.js';

/**
 * The page shown by `confirmPage: true`. Link scanners in mail systems open every link they see;
 * a GET that logged in would spend the one-shot token before the person clicks. The page only
 * offers a button that POSTs the token, and only that POST logs in.
 */
export interface ConfirmPage {
  /** The form's target, relative to the page (the same login route). */
  action: string;
  token: string;
  /** Session-only flag of the GET, carried into the POST. */
  session: boolean;
  /** Origin the login may redirect to after the POST, besides 'self' (CSP form-action covers redirects). */
  redirectOrigin?: string;
  /** Shown on the page: the address being confirmed. */
  address: string;
}

/** Writes the page with its own CSP: the auth routes' default (`sandbox`, no forms) would block the button. */
export function writeConfirmPage(ctx: Context, page: ConfirmPage): void {
  const nonce = randomBytes(16).toString('base64');
  const formAction = ["'self'", page.redirectOrigin].filter(Boolean).join(' ');
  ctx.set('Content-Security-Policy', `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`);
  // The token is in this page's URL: keep it out of caches and of Referer headers to other sites.
  // Not 'no-referrer': that would make the browser send `Origin: null` with the form POST.
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Confirm login</title>
<style nonce="${nonce}">body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}button{font-size:1.1rem;padding:.6rem 1.4rem}</style>
</head>
<body>
<h1>Confirm login</h1>
<p>Log in as <strong>${escapeHTML(page.address)}</strong>?</p>
<form method="post" action="${escapeHTML(page.action)}">
<input type="hidden" name="token" value="${escapeHTML(page.token)}">
<input type="hidden" name="session" value="${page.session ? '1' : '0'}">
<button type="submit">Log in</button>
</form>
</body>
</html>
`;
}
