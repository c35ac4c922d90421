import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { AuthError, isErrorCode, type ErrorCode } from '../../errors.js';
import { isStateStore, USED_NS } from '../../state/types.js';
import type { UsedTokenStore } from '../../state/used-tokens.js';
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
  writePage(ctx, {
    status: 200,
    title: 'Confirm login',
    formAction: ["'self'", page.redirectOrigin].filter(Boolean).join(' '),
    // The token is in this page's URL: keep it out of caches and of Referer headers to other sites.
    // Not 'no-referrer': that would make the browser send `Origin: null` with the form POST.
    referrerPolicy: 'same-origin',
    style: 'button{font-size:1.1rem;padding:.6rem 1.4rem}',
    body: `<p>Log in as <strong>${escapeHTML(page.address)}</strong>?</p>
<form method="post" action="${escapeHTML(page.action)}">
<input type="hidden" name="token" value="${escapeHTML(page.token)}">
<input type="hidden" name="session" value="${page.session ? '1' : '0'}">
<button type="submit">Log in</button>
</form>`,
  });
}

/**
 * One small page of the verified provider (and the password kind's): its own nonce-only CSP, never cached, a
 * heading and `body` (already escaped).
 */
export function writePage(
  ctx: Context,
  p: { status: number; title: string; formAction: string; referrerPolicy: string; style?: string; body: string },
): void {
  const nonce = randomBytes(16).toString('base64');
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${p.formAction}; frame-ancestors 'none'; ` +
      `base-uri 'none'`,
  );
  ctx.set('Referrer-Policy', p.referrerPolicy);
  ctx.set('Cache-Control', 'no-store');
  ctx.status = p.status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${p.title}</title>
<style nonce="${nonce}">body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 \
1rem}${p.style ?? ''}</style>
</head>
<body>
<h1>${p.title}</h1>
${p.body}
</body>
</html>
`;
}

/**
 * Whether `id` is already spent, when the store can tell without spending it: a StateStore keeps spent
 * ids in its `used` namespace; a bare markUsed() store cannot be asked, and the link counts as fresh.
 * A store that fails here counts it fresh too: the GET only shows a page, and the POST fails closed.
 */
export async function alreadySpent(store: UsedTokenStore, id: string, now: number): Promise<boolean> {
  if (!isStateStore(store)) return false;
  try {
    const entry = await store.get(USED_NS, id);
    return entry !== undefined && entry.expiresAt > now;
  } catch {
    return false;
  }
}

/** The pages for links that cannot log in any more, by the error the JSON answer would carry. */
const DEAD_LINKS: Partial<Record<ErrorCode, { title: string; text: string }>> = {
  confirmation_used: {
    title: 'Link already used',
    text: 'This login link has already been used: each link logs in once.',
  },
  confirmation_expired: { title: 'Link expired', text: 'This login link has expired.' },
  confirmation_invalid: {
    title: 'Link not valid',
    text: 'This login link is not valid: it may have been cut short or changed on the way.',
  },
};

/**
 * A person who followed a dead link in a browser (it asks for HTML before JSON) gets a page saying so,
 * not raw JSON: writes it, with the error's status, and returns true. Any other request or error is left
 * to the caller (false), whose JSON answer scripts branch on.
 */
export function writeDeadLinkPage(ctx: Context, err: unknown): boolean {
  const page = err instanceof AuthError && isErrorCode(err.code) ? DEAD_LINKS[err.code] : undefined;
  if (!page || ctx.accepts('json', 'html') !== 'html') return false;
  writePage(ctx, {
    status: (err as AuthError).status,
    title: page.title,
    formAction: "'none'",
    referrerPolicy: 'no-referrer',
    body: `<p>${page.text}</p>
<p>To log in, ask for a new link where you asked for this one.</p>`,
  });
  return true;
}
