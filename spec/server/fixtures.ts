import { createHash, randomBytes } from 'node:crypto';
import type { AuthKoaOptions } from '../../lib/index.js';
import { Client } from '../helpers/http.js';

export const SECRET = 'server-test-secret-0123456789abcdef';

/** The users the test checker knows: alice gets a profile, bob is accepted with `true`. */
export async function checker(user: string, passwd: string) {
  if (user === 'alice' && passwd === 'wonderland')
    return { id: 'alice', name: 'Alice Liddell', email: 'alice@example.test' };
  return user === 'bob' && passwd === 'builder';
}

export function options(providers: unknown[], extra: Partial<AuthKoaOptions> = {}): Omit<AuthKoaOptions, 'url'> {
  return { secret: SECRET, providers: providers as AuthKoaOptions['providers'], ...extra };
}

/** The form of a login page: where it posts and its CSRF token. */
export function form(html: string): { action: string; csrf: string } {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="csrf_token" value="([^"]*)"/.exec(html)?.[1];
  if (!action || csrf === undefined) throw new Error(`no login form in: ${html.slice(0, 300)}`);
  const unescape = (s: string) => s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));
  return { action: unescape(action), csrf: unescape(csrf) };
}

/** Opens the login page in `browser` and posts the credentials; returns the page and the post's response. */
export async function submitLogin(
  browser: Client,
  authorizeURL: string,
  username: string,
  password: string,
  csrf?: string,
) {
  const page = await browser.fetch(authorizeURL);
  if (page.status !== 200) throw new Error(`authorize answered ${page.status}: ${await page.text()}`);
  const f = form(await page.text());
  const fields: Record<string, string> = { username, password };
  if (csrf !== '') fields.csrf_token = csrf ?? f.csrf;
  const res = await browser.fetch(new URL(f.action, authorizeURL).href, { method: 'POST', form: fields });
  return { action: f.action, res };
}

/**
 * Signs in on the server's page and follows the post-redirect-get back to the client;
 * returns the URL the server finally redirects to (the client's redirect URI with code and state).
 */
export async function signIn(browser: Client, authorizeURL: string, username: string, password: string): Promise<URL> {
  const { res } = await submitLogin(browser, authorizeURL, username, password);
  if (res.status !== 303) throw new Error(`login post answered ${res.status}: ${await res.text()}`);
  const again = await browser.fetch(new URL(res.headers.get('location')!, authorizeURL).href);
  if (again.status !== 302) throw new Error(`authorize after sign-in answered ${again.status}: ${await again.text()}`);
  return new URL(again.headers.get('location')!);
}

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An authorize URL for a client of a standalone server. */
export function authorizeURL(base: string, q: Record<string, string>): string {
  return `${base}/authorize?${new URLSearchParams({ response_type: 'code', state: 'st4te', ...q })}`;
}

/** Exchanges a code at the token endpoint with client credentials in HTTP Basic. */
export function exchange(
  base: string,
  client: { id: string; secret: string },
  body: Record<string, string>,
): Promise<Response> {
  return fetch(`${base}/access_token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', ...body }),
  });
}
