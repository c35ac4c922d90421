import type { Context } from 'koa';
import { randomId } from '../../session/claims.js';
import type { OAuth2ServerClient } from './clients.js';
import type { LocalServer } from './options.js';
import { escapeHTML, FIELDS } from './page.js';
import { sessionOf } from './sign-in.js';

/** A logout request whose hint, client and return address are known good (logout.ts). */
export interface LogoutRequest {
  /** The claims of `id_token_hint` (signature checked, expiry not). */
  hint?: Record<string, unknown>;
  /** The client named by `client_id`, or by the hint's `aud`. */
  client?: OAuth2ServerClient;
  /** A `post_logout_redirect_uri` registered for that client. */
  redirect?: string;
  state?: string;
}

/**
 * The page that asks a signed-in user to confirm a logout nobody proved they asked for (no hint naming their
 * session): plain HTML, no script, a form posting the request back with the session's CSRF token. Framed
 * nowhere (`frame-ancestors 'none'`), so another site cannot overlay it and have the button pressed.
 */
export function confirmLogoutPage(
  srv: LocalServer,
  ctx: Context,
  req: LogoutRequest,
  status: number,
  error?: string,
): void {
  const sess = sessionOf(ctx);
  sess.csrf ??= randomId();
  const fields: Record<string, string | undefined> = {
    [FIELDS.csrf]: sess.csrf,
    client_id: req.client?.id,
    post_logout_redirect_uri: req.redirect,
    state: req.state,
  };
  const hidden = Object.entries(fields)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escapeHTML(k)}" value="${escapeHTML(v)}">`)
    .join('\n');
  // Chromium checks form-action along the redirects after the post: the return address's origin is listed too.
  const back = req.redirect ? ` ${new URL(req.redirect).origin}` : '';
  ctx.status = status;
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${back}; frame-ancestors 'none'; base-uri 'none'`,
  );
  ctx.set('X-Frame-Options', 'DENY');
  ctx.type = 'text/html; charset=utf-8';
  const from = req.client ? `<p><strong>${escapeHTML(req.client.id)}</strong> asks to sign you out.</p>\n` : '';
  const err = error ? `<p class="error" role="alert">${escapeHTML(error)} Please try again.</p>\n` : '';
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign out</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:24em;margin:3em auto;padding:0 1em}
button{font:inherit;margin-top:1.2em;padding:.3em 1.2em}.error{color:#a00;font-weight:bold}</style></head>
<body><main>
<h1>Sign out?</h1>
${from}${err}<p>You are signed in as <strong>${escapeHTML(sess.user?.name ?? sess.user?.id ?? '')}</strong>.</p>
<form method="post" action="${escapeHTML(`${srv.basePath}/logout`)}">
${hidden}
<button type="submit">Sign out</button>
</form>
</main></body></html>
`;
}
