import type { AuthKoaOptions } from '../../lib/index.js';
import { Client } from '../helpers/http.js';

export const SECRET = 'oauth2-test-secret-0123456789abcdef';

export function options(providers: unknown[], extra: Partial<AuthKoaOptions> = {}): Omit<AuthKoaOptions, 'url'> {
  return { secret: SECRET, providers: providers as AuthKoaOptions['providers'], ...extra };
}

/** Follows one redirect hop: the Location of a 30x response, as an absolute URL. */
export function location(res: Response, base: string): string {
  const loc = res.headers.get('location');
  if (!loc) throw new Error(`expected a redirect, got ${res.status}`);
  return new URL(loc, base).href;
}

/**
 * Starts a login at the app and returns the authorize URL the app redirected to (asserting 302 and
 * the handshake cookie).
 */
export async function startLogin(app: Client, provider: string, query = ''): Promise<URL> {
  const res = await app.fetch(`/auth/${provider}/login${query ? `?${query}` : ''}`);
  if (res.status !== 302) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return new URL(location(res, app.base));
}

/** Logs in through the dev server's form as `user`; returns the callback URL it redirects to. */
export async function devAuthorize(authorizeURL: URL, user: string): Promise<string> {
  const browser = new Client(authorizeURL.origin);
  const page = await browser.fetch(authorizeURL.href);
  if (page.status !== 200) throw new Error(`dev authorize page answered ${page.status}: ${await page.text()}`);
  const html = await page.text();
  const action = /action="([^"]+)"/.exec(html)![1]!.replace(/&#38;/g, '&');
  const res = await browser.fetch(new URL(action, authorizeURL).href, { method: 'POST', form: { username: user } });
  return location(res, authorizeURL.href);
}

/** Login through a stand-in: start at the app, skip the provider's page, come back with a code and the state. */
export async function standinLogin(
  app: Client,
  provider: string,
  query = '',
  code = 'standin-code',
): Promise<Response> {
  const authorize = await startLogin(app, provider, query);
  const state = authorize.searchParams.get('state')!;
  return app.fetch(`/auth/${provider}/callback?code=${code}&state=${state}`);
}
