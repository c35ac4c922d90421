import { createHash } from 'node:crypto';
import { AuthError } from '../../errors.js';
import type { ProviderDeps } from '../../providers/core/contract.js';
import { randomId } from '../../providers/kit.js';
import type { Claims } from '../../session/claims.js';
import type { Account } from '../store.js';

/**
 * The links the password kind mails: signed tokens (the service's secret) naming the account, the address
 * they were sent to, and a fingerprint of the account's password hash and address when sent. A link works
 * once (its `jti` is spent in the state store), until it expires, and only while the account is as it was:
 * a new password or address kills every link sent before, so an earlier sign-up's link (someone else's
 * password on an unconfirmed account) or an old reset link can no longer be used.
 */

/** What a link is for: confirming a sign-up's address, confirming a new address, or choosing a new password. */
export type LinkPurpose = 'confirm' | 'email' | 'reset';

/** A link's claims, checked. */
export interface AccountLink {
  purpose: LinkPurpose;
  /** The account's id. */
  account: string;
  /** The address the link was sent to: the account's (confirm, reset) or the new one (email). */
  email: string;
  /** fingerprint() of the account when the link was made. */
  fp: string;
  /** The session that asked for a new address: it alone goes on once the change is made. */
  keep?: string;
  /** Where a sign-up asked the browser to go once confirmed (checked by the redirect policy when used). */
  from?: string;
  jti: string;
  /** Expiry, Unix seconds. */
  exp: number;
}

const MAX_TOKEN = 4096;
/** How far back a token's `nbf` goes, for clocks of other processes that run a little behind. */
const NBF_SKEW_S = 60;

/** The account's state a link is bound to: its password hash and its address. */
export function fingerprint(account: Pick<Account, 'passwordHash' | 'email'>): string {
  return createHash('sha256')
    .update(`${account.passwordHash ?? ''}\u0000${account.email}`)
    .digest('base64url')
    .slice(0, 22);
}

/** Where each purpose's link leads, under the provider's routes. */
const ROUTE: Record<LinkPurpose, string> = { confirm: 'confirm', email: 'confirm', reset: 'reset/confirm' };

/** Mints a link for `account`: its token and its URL. */
export async function mintLink(
  deps: Pick<ProviderDeps, 'tokenService' | 'routeURL'>,
  provider: string,
  lifetimeS: number,
  link: { purpose: LinkPurpose; account: Account; email?: string; keep?: string; from?: string },
): Promise<{ token: string; url: string }> {
  const tokens = deps.tokenService;
  const now = tokens.now();
  const token = await tokens.create({
    aud: '',
    exp: now + lifetimeS,
    nbf: now - NBF_SKEW_S,
    jti: randomId(),
    handshake: {
      id: `account:${link.purpose}`,
      account: link.account.id,
      email: link.email ?? link.account.email,
      fp: fingerprint(link.account),
      ...(link.keep !== undefined && { keep: link.keep }),
      ...(link.from !== undefined && { from: link.from }),
    },
    auth_provider: { name: provider },
  });
  return { token, url: `${deps.routeURL(provider, ROUTE[link.purpose])}?token=${encodeURIComponent(token)}` };
}

const invalid = () => new AuthError('confirmation_invalid', 'the link is not valid');

/**
 * Checks a link's token without spending it: signed, this provider's, one of `purposes`, unexpired. A dead
 * link is a 403 (`confirmation_invalid`, `confirmation_expired`); a state store failure stays a 503.
 */
export async function readLink(
  deps: Pick<ProviderDeps, 'tokenService'>,
  provider: string,
  token: unknown,
  purposes: readonly LinkPurpose[],
): Promise<AccountLink> {
  if (typeof token !== 'string' || token === '' || token.length > MAX_TOKEN) throw invalid();
  let claims: Claims;
  try {
    claims = await deps.tokenService.parse(token);
  } catch (err) {
    if (err instanceof AuthError && err.status >= 500) throw err;
    throw invalid();
  }
  const h = claims.handshake;
  const purpose = typeof h?.id === 'string' && h.id.startsWith('account:') ? h.id.slice(8) : '';
  // Bound to this provider and purpose: another provider's link, a session or an OAuth2 handshake is refused.
  if (claims.auth_provider?.name !== provider || claims.user || !purposes.includes(purpose as LinkPurpose))
    throw invalid();
  const { account, email, fp, keep, from } = h as Record<string, unknown>;
  if (typeof account !== 'string' || typeof email !== 'string' || typeof fp !== 'string') throw invalid();
  if (typeof claims.jti !== 'string' || !claims.jti || typeof claims.exp !== 'number') throw invalid();
  if (deps.tokenService.isExpired(claims)) throw new AuthError('confirmation_expired', 'the link has expired');
  return {
    purpose: purpose as LinkPurpose,
    account,
    email,
    fp,
    ...(typeof keep === 'string' && { keep }),
    ...(typeof from === 'string' && { from }),
    jti: claims.jti,
    exp: claims.exp,
  };
}

/** The state-store key a link's `jti` is spent under. */
export function spentId(provider: string, link: AccountLink): string {
  return `password:${provider}:${link.jti}`;
}

/** Spends the link: 403 `confirmation_used` when it was spent before; a store that cannot say fails closed. */
export async function spendLink(
  store: { markUsed(id: string, expiresAtMs: number): Promise<boolean> },
  provider: string,
  link: AccountLink,
): Promise<void> {
  let fresh: boolean;
  try {
    fresh = await store.markUsed(spentId(provider, link), link.exp * 1000);
  } catch (err) {
    throw err instanceof AuthError
      ? err
      : new AuthError('state_store_unavailable', 'login state is unavailable', { cause: err });
  }
  if (!fresh) throw new AuthError('confirmation_used', 'the link has been used already');
}
