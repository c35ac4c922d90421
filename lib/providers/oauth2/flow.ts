import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import type { Provider, ProviderDeps } from '../core/contract.js';
import { readParams } from '../kit.js';
import type { Handshake } from '../../session/claims.js';
import {
  checkHandshake,
  clearHandshake,
  handshakeCookie,
  openHandshake,
  spendHandshake,
  type HandshakeClaims,
} from './handshake.js';
import { clientCache, exchange, flowIO, providerError, type OAuthClient } from './io.js';
import type { OAuthToken } from './options.js';
import type { Endpoints, FlowIO, FlowSpec } from './types.js';

// The engine's entry point: the kinds import what they need of it from here.
export { commonOptions, endpointURL, type CommonOAuth2Options, type OAuthToken } from './options.js';
export { flowIO, providerError, transportError } from './io.js';
export { HANDSHAKE_TTL_S } from './handshake.js';
export type { Endpoints, FlowIO, FlowSpec, HandshakeData, Identified } from './types.js';

/**
 * The one authorization-code flow behind every OAuth2 provider (catalog rows, custom `kind: 'oauth2'`,
 * OIDC, Apple, dev): the login step opens a handshake (handshake.ts) and redirects to the provider;
 * the callback step checks and spends that handshake, exchanges the code, identifies the user and
 * issues the session.
 */

/** Largest callback body read (Apple posts its answer as a form). */
const CALLBACK_BODY_LIMIT = 64 * 1024;

/** One provider's flow: its spec, the service's deps, and what both steps build from them once. */
interface Flow {
  readonly spec: FlowSpec;
  readonly deps: ProviderDeps;
  readonly io: FlowIO;
  /** The OAuth2 client for some endpoints and a client secret (`csecret` by default). */
  readonly client: (ep: Endpoints, secret?: string) => OAuthClient;
}

/** Builds the provider object the router calls. */
export function createFlowProvider(spec: FlowSpec, deps: ProviderDeps): Provider {
  const flow: Flow = { spec, deps, io: flowIO({ ...spec, tracing: deps.tracing }), client: clientCache(spec) };
  return {
    name: spec.name,
    kind: spec.kind,
    // Apple's form_post callback is a cross-site POST by design; `state` and the handshake guard it.
    crossSite: spec.formPost ? ['callback'] : undefined,
    login: (ctx) => loginStep(flow, ctx),
    callback: (ctx) => callbackStep(flow, ctx),
    logout(ctx) {
      // One rule for every logout route (docs/security.md): it ends the session, no conditions. The
      // original asked OAuth2 logouts for the session with its XSRF header, so a plain link worked for
      // /auth/logout and not here.
      deps.endSession(ctx);
      return Promise.resolve();
    },
    close: spec.close,
  };
}

/** The provider's endpoints; a failure to find them (OIDC discovery) is a 503 naming the provider. */
async function endpoints(spec: FlowSpec): Promise<Endpoints> {
  try {
    return await spec.endpoints();
  } catch (err) {
    if (err instanceof AuthError) throw err;
    throw providerError(spec.name, 'provider_unavailable', `provider is not ready: ${(err as Error).message}`, err);
  }
}

/** GET /login: a new handshake in its cookie, then a 302 to the provider's authorize URL. */
async function loginStep({ spec, deps, client }: Flow, ctx: Context): Promise<void> {
  const ep = await endpoints(spec);
  const { state, verifier, nonce } = await openHandshake(spec, deps, ctx);
  const params: Record<string, string> = { ...spec.authParams, redirect_uri: deps.callbackURL(ctx), state };
  if (spec.scopes.length) params.scope = spec.scopes.join(' ');
  if (verifier) {
    params.code_challenge = createHash('sha256').update(verifier).digest('base64url');
    params.code_challenge_method = 'S256';
  }
  if (nonce) params.nonce = nonce;
  ctx.status = 302;
  ctx.redirect(client(ep).authorizeURL(params));
}

