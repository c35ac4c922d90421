import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { AuthorizationCode } from 'simple-oauth2';
import { AuthError, type ErrorCode } from '../errors.js';
import { HttpError, jsonObject, request } from '../http-client.js';
import { endSession } from '../login.js';
import type { Provider, ProviderDeps } from '../registry.js';
import { randomId, readCookie, type Claims } from '../token.js';
import type { User } from '../user.js';
import { safeEqual } from '../safe-equal.js';

export { commonOptions, endpointURL, type CommonOAuth2Options } from './oauth2-options.js';

/**
 * The one authorization-code flow behind every OAuth2 provider (catalog rows, custom `kind: 'oauth2'`,
 * OIDC, dev). Login keeps its state in a short-lived signed handshake cookie, never in server memory,
 * so any instance behind a load balancer can finish a login another one started.
 */

/** Where a provider lives; resolved per login because OIDC discovers it and the dev server picks a port. */
export interface Endpoints {
  authURL: string;
  tokenURL: string;
  /** User-info URL read with the access token; OIDC may go without one. */
  infoURL?: string;
}

/** The token endpoint's answer (access_token, id_token, expires_in, …). */
export type OAuthToken = Record<string, unknown> & { access_token: string };

/** What the handshake remembers for the callback besides state and PKCE. */
export interface HandshakeData {
  nonce?: string;
}

/** The user a provider identified, plus headers the avatar fetch needs (Microsoft's photo wants the bearer). */
export interface Identified {
  user: User;
  avatarHeaders?: Record<string, string>;
}

/** Everything that makes one OAuth2 provider different from another. */
export interface FlowSpec {
  name: string;
  kind: string;
  cid: string;
  csecret: string;
  scopes: readonly string[];
  /** How the client authenticates at the token endpoint: HTTP Basic ('header') or form fields ('body'). */
  authMethod: 'header' | 'body';
  /** Send an S256 PKCE challenge (on by default; a few servers reject unknown parameters). */
  pkce: boolean;
  /** Ask for and check an OIDC nonce. */
  nonce?: boolean;
  /** Extra authorize-URL parameters (Google's `prompt`, …). */
  authParams?: Record<string, string>;
  timeoutMs: number;
  maxBytes: number;
  endpoints(): Promise<Endpoints>;
  /** Turns the token (and usually the user-info JSON) into the user; `params` are the callback's (Apple's `user` field). */
  identify(token: OAuthToken, hs: HandshakeData, io: FlowIO, params: Record<string, string>): Promise<Identified>;
  /** Called with the final user and the provider token (custom providers keep it to call APIs later). */
  bearerTokenHook?: (provider: string, user: User, token: OAuthToken) => void | Promise<void>;
  /** Checks the RFC 9207 `iss` callback parameter when the provider sends one. */
  issuer?(): string | undefined;
  /**
   * The provider comes back with a cross-site form POST (Apple's form_post). The handshake cookie is
   * then SameSite=None whenever cookies are Secure, so that POST carries it; browsers refuse
   * SameSite=None without Secure, so on plain http a POST arriving without it is answered 303 to the
   * same callback as a GET, which the Lax cookie does travel with.
   */
  formPost?: boolean;
  /** Makes the client secret for each exchange (Apple's signed JWT); `csecret` is used without it. */
  clientSecret?(): Promise<string>;
  close?(): Promise<void>;
}

/** Outbound helpers handed to identify(), carrying the provider's limits and naming it in errors. */
export interface FlowIO {
  /** GETs a URL with the bearer token and returns its JSON object; provider errors become AuthErrors. */
  userInfo(url: string, token: OAuthToken): Promise<Record<string, unknown>>;
  /** GETs a public JSON document (discovery, JWKS). */
  getJSON(url: string, what: string): Promise<Record<string, unknown>>;
}

/** How long a login may take between the redirect to the provider and the callback. */
export const HANDSHAKE_TTL_S = 600;
const MAX_FROM = 2048;

