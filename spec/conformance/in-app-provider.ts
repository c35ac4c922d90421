import type { Context } from 'koa';
import { readBody } from '../../lib/http/body.js';
import { startApp } from '../helpers/http.js';
import { pemKey } from '../server/openid-fixtures.js';
import { ALICE, CLIENTS, REDIRECT, type ProviderUnderTest } from './providers.js';

/**
 * The in-app authorization server (`authorizationServer`) as the provider under test: an app whose users log in with
 * a `direct` provider (alice / wonderland) on a login page of the app's own, as an application writes one — a form
 * that logs the user in and sends the browser back to `from` — and whose issuer is the app's `url`. The suite's
 * clients are the option's clients, trusted (the suite answers no consent page), and its user's claims those of
 * ALICE. The app's server requires PKCE of every client (OAuth 2.1): the modules add it for this provider.
 */

const LOGIN_PAGE = '/signin';

/** The app's login page: a form the suite's browser fills in (`login`, `password`), posted back here. */
async function loginPage(ctx: Context): Promise<void> {
  const from = typeof ctx.query.from === 'string' ? ctx.query.from : '';
  const origin = `${ctx.protocol}://${ctx.host}`;
  if (ctx.method === 'GET') {
    const action = `${LOGIN_PAGE}?from=${encodeURIComponent(from)}`.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    ctx.type = 'text/html';
    ctx.body = `<!doctype html><form method="post" action="${action}">
<input name="login"><input type="password" name="password"><button>Log in</button></form>`;
    return;
  }
  // The app's own login, as its page's script would call it: the session cookies it sets are passed on.
  const form = new URLSearchParams((await readBody(ctx.req, 8 * 1024)).toString('utf8'));
  const res = await fetch(`${origin}/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: form.get('login'), passwd: form.get('password') }),
  });
  for (const cookie of res.headers.getSetCookie()) ctx.append('Set-Cookie', cookie);
  if (res.status !== 200 || !from.startsWith(`${origin}/`)) {
    ctx.status = 401;
    ctx.body = 'login refused';
    return;
  }
  ctx.status = 303;
  ctx.redirect(from);
}

export async function inAppProvider(clock: (() => number) & { advance(ms: number): void }): Promise<ProviderUnderTest> {
  const app = await startApp(
    {
      secret: 'conformance-app-secret-0123456789abcdef',
      clock,
      signing: { alg: 'EdDSA', key: pemKey() },
      stateStore: 'memory://',
      providers: [
        { kind: 'direct', name: 'local', checker: (u: string, p: string) => u === 'alice' && p === 'wonderland' },
      ],
      authorizationServer: {
        clients: Object.values(CLIENTS).map((c) => ({
          id: c.id,
          secret: c.secret,
          redirectURIs: [REDIRECT],
          trusted: true,
        })),
        loginPage: LOGIN_PAGE,
        claims: () => ALICE,
      },
    } as never,
    (router) => {
      router.get(LOGIN_PAGE, loginPage);
      router.post(LOGIN_PAGE, loginPage);
    },
  );
  return { name: 'authkoa-in-app', issuer: app.url, advance: clock.advance, close: () => app.close(), pkce: true };
}
