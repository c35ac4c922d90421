import { Client } from '../helpers/http.js';

/**
 * A browser for the conformance modules: a cookie jar that follows an authorization request through
 * the provider's pages (login, and oidc-provider's consent) until the answer leaves for the client,
 * the way the OpenID Foundation's suite drives a browser. It signs in as the test user whenever a login
 * page appears and records that it did: the prompt and max_age modules are about exactly that.
 */

/** Where an authorization request ended. */
export interface Arrival {
  /** `query`: a redirect to the client; `form_post`: a form the browser posts to it; `page`: the provider kept the browser. */
  via: 'query' | 'form_post' | 'page';
  /** The authorization response (code, state, iss, or error); empty for a page. */
  params: URLSearchParams;
  /** Whether a login page was shown (and answered) on the way. */
  loginShown: boolean;
  /** The status of the last answer (a page's: 400 for a refused redirect URI). */
  status: number;
  /** The page's text, when the provider kept the browser. */
  page?: string;
}

const MAX_HOPS = 16;

/** Unescapes what an HTML attribute value holds. */
function unescapeHTML(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCharCode(parseInt(n, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The first form of a page: its action and its named inputs with their values. */
export function pageForm(html: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1];
    if (name !== undefined) fields[unescapeHTML(name)] = unescapeHTML(value ?? '');
  }
  return { action: unescapeHTML(form[1]!), fields };
}

export class Browser {
  private readonly client: Client;

  constructor(
    private readonly opOrigin: string,
    private readonly user = 'alice',
    private readonly password = 'wonderland',
  ) {
    this.client = new Client(opOrigin);
  }

  /** Sends an authorization request (a GET, or a POST of its parameters) and follows it to its end. */
  async authorize(url: URL, method: 'GET' | 'POST' = 'GET'): Promise<Arrival> {
    let res =
      method === 'GET'
        ? await this.client.fetch(url.href)
        : await this.client.fetch(url.origin + url.pathname, {
            method: 'POST',
            form: Object.fromEntries(url.searchParams),
          });
    let at = url.href;
    let loginShown = false;
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      if (res.status >= 300 && res.status < 400) {
        at = new URL(res.headers.get('location')!, at).href;
        if (new URL(at).origin !== this.opOrigin)
          return { via: 'query', params: new URL(at).searchParams, loginShown, status: res.status };
        res = await this.client.fetch(at);
        continue;
      }
      const html = await res.text();
      const form = res.status === 200 ? pageForm(html) : undefined;
      if (!form) return { via: 'page', params: new URLSearchParams(), loginShown, status: res.status, page: html };
      const action = new URL(form.action, at).href;
      if (new URL(action).origin !== this.opOrigin)
        return { via: 'form_post', params: new URLSearchParams(form.fields), loginShown, status: res.status };
      const login = 'password' in form.fields || /type="password"/.test(html);
      if (login) loginShown = true;
      // Our login page posts username/password; oidc-provider's dev pages post login/password, then a consent.
      const answer = login
        ? 'csrf_token' in form.fields
          ? { ...form.fields, username: this.user, password: this.password }
          : { ...form.fields, login: this.user, password: this.password }
        : form.fields;
      at = action;
      res = await this.client.fetch(action, { method: 'POST', form: answer });
    }
    throw new Error(`the authorization request did not end within ${MAX_HOPS} hops`);
  }
}