/** The provider's redirect back: handshake check, code exchange, identification, the session. */
async function callbackStep(flow: Flow, ctx: Context): Promise<void> {
  const { spec, deps } = flow;
  const params = await readParams(ctx, CALLBACK_BODY_LIMIT);
  const raw = handshakeCookie(deps, ctx);
  if (!raw && spec.formPost && ctx.method === 'POST' && !deps.cookies.secure) return relayAsGet(deps, ctx, params);
  const claims = await checkHandshake(spec, deps, raw, params.state);
  // From here the handshake is used up: the cookie goes whatever happens next, so a callback URL
  // replayed in this browser finds no handshake.
  clearHandshake(spec, deps, ctx);
  // And it is spent in the service-wide state store before anything goes out: a callback replayed
  // with a captured handshake cookie, state and code is refused here, on any instance, without a
  // second code exchange.
  await spendHandshake(spec, deps, claims);
  // Resolved before the iss check: on an instance that has not served a login yet, this runs discovery.
  const ep = await endpoints(spec);
  const code = callbackCode(spec, params);
  const token = await exchangeCode(flow, ctx, ep, code, claims.handshake);
  await finishLogin(flow, ctx, claims, token, params);
}

/**
 * A form POST that came without the handshake cookie on plain http (where the cookie is Lax, see
 * FlowSpec.formPost): answered 303 to the same callback as a GET, which the cookie travels with.
 */
function relayAsGet(deps: ProviderDeps, ctx: Context, params: Record<string, string>): void {
  const relay = new URL(deps.callbackURL(ctx));
  for (const [k, v] of Object.entries(params)) relay.searchParams.set(k, v);
  ctx.status = 303;
  ctx.redirect(relay.href);
}

/** The callback's code, once its `iss` (RFC 9207) is the provider's and it carries no error. */
function callbackCode(spec: FlowSpec, params: Record<string, string>): string {
  const { name } = spec;
  const iss = spec.issuer?.();
  if (params.iss && iss && params.iss !== iss)
    throw providerError(name, 'issuer_mismatch', 'callback came from another issuer');
  if (params.error) {
    const detail = params.error.replace(/[^\w.-]/g, '').slice(0, 64);
    if (detail === 'access_denied') throw providerError(name, 'access_denied', 'login was cancelled or denied');
    throw providerError(name, 'provider_error', `provider refused the login (${detail})`);
  }
  if (!params.code) throw providerError(name, 'missing_code', 'callback carries no code');
  return params.code;
}

/** The code for the provider's token, with the PKCE verifier the handshake kept. */
async function exchangeCode(
  { spec, deps, client }: Flow,
  ctx: Context,
  ep: Endpoints,
  code: string,
  hs: Handshake,
): Promise<OAuthToken> {
  const secret = spec.clientSecret ? await spec.clientSecret() : undefined;
  const params = {
    code,
    redirect_uri: deps.callbackURL(ctx),
    ...(typeof hs.verifier === 'string' ? { code_verifier: hs.verifier } : {}),
  };
  return exchange(spec, client(ep, secret), params, { tracing: deps.tracing, tokenURL: ep.tokenURL });
}

/** Identifies the user from the token and issues the session with the login's parameters from the handshake. */
async function finishLogin(
  { spec, deps, io }: Flow,
  ctx: Context,
  claims: HandshakeClaims,
  token: OAuthToken,
  params: Record<string, string>,
): Promise<void> {
  const hs = claims.handshake;
  const nonce = typeof hs.nonce === 'string' ? hs.nonce : undefined;
  const identified = await spec.identify(token, { nonce }, io, params);
  const { user, avatarHeaders, emailVerified, claims: sessionClaims } = identified;
  if (spec.bearerTokenHook) await spec.bearerTokenHook(spec.name, user, token);
  await deps.completeLogin(ctx, {
    provider: spec.name,
    user,
    aud: claims.aud ?? '',
    sessionOnly: claims.sess_only === true,
    from: typeof hs.from === 'string' ? hs.from : undefined,
    noAva: claims['no-ava'] === true,
    avatar: avatarHeaders ? { headers: avatarHeaders } : undefined,
    amr: ['fed'],
    emailVerified,
    claims: sessionClaims,
    // The provider sent the browser back here: a second step is asked for on a page, not in JSON.
    navigation: true,
  });
}
