import type { Context } from 'koa';
import { escapeHTML } from '../providers/oauth2-server/page.js';
import type { ServerParts } from './parts.js';

/**
 * The built-in login page of the authorization server (`loginPage` unset): the configured providers that log in by
 * a browser redirect, each a link that comes back to the authorization request (`from`). An app whose users log in
 * with a form of its own (passwords, passkeys) points `loginPage` at its page instead, which must send them back
 * to `from` once they are in.
 */

/** What the page says when no provider logs in by a redirect. */
const NO_LINKS = 'Log in to the application first, then go back to the app that sent you here.';

/** The kinds whose login starts with a GET the browser follows. */
const REDIRECT_KINDS = new Set(['oauth2', 'social', 'oidc', 'apple', 'dev', 'server']);

export function loginPage(p: ServerParts, ctx: Context): void {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
    ctx.status = 405;
    return;
  }
  const from = typeof ctx.query.from === 'string' ? ctx.query.from : '';
  const back = from.startsWith(`${p.places.authBase}/oauth2/authorize?`) ? from : '';
  const links = p
    .providers()
    .filter((pr) => REDIRECT_KINDS.has(pr.kind ?? ''))
    .map((pr) => {
      const query = back ? `?from=${encodeURIComponent(back)}` : '';
      const href = `${p.places.authBase}/${encodeURIComponent(pr.name)}/login${query}`;
      return `<li><a href="${escapeHTML(href)}">${escapeHTML(pr.name)}</a></li>`;
    });
  ctx.status = 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'");
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Log in</title></head>
<body><main><h1>Log in to continue</h1>
${links.length ? `<ul>${links.join('')}</ul>` : `<p>${NO_LINKS}</p>`}
</main></body></html>
`;
}
