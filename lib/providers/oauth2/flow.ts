import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import type { Provider, ProviderDeps } from '../core/contract.js';
import type { Claims } from '../../session/claims.js';
import { safeEqual } from '../../util/safe-equal.js';

export { commonOptions, endpointURL, type CommonOAuth2Options, type OAuthToken } from './options.js';
export { flowIO, providerError, transportError } from './io.js';
import { buildClient, exchange, flowIO, providerError, type OAuthClient } from './io.js';
import type { Endpoints, FlowSpec } from './types.js';

export type { Endpoints, FlowIO, FlowSpec, HandshakeData, Identified } from './types.js';

/**
 * The one authorization-code flow behind every OAuth2 provider (catalog rows, custom `kind: 'oauth2'`,
 * OIDC, dev). Login keeps its state in a short-lived signed handshake cookie, never in server memory,
 * so any instance behind a load balancer can finish a login another one started. The callback spends
 * the handshake's id in the service-wide state store, so each handshake completes at most once.
 */

/** How long a login may take between the redirect to the provider and the callback. */
export const HANDSHAKE_TTL_S = 600;
const MAX_FROM = 2048;

/** Builds the provider object the router calls. */
export function createFlowProvider(spec: FlowSpec, deps: ProviderDeps): Provider {
  const { name } = spec;
  const o = deps.cookies;
  const cookieName = `${o.name}-handshake`;
  const io = flowIO(spec);
  let client: { key: string; code: OAuthClient } | undefined;

  function oauthClient(ep: Endpoints, secret = spec.csecret): OAuthClient {
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

  /**
   * Marks the handshake's id used in deps.stateStore (first caller wins, across processes). A replay
   * is a 403 `invalid_handshake`; a store that cannot answer fails closed with its 503.
   */
  async function spendHandshake(claims: Claims): Promise<void> {
    if (typeof claims.jti !== 'string' || !claims.jti) throw providerError(name, 403, 'invalid_handshake', 'invalid handshake token (no id)');
    const exp = typeof claims.exp === 'number' ? claims.exp : deps.tokenService.now() + HANDSHAKE_TTL_S;
    // The service's store answers its own failures with the 503 every route gives.
    const fresh = await deps.stateStore.markUsed(`handshake:${name}:${claims.jti}`, exp * 1000);
    if (!fresh) throw providerError(name, 403, 'invalid_handshake', 'handshake already used (callback replayed)');
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
    // Apple's form_post callback is a cross-site POST by design; `state` and the handshake guard it.
    crossSite: spec.formPost ? ['callback'] : undefined,

    async login(ctx) {
      const ep = await endpoints();
      const q = ctx.query;
      const one = (k: string) => (Array.isArray(q[k]) ? (q[k] as string[])[0] : (q[k] as string | undefined)) ?? '';
      const from = one('from').slice(0, MAX_FROM);
      const state = deps.randomId();
      const verifier = spec.pkce ? randomBytes(32).toString('base64url') : undefined;
      const nonce = spec.nonce ? deps.randomId() : undefined;
      const now = deps.tokenService.now();
      const { token } = await deps.tokenService.mint({
        aud: one('site') || one('aud'),
        jti: deps.randomId(),
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
      const raw = deps.readCookie(ctx, cookieName);
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
      // And it is spent in the service-wide state store before anything goes out: a callback replayed
      // with a captured handshake cookie, state and code is refused here, on any instance, without a
      // second code exchange.
      await spendHandshake(claims);
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
      // One rule for every logout route (docs/security.md): it ends the session, no conditions. The
      // original asked OAuth2 logouts for the session with its XSRF header, so a plain link worked for
      // /auth/logout and not here.
      deps.endSession(ctx);
    },

    close: spec.close,
  };
}
