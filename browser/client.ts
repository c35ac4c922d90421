/**
 * `authkoa/client`: a dependency-free client of authkoa's routes for a page of any framework and for
 * Node (`fetch`). It sends the XSRF header by itself, keeps the cookies where there is no browser to
 * keep them, turns every refusal into an AuthClientError with the server's `code`, and tells a second
 * step due (`mfa_required`) as a login state, not an error. Its types come from the OpenAPI document
 * (`auth.openapi()`; browser/client/schema.ts is generated from it). See docs/client.md.
 *
 * ```ts
 * import { createAuthClient } from 'authkoa/client';
 * const auth = createAuthClient({ baseURL: 'https://app.example' });
 * const result = await auth.login('local', { user: 'ann', passwd: 'secret' });
 * if (result.state === 'mfa_required') await auth.mfa.verify({ code: '123456' });
 * const me = await auth.user();
 * ```
 */
import { accountCalls } from './client/accounts.js';
import { linkCalls } from './client/links.js';
import { mfaCalls } from './client/mfa.js';
import { passkeyCalls } from './client/passkeys.js';
import { sessionCalls } from './client/sessions.js';
import { tokenCalls } from './client/tokens.js';
import { grantCalls } from './client/grants.js';
import { expect, isUser, loginResult, type LoginResult } from './client/login.js';
import { clientConfig, type AuthClientOptions } from './client/options.js';
import type { ProviderList, Status, User } from './client/schema.js';
import { Transport } from './client/transport.js';

export type { AccountCallOptions, CheckEmail, ConfirmResult, SignupInput } from './client/accounts.js';
export { AuthClientError, type ClientErrorCode } from './client/errors.js';
export type { CallOptions } from './client/call.js';
export type { MfaStatus } from './client/mfa.js';
export type { PasskeyCallOptions } from './client/passkeys.js';
export type { TokenCallOptions } from './client/tokens.js';
export type { GrantCallOptions } from './client/grants.js';
export type { LinkCallOptions, LinkStartOptions } from './client/links.js';
export type { LoginResult } from './client/login.js';
export type { AuthClientOptions } from './client/options.js';
export type {
  AccountLink,
  ConnectedApp,
  ErrorBody,
  ErrorCode,
  KeySet,
  MfaFactors,
  MfaRequired,
  NewPersonalToken,
  Passkey,
  PasskeyCreationOptions,
  PasskeyCredential,
  PasskeyRequestOptions,
  PersonalToken,
  PersonalTokenRequest,
  ProviderList,
  PublicJwk,
  RecoveryCodes,
  Session,
  Status,
  TotpConfirmed,
  TotpSetup,
  User,
} from './client/schema.js';
export type { Mediation, WebAuthnDevice } from './client/webauthn.js';

/** A provider as `providers({ details: true })` lists it: `{ name, kind }`. */
export type ProviderInfo = Exclude<ProviderList, string[]>[number];

/** Where a redirect login goes on to, and how the token is to be made. */
export interface LoginRedirectOptions {
  /** Where the browser goes once logged in (a path of the app, or a URL the server's redirect policy permits). */
  from?: string;
  /** The audience the token is for. */
  aud?: string;
  /** A session cookie (no Max-Age): gone when the browser closes. */
  session?: boolean;
  /** Go there now (a browser's default); false only builds the URL. */
  navigate?: boolean;
}

export type AuthClient = ReturnType<typeof createAuthClient>;

/** A client of the authkoa app at `baseURL` (in a browser, by default the page's origin). A bad option is a TypeError naming it. */
export function createAuthClient(options: AuthClientOptions = {}) {
  const config = clientConfig(options);
  const t = new Transport(config.transport);
  const auth = config.authPath;
  const provider = (name: string, what: string) => {
    if (typeof name !== 'string' || !/^[^/?#]+$/.test(name))
      throw new TypeError(`${what}(provider): provider must be a provider's name, as providers() lists it`);
    return `${auth}/${encodeURIComponent(name)}`;
  };
  const user = async (): Promise<User> =>
    expect(await t.request('GET', `${auth}/user`), t.url(`${auth}/user`), isUser, 'the user');
  function providers(): Promise<string[]>;
  function providers(o: { details: true }): Promise<ProviderInfo[]>;
  async function providers(o: { details?: boolean } = {}): Promise<string[] | ProviderInfo[]> {
    const answer = await t.request('GET', `${auth}/list`, { query: { details: o.details ? '1' : undefined } });
    return expect(answer, t.url(`${auth}/list`), Array.isArray, 'a list');
  }
  return {
    /** The configured providers' names, or `{ name, kind }` with `details`. */
    providers,
    /** The logged-in user; rejects with `no_token` (401) without a session. */
    user,
    /** Whether this client is logged in, without a refusal when it is not. */
    async status(): Promise<Status> {
      return expect(
        await t.request('GET', `${auth}/status`),
        t.url(`${auth}/status`),
        (b) => !!b && typeof (b as Status).status === 'string',
        'a status',
      );
    },
    /**
     * A login with credentials posted to the provider's login route (`direct`: `{ user, passwd }`;
     * `password`: `{ user: <address>, passwd }`; `verified`: `{ user, address }`, then `{ token }`;
     * `telegram`: `{}`, then `{ token }`).
     */
    async login(name: string, credentials: Record<string, string> = {}): Promise<LoginResult> {
      const path = `${provider(name, 'login')}/login`;
      if (!credentials || typeof credentials !== 'object')
        throw new TypeError('login(provider, credentials): credentials must be an object of strings');
      return loginResult(await t.request('POST', path, { body: credentials }), t.url(path));
    },
    /** The URL that starts a redirect login (OAuth2, OIDC, Apple, the local server); a browser goes there unless `navigate: false`. */
    loginRedirect(name: string, o: LoginRedirectOptions = {}): string {
      const url = t.url(`${provider(name, 'loginRedirect')}/login`, {
        from: o.from,
        aud: o.aud,
        session: o.session ? '1' : undefined,
      });
      const navigate = o.navigate ?? typeof location !== 'undefined';
      if (navigate && typeof location !== 'undefined') location.assign(url);
      return url;
    },
    /** Ends this client's session: its cookies are cleared and its token revoked. */
    async logout(): Promise<void> {
      await t.request('POST', `${auth}/logout`);
    },
    /**
     * A request to any route of the app as this client: its session cookies (the browser's, or those it
     * keeps) and the XSRF header go along; the answer is fetch's, as is (redirects not followed).
     */
    async fetch(path: string, init?: RequestInit): Promise<Response> {
      if (typeof path !== 'string' || !path.startsWith('/'))
        throw new TypeError('fetch(path): path must be a path of the app, starting with "/"');
      return t.raw(path, init);
    },
    /** A passkey provider's routes (its name in each call's options; default `passkey`). */
    passkeys: passkeyCalls(t, auth, config.webauthn),
    /** The second factor and step-up (the server's `mfa` option). */
    mfa: mfaCalls(t, auth, config.webauthn, user),
    /** The user's sessions, one per login and device. */
    sessions: sessionCalls(t, auth),
    /** A `password` provider's accounts (its name in each call's options, default `local`): sign-up, links, reset. */
    accounts: accountCalls(t, auth),
    /** The user's personal access tokens (the server's `tokens` option): create, list, revoke. */
    tokens: tokenCalls(t, auth),
    /** The apps and agents the user allowed (the server's `authorizationServer` option): list, disconnect. */
    grants: grantCalls(t, auth),
    /** The identities linked to the session's account (the server's `accounts` option): list, start, unlink. */
    links: linkCalls(t, auth),
  };
}

export default createAuthClient;
