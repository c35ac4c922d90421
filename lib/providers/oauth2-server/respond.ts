import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { redirect } from './http.js';
import type { LocalServer } from './options.js';
import { escapeHTML } from './page.js';

/**
 * How an authorization response reaches the client: in the redirect's query (the default), or as a
 * form the browser posts to the redirect URI (`response_mode=form_post`, OAuth 2.0 Form Post Response
 * Mode), so the code never sits in a URL, a history entry or a Referer.
 */

export type ResponseMode = 'query' | 'form_post';

/** The page's only script: it submits the form; a browser without scripts shows the button instead. */
const SUBMIT = 'document.forms[0].submit()';
const SUBMIT_HASH = createHash('sha256').update(SUBMIT).digest('base64');

/**
 * Sends `params` (a code and state, or an error) to the client's redirect URI. With an OpenID provider
 * each answer carries `iss` (RFC 9207), so a client talking to several servers can tell which one answered.
 */
export function respond(
  srv: LocalServer,
  ctx: Context,
  to: { redirectURI: string; mode: ResponseMode },
  params: Record<string, string | undefined>,
): void {
  sendAuthorizationResponse(ctx, to, { ...params, iss: srv.o.signer ? srv.base : undefined });
}

/** Sends `params` (undefined ones left out) to the redirect URI in the mode asked: both authorization servers' way. */
export function sendAuthorizationResponse(
  ctx: Context,
  to: { redirectURI: string; mode: ResponseMode },
  all: Record<string, string | undefined>,
): void {
  if (to.mode === 'query') return redirect(ctx, to.redirectURI, all);
  const fields = Object.entries(all)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escapeHTML(k)}" value="${escapeHTML(v)}">`)
    .join('\n');
  ctx.status = 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'sha256-${SUBMIT_HASH}'; form-action ${new URL(to.redirectURI).origin}; ` +
      `frame-ancestors 'none'; base-uri 'none'`,
  );
  ctx.set('X-Frame-Options', 'DENY');
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Signing in…</title></head>
<body><form method="post" action="${escapeHTML(to.redirectURI)}">
${fields}
<noscript><button type="submit">Continue</button></noscript>
</form><script>${SUBMIT}</script></body></html>
`;
}
