/**
 * Step 2 of the verified provider: the link with the confirmation token. Checked, then (by POST, or by
 * any method with `confirmPage: false`) spent once and traded for a session; a GET in confirm-page
 * mode gets the page whose button makes that POST.
 */
import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import type { Claims } from '../../session/claims.js';
import type { UsedTokenStore } from '../../state/used-tokens.js';
import type { KindTokens, ProviderDeps } from '../core/contract.js';
import { sessionFlag } from '../kit.js';
import type { VerifiedConfig } from './config.js';
import { alreadySpent, writeConfirmPage, writeDeadLinkPage } from './confirm-page.js';

const MAX_TOKEN = 4096;

const invalid = () => new AuthError('confirmation_invalid', 'failed to verify confirmation token');

/** A confirmation token's claims, checked: its handshake id is `user::address`. */
type Confirmation = Claims & { handshake: { id: string } };

/** The step-2 handler of the provider: `token` is the link's, `params` the request's. */
export function confirmStep(
  config: VerifiedConfig,
  deps: ProviderDeps,
): (ctx: Context, token: string, params: Record<string, string>) => Promise<void> {
  const { name, usedTokens } = config;
  const origin = new URL(deps.url).origin;
  const confirm = async (ctx: Context, token: string, params: Record<string, string>): Promise<void> => {
    const claims = await verifyToken(name, deps.tokenService, token, params);
    const session = sessionFlag(params) ?? claims.sess_only === true;
    const from = typeof claims.handshake.from === 'string' ? claims.handshake.from : undefined;
    const usedId = `verified:${name}:${claims.jti}`;
    // Only a POST logs in unless confirmPage is false: a GET (a mail scanner, a prefetch, a link an
    // attacker sent the victim) shows the page whose button makes that POST.
    if (config.confirmPage && ctx.method !== 'POST') {
      // A spent link says so at once, instead of a button whose POST can only be refused.
      if (await alreadySpent(usedTokens, usedId, deps.clock()))
        throw new AuthError('confirmation_used', 'confirmation token already consumed');
      const target = deps.safeRedirect(from);
      const targetOrigin = target ? new URL(target).origin : undefined;
      writeConfirmPage(ctx, {
        action: 'login',
        token,
        session,
        address: addressOf(claims.handshake.id),
        redirectOrigin: targetOrigin !== origin ? targetOrigin : undefined,
      });
      return;
    }
    // A POST from another site's page (the attacker's own token, the victim's browser) never gets here: the router
    // refuses it.
    await spend(usedTokens, usedId, claims.exp! * 1000);
    const id = claims.handshake.id;
    await deps.completeLogin(ctx, {
      provider: name,
      user: { name: id.slice(0, id.indexOf('::')), id: deps.userId(name, addressOf(id)), picture: '' },
      aud: claims.aud ?? '',
      sessionOnly: session,
      from,
      amr: ['email'],
      // Opened from a message in a browser (the link, or the button of its page).
      navigation: true,
    });
  };
  return (ctx, token, params) =>
    confirm(ctx, token, params).catch((err: unknown) => {
      // In confirm-page mode the link is opened in a browser: a dead one gets a page, not raw JSON.
      if (!config.confirmPage || !writeDeadLinkPage(ctx, err)) throw err;
    });
}

/** Checks a confirmation token without spending it: signed, this provider's, unexpired, for the site asked about. */
async function verifyToken(
  name: string,
  tokens: KindTokens,
  token: string,
  params: Record<string, string>,
): Promise<Confirmation> {
  if (token.length > MAX_TOKEN) throw invalid();
  let claims: Claims;
  try {
    claims = await tokens.parse(token);
  } catch (err) {
    if (err instanceof AuthError && err.status >= 500) throw err;
    throw invalid();
  }
  const id = claims.handshake?.id;
  // Bound to this provider: a token of another verified provider (or an OAuth2 handshake) is refused.
  if (claims.auth_provider?.name !== name || typeof id !== 'string' || !id.includes('::') || claims.user)
    throw invalid();
  if (typeof claims.jti !== 'string' || !claims.jti || typeof claims.exp !== 'number') throw invalid();
  if (tokens.isExpired(claims)) throw new AuthError('confirmation_expired', 'confirmation token expired');
  const site = params.site || params.aud;
  if (site !== undefined && site !== '' && site !== claims.aud) throw invalid();
  return claims as Confirmation;
}

/** Spends the token's id; a token spent before is refused (403), and a store that cannot say fails closed. */
async function spend(usedTokens: UsedTokenStore, usedId: string, expiresAtMs: number): Promise<void> {
  let fresh: boolean;
  try {
    fresh = await usedTokens.markUsed(usedId, expiresAtMs);
  } catch (err) {
    // The service's store already answers a 503; the service logs its cause.
    throw err instanceof AuthError
      ? err
      : new AuthError('state_store_unavailable', 'login state is unavailable', { cause: err });
  }
  if (!fresh) throw new AuthError('confirmation_used', 'confirmation token already consumed');
}

/** The address of a handshake id `user::address`. */
function addressOf(id: string): string {
  return id.slice(id.indexOf('::') + 2);
}
