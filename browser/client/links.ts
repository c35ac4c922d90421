/**
 * The client's calls for the identities linked to the session's account (the server's `accounts` option,
 * docs/accounts.md#linking): listed, linked through a provider's login started with `?link=1`, unlinked. Each
 * speaks the JSON of `/auth/links` and the providers' login routes.
 */
import { expect } from './login.js';
import type { AccountLink, User } from './schema.js';
import type { Transport } from './transport.js';

/** What every link call may take: a signal that aborts its request. */
export interface LinkCallOptions {
  signal?: AbortSignal;
}

/** Where a redirect link goes back to, and whether the browser goes there now. */
export interface LinkStartOptions {
  /** Where the browser lands once linked (the redirect policy applies, as for a login's `from`). */
  from?: string;
  /** Go there (`location.assign`); default true in a browser. In Node the URL is only returned. */
  navigate?: boolean;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

function checked(name: string, call: string): string {
  if (typeof name !== 'string' || !NAME.test(name))
    throw new TypeError(`links.${call}(provider): provider must be a provider name`);
  return name;
}

export function linkCalls(t: Transport, authPath: string) {
  const path = `${authPath}/links`;
  return {
    /** The account's identities, in the order they were linked (`primary`: the account's own). */
    async list(o: LinkCallOptions = {}): Promise<AccountLink[]> {
      return expect(await t.request('GET', path, { signal: o.signal }), t.url(path), Array.isArray, 'a list');
    },
    /**
     * The URL that links the identity of a redirect provider (OAuth2, OIDC, the local server) to the account: the
     * provider's login with `?link=1`, from a fresh session (`reauth_required` otherwise). A browser goes there
     * unless `navigate: false`; the provider's callback links and returns to `from`.
     */
    start(provider: string, o: LinkStartOptions = {}): string {
      const url = t.url(`${authPath}/${encodeURIComponent(checked(provider, 'start'))}/login`, {
        link: '1',
        from: o.from,
      });
      const navigate = o.navigate ?? typeof location !== 'undefined';
      if (navigate && typeof location !== 'undefined') location.assign(url);
      return url;
    },
    /**
     * Links the identity of a credentials provider (`direct`, or another `password` provider's account) by its
     * login with `?link=1`: the session stays the account's, whose user this answers.
     */
    async withCredentials(provider: string, credentials: Record<string, string>, o: LinkCallOptions = {}) {
      const login = `${authPath}/${encodeURIComponent(checked(provider, 'withCredentials'))}/login`;
      return expect<User>(
        await t.request('POST', login, { body: credentials, query: { link: '1' }, signal: o.signal }),
        t.url(login),
        (b) => !!b && typeof (b as User).id === 'string',
        'the user',
      );
    },
    /**
     * Unlinks an identity, by its `id` as listed or by its provider when the account has one of it
     * (`link_ambiguous`, `last_login_method`, `identity_is_account`): the links left.
     */
    async unlink(identity: string, o: LinkCallOptions = {}): Promise<AccountLink[]> {
      const at = `${path}/${encodeURIComponent(checked(identity, 'unlink'))}`;
      return expect(await t.request('DELETE', at, { signal: o.signal }), t.url(at), Array.isArray, 'a list');
    },
  };
}
