import type { Middleware } from 'koa';

/**
 * Keeps the demo on its one public address. Cookies, the OAuth2 state cookie, the direct login's Origin
 * check and passkeys are all bound to the public URL's host, so under any other name the demo only half
 * works: opened at http://127.0.0.1:8080 while it publishes http://localhost:8080, the dev login ended on
 * raw JSON `invalid_handshake` and the direct login on `403 origin_mismatch`. A GET or HEAD under
 * another host is redirected to the same path on the public URL; other methods get a 421 naming the
 * address, since a redirect would drop or repeat their body. An unspecified listen address (0.0.0.0,
 * ::) is no address a browser can be sent to, so such a demo answers every host as before.
 */
export function publicHostOnly(publicUrl: string): Middleware {
  const { host, hostname } = new URL(publicUrl);
  if (hostname === '0.0.0.0' || hostname === '[::]')
    return async (_ctx, next) => {
      await next();
    };
  return async (ctx, next) => {
    // Koa's ctx.host is the Host header (X-Forwarded-Host only with app.proxy); the URL API lowercases too.
    if (ctx.host.toLowerCase() === host) {
      await next();
      return;
    }
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      // Concatenated, not resolved: a path such as //evil.example stays a path on the public host.
      const path = ctx.path.startsWith('/') ? ctx.path : '/';
      ctx.redirect(publicUrl + path + (ctx.querystring ? `?${ctx.querystring}` : ''));
      return;
    }
    ctx.status = 421;
    ctx.body = {
      error: `this demo answers at ${publicUrl}: open ${publicUrl}/ (cookies and login checks are bound to that address)`,
      code: 'wrong_host',
    };
  };
}