/** An AuthError whose message names the provider, so an operator reading it knows which one failed. */
export function providerError(provider: string, status: number, code: ErrorCode, message: string, cause?: unknown): AuthError {
  return new AuthError(status, code, `${provider}: ${message}`, cause === undefined ? undefined : { cause });
}

/** Builds the provider object the router calls. */
export function createFlowProvider(spec: FlowSpec, deps: ProviderDeps): Provider {
  const { name } = spec;
  const o = deps.cookies;
  const cookieName = `${o.name}-handshake`;
  const io = flowIO(spec);
  let client: { key: string; code: AuthorizationCode } | undefined;

  function oauthClient(ep: Endpoints, secret = spec.csecret): AuthorizationCode {
    const key = `${ep.authURL} ${ep.tokenURL} ${secret}`;
    if (client?.key !== key) client = { key, code: buildClient(spec, ep, secret) };
    return client.code;
  }

  /** Path of the callback URL without its last segment: the handshake cookie goes only where it is read. */
  function cookiePath(ctx: Context): string {
    return new URL(deps.callbackURL(ctx)).pathname.replace(/\/[^/]*$/, '') || '/';
  }

  function cookieAttrs(ctx: Context): string {
    return `; Path=${cookiePath(ctx)}; HttpOnly${o.secure ? '; Secure' : ''}; SameSite=${spec.formPost && o.secure ? 'None' : 'Lax'}`;
  }

  function clearHandshake(ctx: Context): void {
    ctx.append('Set-Cookie', `${cookieName}=${cookieAttrs(ctx)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0`);
  }

  async function endpoints(): Promise<Endpoints> {
    try {
      return await spec.endpoints();
    } catch (err) {
      if (err instanceof AuthError) throw err;
      throw providerError(name, 503, 'provider_unavailable', `provider is not ready: ${(err as Error).message}`, err);
    }
  }

  return {
    name,
    kind: spec.kind,

    async login(ctx) {
      const ep = await endpoints();
      const q = ctx.query;
      const one = (k: string) => (Array.isArray(q[k]) ? (q[k] as string[])[0] : (q[k] as string | undefined)) ?? '';
      const from = one('from').slice(0, MAX_FROM);
      const state = randomId();
      const verifier = spec.pkce ? randomBytes(32).toString('base64url') : undefined;
      const nonce = spec.nonce ? randomId() : undefined;
      const now = deps.tokenService.now();
      const { token } = await deps.tokenService.mint({
        aud: one('site') || one('aud'),
        jti: randomId(),
        exp: now + HANDSHAKE_TTL_S,
        nbf: now - 60,
        sess_only: deps.sessionOnly(ctx) || undefined,
        'no-ava': one('noava') === '1' || undefined,
        auth_provider: { name },
        handshake: { state, from: from || undefined, verifier, nonce },
      });
      ctx.append('Set-Cookie', `${cookieName}=${token}${cookieAttrs(ctx)}; Max-Age=${HANDSHAKE_TTL_S}`);
      const params: Record<string, string> = { ...spec.authParams, redirect_uri: deps.callbackURL(ctx), state };
      if (spec.scopes.length) params.scope = spec.scopes.join(' ');
      if (verifier) {
        params.code_challenge = createHash('sha256').update(verifier).digest('base64url');
        params.code_challenge_method = 'S256';
      }
      if (nonce) params.nonce = nonce;
      ctx.status = 302;
      ctx.redirect(oauthClient(ep).authorizeURL(params));
    },

    async callback(ctx) {
      const params = await deps.readParams(ctx, 64 * 1024);
      const raw = readCookie(ctx.get('cookie'), cookieName);
      if (!raw && spec.formPost && ctx.method === 'POST' && !o.secure) {
        const relay = new URL(deps.callbackURL(ctx));
        for (const [k, v] of Object.entries(params)) relay.searchParams.set(k, v);
        ctx.status = 303;
        ctx.redirect(relay.href);
        return;
      }
      if (!raw) throw providerError(name, 403, 'invalid_handshake', 'no login in progress (handshake cookie missing)');
      let claims: Claims;
      try {
        claims = await deps.tokenService.parse(raw);
      } catch (err) {
        throw providerError(name, 403, 'invalid_handshake', 'invalid handshake token', err);
      }
      const hs = claims.handshake;
      if (!hs || claims.user || claims.auth_provider?.name !== name || deps.tokenService.isExpired(claims)) {
        throw providerError(name, 403, 'invalid_handshake', 'invalid handshake token');
      }
      // A forged callback with the wrong state leaves the victim's handshake alone ("nothing set").
      if (typeof hs.state !== 'string' || !hs.state || !safeEqual(hs.state, params.state ?? '')) {
        throw providerError(name, 403, 'state_mismatch', 'unexpected state');
      }
      // From here the handshake is used up: the cookie goes whatever happens next, so a callback URL
      // replayed in this browser finds no handshake.
      clearHandshake(ctx);
      // Resolved before the iss check: on an instance that has not served a login yet, this runs discovery.
      const ep = await endpoints();
      const iss = spec.issuer?.();
      if (params.iss && iss && params.iss !== iss) throw providerError(name, 403, 'issuer_mismatch', 'callback came from another issuer');
      if (params.error) {
        const detail = params.error.replace(/[^\w.-]/g, '').slice(0, 64);
        if (detail === 'access_denied') throw providerError(name, 403, 'access_denied', 'login was cancelled or denied');
        throw providerError(name, 502, 'provider_error', `provider refused the login (${detail})`);
      }
      if (!params.code) throw providerError(name, 400, 'missing_code', 'callback carries no code');
      const token = await exchange(spec, oauthClient(ep, spec.clientSecret ? await spec.clientSecret() : undefined), {
        code: params.code,
        redirect_uri: deps.callbackURL(ctx),
        ...(typeof hs.verifier === 'string' ? { code_verifier: hs.verifier } : {}),
      });
      const { user, avatarHeaders } = await spec.identify(token, { nonce: typeof hs.nonce === 'string' ? hs.nonce : undefined }, io, params);
      if (spec.bearerTokenHook) await spec.bearerTokenHook(name, user, token);
      await deps.completeLogin(ctx, {
        provider: name,
        user,
        aud: claims.aud ?? '',
        sessionOnly: claims.sess_only === true,
        from: typeof hs.from === 'string' ? hs.from : undefined,
        noAva: claims['no-ava'] === true,
        avatar: avatarHeaders ? { headers: avatarHeaders } : undefined,
      });
    },

    async logout(ctx) {
      // As the original: an OAuth logout needs a readable session (with the XSRF header for cookies).
      const rt = await deps.tokenService.get(ctx).catch(() => undefined);
      if (!rt || !rt.claims.user) throw new AuthError(403, 'logout_not_allowed', 'logout not allowed');
      endSession(ctx, deps.tokenService);
    },

    close: spec.close,
  };
}

