import * as oidc from 'openid-client';
import { Client, serve, type Served } from '../helpers/http.js';
import { signIn } from './fixtures.js';
import { rpAuthorization, type RPTokens } from './openid-fixtures.js';

/**
 * The pieces of the logout tests: a relying party's sign-in in a browser the test keeps (its cookie at the
 * server is the sign-in session a logout ends), and a Back-Channel Logout receiver, a plain node server.
 */

/** Where the test relying parties are sent back after a logout; never visited. */
export const LOGGED_OUT = 'http://127.0.0.1:9/logged-out';

/**
 * openid-client's sign-in in `browser` (its session at the server stays in the browser's jar); a browser the
 * server still remembers gets its code without the page.
 */
export async function signInWith(
  config: oidc.Configuration,
  browser: Client,
  user = 'alice',
  password = 'wonderland',
): Promise<RPTokens> {
  const login = await rpAuthorization(config);
  const first = await browser.fetch(login.url.href);
  const callback =
    first.status === 302
      ? new URL(first.headers.get('location')!)
      : await signIn(browser, login.url.href, user, password);
  return oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: login.verifier,
    expectedNonce: login.nonce,
    expectedState: login.state,
  });
}

/** Whether the browser is still signed in at the server: a `prompt=none` request gets a code, not `login_required`. */
export async function signedIn(config: oidc.Configuration, browser: Client): Promise<boolean> {
  const { url } = await rpAuthorization(config);
  url.searchParams.set('prompt', 'none');
  const res = await browser.fetch(url.href);
  return new URL(res.headers.get('location')!).searchParams.has('code');
}

/** One POST a receiver got. */
export interface Received {
  contentType: string;
  token: string;
}

export interface Receiver extends Served {
  received: Received[];
  /** Resolves once `n` POSTs have arrived (no sleeping: each arrival settles the wait). */
  count(n: number): Promise<Received[]>;
}

/** A Back-Channel Logout endpoint answering `statuses` in turn, then 200. */
export async function startReceiver(statuses: number[] = []): Promise<Receiver> {
  const received: Received[] = [];
  const waiting: Array<{ n: number; resolve: (r: Received[]) => void }> = [];
  const served = await serve(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    received.push({ contentType: req.headers['content-type'] ?? '', token: body.get('logout_token') ?? '' });
    res.writeHead(statuses.shift() ?? 200, { 'Cache-Control': 'no-store' }).end();
    for (const w of waiting.filter((w) => received.length >= w.n)) w.resolve(received.slice());
  });
  return {
    ...served,
    received,
    count: (n) =>
      received.length >= n
        ? Promise.resolve(received.slice())
        : new Promise((resolve) => void waiting.push({ n, resolve })),
  };
}
