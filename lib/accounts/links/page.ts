import type { Context } from 'koa';
import { writeJSON } from '../../http/respond.js';
import { escapeHTML } from '../../providers/oauth2-server/page.js';

/**
 * How account linking answers the end of a login that did not log anyone in: JSON for a call, or, for a browser
 * that a provider sent back here (a navigation that accepts HTML), a small page saying the same, with its code,
 * and a way back. Never cached, never framed, no script.
 */
export interface LinkNotice {
  status: number;
  code: string;
  message: string;
  /** Where the page's link leads: the login's permitted `from`, else the site. */
  back: string;
}

export function answerNotice(ctx: Context, navigation: boolean | undefined, notice: LinkNotice): void {
  if (!navigation || ctx.accepts('json', 'html') !== 'html') {
    writeJSON(ctx, notice.status, { error: notice.message, code: notice.code });
    return;
  }
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.status = notice.status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHTML(notice.message)}</title>` +
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head>' +
    '<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem">' +
    `<h1 style="font-size:1.3rem">${escapeHTML(notice.message)}</h1>` +
    `<p><code id="code">${escapeHTML(notice.code)}</code></p>` +
    `<p><a href="${escapeHTML(notice.back)}">Go back</a></p></body></html>`;
}