function buildClient(spec: FlowSpec, ep: Endpoints, secret: string): AuthorizationCode {
  const token = new URL(ep.tokenURL);
  const auth = new URL(ep.authURL);
  return new AuthorizationCode({
    client: { id: spec.cid, secret },
    // Full URLs as paths: simple-oauth2 resolves them against the host, keeping any query they carry.
    auth: { tokenHost: token.origin, tokenPath: token.href, authorizeHost: auth.origin, authorizePath: auth.href },
    options: { authorizationMethod: spec.authMethod },
    http: {
      timeout: spec.timeoutMs,
      maxBytes: spec.maxBytes,
      // 'force': a JSON body sent as text/plain still parses; garbage fails as a bad answer, not a crash.
      json: 'force',
      redirects: 0,
      headers: { Accept: 'application/json', 'User-Agent': 'authkoa' },
    } as never,
  });
}

/** Boom-shaped errors from simple-oauth2's transport. */
interface BoomLike {
  isBoom?: boolean;
  output?: { statusCode?: number };
  data?: { isResponseError?: boolean; payload?: unknown } | null;
}

/** The code-for-token exchange under one deadline, with every failure mapped to a provider error. */
async function exchange(spec: FlowSpec, client: AuthorizationCode, params: Record<string, string>): Promise<OAuthToken> {
  const name = spec.name;
  let timer: NodeJS.Timeout | undefined;
  // simple-oauth2's transport times the request and the body read separately; one deadline caps both.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(providerError(name, 503, 'provider_timeout', `token endpoint gave no answer within ${spec.timeoutMs} ms`)), spec.timeoutMs);
  });
  let payload: Record<string, unknown>;
  try {
    const at = await Promise.race([client.getToken(params as never), deadline]);
    payload = at.token as Record<string, unknown>;
  } catch (err) {
    if (err instanceof AuthError) throw err;
    const b = err as BoomLike;
    const status = b.output?.statusCode ?? 0;
    if (b.data?.isResponseError) {
      const body = b.data.payload && typeof b.data.payload === 'object' && !Buffer.isBuffer(b.data.payload) ? (b.data.payload as Record<string, unknown>) : {};
      const code = typeof body.error === 'string' ? ` (${body.error.replace(/[^\w.-]/g, '').slice(0, 64)})` : '';
      if (status >= 500) throw providerError(name, 503, 'provider_unavailable', `token endpoint answered ${status}`, err);
      throw providerError(name, 502, 'exchange_failed', `code exchange refused with ${status}${code}`, err);
    }
    if (status === 504 || status === 408) throw providerError(name, 503, 'provider_timeout', `token endpoint gave no answer within ${spec.timeoutMs} ms`, err);
    if (status === 413) throw providerError(name, 502, 'response_too_large', `token response exceeds ${spec.maxBytes} bytes`, err);
    if (status === 502 && b.data && 'payload' in b.data) throw providerError(name, 502, 'bad_provider_response', 'token response is not JSON', err);
    if (b.isBoom) throw providerError(name, 503, 'provider_unavailable', 'token endpoint is unreachable', err);
    throw providerError(name, 502, 'bad_provider_response', 'token response is unusable', err);
  } finally {
    clearTimeout(timer);
  }
  // GitHub (and others) answer 200 with {"error": …} for a bad code.
  if (typeof payload.error === 'string') {
    throw providerError(name, 502, 'exchange_failed', `code exchange refused (${payload.error.replace(/[^\w.-]/g, '').slice(0, 64)})`);
  }
  if (typeof payload.access_token !== 'string' || !payload.access_token) {
    throw providerError(name, 502, 'bad_provider_response', 'token response carries no access_token');
  }
  return payload as OAuthToken;
}

