import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Context } from 'koa';
import { AuthError } from '../errors.js';

/**
 * The built `authkoa/client` script-tag bundle (dist/browser/client.global.js: `window.authkoaClient`), which
 * the second-step page loads from `GET <authRoutePath>/mfa/client.js` and makes its requests with, so the
 * page repeats none of the client's code (its fetch, its errors, WebAuthn's JSON forms). From lib/ (run as
 * TypeScript) the bundle is under dist/browser/; from the built dist/lib/, beside it in dist/browser/.
 */
export const CLIENT_BUNDLE = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/browser/client.global.js', import.meta.url)
  : new URL('../../browser/client.global.js', import.meta.url);

interface Bundle {
  body: Buffer;
  etag: string;
}

/**
 * A handler serving the bundle: read on first request and kept by this instance's routes (a failed read is
 * tried again next time), revalidated by its ETag so a browser keeps it across logins.
 */
export function clientScript(file: URL = CLIENT_BUNDLE): (ctx: Context) => Promise<void> {
  let bundle: Promise<Bundle> | undefined;
  const load = () =>
    readFile(file).then((body) => ({ body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` }));
  return async (ctx) => {
    bundle ??= load().catch((err: unknown) => {
      bundle = undefined;
      throw new AuthError('internal_error', 'the client script is not built (npm run build)', { cause: err });
    });
    const { body, etag } = await bundle;
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.etag = etag;
    // Koa tells freshness only of a 2xx answer: the status first, then the check.
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = body;
  };
}
