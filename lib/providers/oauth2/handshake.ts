import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { ProviderDeps } from '../core/contract.js';
import { randomId, readCookie, sessionOnly } from '../kit.js';
import type { Claims, Handshake } from '../../session/claims.js';
import { safeEqual } from '../../util/safe-equal.js';
import { providerError } from './io.js';
import type { FlowSpec } from './types.js';

/**
 * The handshake: what a login hands its callback, kept in a short-lived signed cookie rather than in
 * server memory, so any instance behind a load balancer can finish a login another one started. The
 * callback checks it, clears it, and spends its id in the service-wide state store, so each handshake
 * completes at most once.
 */

/** How long a login may take between the redirect to the provider and the callback. */
export const HANDSHAKE_TTL_S = 600;
/** Longest `from` (the page to return to) a handshake keeps. */
const MAX_FROM = 2048;

/** What the authorize URL carries from a new handshake: the state, and the PKCE verifier and nonce when used. */
export interface OpenedHandshake {
  state: string;
  verifier?: string;
  nonce?: string;
}

/** A handshake token's claims: the login's audience, session-only and no-avatar flags, and the handshake itself. */
export type HandshakeClaims = Claims & { handshake: Handshake };

/** The handshake cookie's name: the session cookie's name with `-handshake`. */
function cookieName(deps: ProviderDeps): string {
  return `${deps.cookies.name}-handshake`;
}

/** Path of the callback URL without its last segment: the handshake cookie goes only where it is read. */
function cookiePath(deps: ProviderDeps, ctx: Context): string {
  return new URL(deps.callbackURL(ctx)).pathname.replace(/\/[^/]*$/, '') || '/';
}

function cookieAttrs(spec: FlowSpec, deps: ProviderDeps, ctx: Context): string {
  const { secure } = deps.cookies;
  return (
    `; Path=${cookiePath(deps, ctx)}; HttpOnly${secure ? '; Secure' : ''}; ` +
    `SameSite=${spec.formPost && secure ? 'None' : 'Lax'}`
  );
}

/**
 * Starts a login: mints the handshake (state, PKCE verifier, nonce, and the login's own parameters:
 * audience, session-only, no-avatar, the page to return to) and sets it as the handshake cookie.
 */
export async function openHandshake(spec: FlowSpec, deps: ProviderDeps, ctx: Context): Promise<OpenedHandshake> {
  const q = ctx.query;
  const one = (k: string) => (Array.isArray(q[k]) ? q[k][0] : q[k]) ?? '';
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
    sess_only: sessionOnly(ctx) || undefined,
    'no-ava': one('noava') === '1' || undefined,
    auth_provider: { name: spec.name },
    handshake: { state, from: from || undefined, verifier, nonce },
  });
  ctx.append('Set-Cookie', `${cookieName(deps)}=${token}${cookieAttrs(spec, deps, ctx)}; Max-Age=${HANDSHAKE_TTL_S}`);
  return { state, verifier, nonce };
}

/** The raw handshake cookie of the request, '' when it has none. */
export function handshakeCookie(deps: ProviderDeps, ctx: Context): string {
  return readCookie(ctx, cookieName(deps));
}

/**
 * The claims of a callback's handshake cookie once it is shown to be this provider's unexpired
 * handshake and `state` matches its state; every failure is a 403 naming the provider.
 */
export async function checkHandshake(
  spec: FlowSpec,
  deps: ProviderDeps,
  raw: string,
  state: string | undefined,
): Promise<HandshakeClaims> {
  const { name } = spec;
  if (!raw) throw providerError(name, 'invalid_handshake', 'no login in progress (handshake cookie missing)');
  let claims: Claims;
  try {
    claims = await deps.tokenService.parse(raw);
  } catch (err) {
    throw providerError(name, 'invalid_handshake', 'invalid handshake token', err);
  }
  const hs = claims.handshake;
  if (!hs || claims.user || claims.auth_provider?.name !== name || deps.tokenService.isExpired(claims)) {
    throw providerError(name, 'invalid_handshake', 'invalid handshake token');
  }
  // A forged callback with the wrong state leaves the victim's handshake alone ("nothing set").
  if (typeof hs.state !== 'string' || !hs.state || !safeEqual(hs.state, state ?? '')) {
    throw providerError(name, 'state_mismatch', 'unexpected state');
  }
  return claims as HandshakeClaims;
}

/** Expires the handshake cookie. */
export function clearHandshake(spec: FlowSpec, deps: ProviderDeps, ctx: Context): void {
  ctx.append(
    'Set-Cookie',
    `${cookieName(deps)}=${cookieAttrs(spec, deps, ctx)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0`,
  );
}

/**
 * Marks the handshake's id used in deps.stateStore (first caller wins, across processes). A replay
 * is a 403 `invalid_handshake`; a store that cannot answer fails closed with its 503.
 */
export async function spendHandshake(spec: FlowSpec, deps: ProviderDeps, claims: Claims): Promise<void> {
  const { name } = spec;
  if (typeof claims.jti !== 'string' || !claims.jti)
    throw providerError(name, 'invalid_handshake', 'invalid handshake token (no id)');
  const exp = typeof claims.exp === 'number' ? claims.exp : deps.tokenService.now() + HANDSHAKE_TTL_S;
  // The service's store answers its own failures with the 503 every route gives.
  const fresh = await deps.stateStore.markUsed(`handshake:${name}:${claims.jti}`, exp * 1000);
  if (!fresh) throw providerError(name, 'invalid_handshake', 'handshake already used (callback replayed)');
}