/** The outbound helpers of one provider: its deadline and size cap, errors naming it. */
export function flowIO(spec: FlowSpec): FlowIO {
  const name = spec.name;
  async function get(url: string, what: string, headers: Record<string, string>, failStatus: number, failCode: ErrorCode) {
    let res;
    try {
      res = await request(url, { headers: { Accept: 'application/json', 'User-Agent': 'authkoa', ...headers }, timeoutMs: spec.timeoutMs, maxBytes: spec.maxBytes });
    } catch (err) {
      throw transportError(name, what, err);
    }
    if (res.status < 200 || res.status > 299) throw providerError(name, failStatus, failCode, `${what} answered ${res.status}`);
    const data = jsonObject(res.body);
    if (!data) throw providerError(name, 502, 'bad_provider_response', `${what} is not a JSON object`);
    return data;
  }
  return {
    userInfo: (url, token) => get(url, 'user info', { Authorization: `Bearer ${token.access_token}` }, 503, 'userinfo_failed'),
    getJSON: (url, what) => get(url, what, {}, 503, 'provider_unavailable'),
  };
}

/** Maps an http-client failure to the provider error a client sees. */
export function transportError(name: string, what: string, err: unknown): AuthError {
  if (err instanceof HttpError) {
    if (err.reason === 'timeout') return providerError(name, 503, 'provider_timeout', `${what}: ${err.message}`, err);
    if (err.reason === 'too_large') return providerError(name, 502, 'response_too_large', `${what}: ${err.message}`, err);
  }
  return providerError(name, 503, 'provider_unavailable', `${what} is unreachable`, err);
}

