import type { Context } from 'koa';

/**
 * True when a browser says the request comes from another site than `origin` (the app's `url`):
 * a foreign `Origin` (`null` included, as sandboxed frames send), else `Sec-Fetch-Site: cross-site`,
 * else a foreign `Referer`. A request with none of them (curl, a server) is not cross-site: only
 * browsers carry ambient cookies worth forging a login into.
 */
export function crossSite(ctx: Context, origin: string): boolean {
  const h = ctx.req.headers;
  const from = h.origin;
  if (typeof from === 'string' && from !== '') return from !== origin;
  const site = h['sec-fetch-site'];
  if (site === 'cross-site') return true;
  if (site === 'same-origin' || site === 'none') return false;
  const referer = h.referer;
  if (typeof referer === 'string' && referer !== '') {
    try {
      return new URL(referer).origin !== origin;
    } catch {
      return true;
    }
  }
  return false;
}
