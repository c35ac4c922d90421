/**
 * Step 1 of the verified provider: check who asks for which address, mint a signed confirmation
 * token, render the message with it and hand it to the sender, within the per-address and
 * per-client limits.
 */
import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { clientKey } from '../../http/client-key.js';
import { rateLimited, writeJSON } from '../../http/respond.js';
import type { Limiter } from '../../state/limiter.js';
import type { ProviderDeps } from '../core/contract.js';
import { randomId, sessionFlag } from '../kit.js';
import type { VerifiedConfig } from './config.js';
import { describeSendError, type Sender } from './sender.js';

const MAX_USER = 128;
const MAX_ADDRESS = 254; // the longest forward path SMTP allows (RFC 5321)
const MAX_SITE = 128;
const MAX_FROM = 2048;
// C0/C1 controls (CR/LF among them), line separators and bidi overrides: none belongs in a name or an
// address, and each can forge headers or disguise what the reader sees.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** How far back a token's `nbf` goes, for clocks of other processes that run a little behind. */
const NBF_SKEW_S = 60;

/** A step-1 request, checked. */
interface ConfirmationRequest {
  user: string;
  address: string;
  /** The site (`aud`) the login is for. */
  site: string;
  /** Where to go after the login, when the request said. */
  from?: string;
  /** Session-only cookies asked for. */
  session: boolean;
}

/** The step-1 handler of the provider: answers `{ user, address }` once the message is handed over. */
export function sendStep(
  config: VerifiedConfig,
  deps: ProviderDeps,
): (ctx: Context, params: Record<string, string>) => Promise<void> {
  const overLimit = requestLimit(config, deps.limiter);
  return async (ctx, params) => {
    const request = readRequest(params, config.sender);
    const wait = await overLimit?.(request.address, ctx.ip);
    if (wait !== undefined) {
      throw rateLimited(ctx, wait, 'too many confirmation requests');
    }
    const token = await mintToken(config.name, config.lifetimeS, request, deps);
    const loginURL = deps.callbackURL(ctx).replace(/\/callback$/, '/login');
    const link = `${loginURL}?token=${encodeURIComponent(token)}${request.session ? '&session=1' : ''}`;
    const text = config.template.render(
      { User: request.user, Address: request.address, Token: token, Site: request.site, URL: link },
      config.html,
    );
    try {
      await config.sender.send(request.address, text);
    } catch (err) {
      // No cause on the AuthError: the service logs causes, and SMTP replies may quote the request.
      deps.logger.error(`verified ${config.name}: sending the confirmation failed: ${describeSendError(err)}`, {
        provider: config.name,
        code: 'send_failed',
      });
      throw new AuthError('sender_failed', 'failed to send confirmation');
    }
    writeJSON(ctx, 200, { user: request.user, address: request.address });
  };
}

/** The request's user, address, site and `from`, each refused (400) when missing, too long or unsafe. */
function readRequest(params: Record<string, string>, sender: Sender): ConfirmationRequest {
  const user = (params.user ?? '').trim();
  const address = (params.address ?? '').trim();
  if (!user || !address) throw new AuthError('bad_request', "can't get user and address");
  // "::" separates user from address inside the token.
  if (user.length > MAX_USER || UNSAFE.test(user) || user.includes('::'))
    throw new AuthError('bad_user', 'invalid user');
  if (address.length > MAX_ADDRESS || UNSAFE.test(address)) throw new AuthError('bad_address', 'invalid address');
  if (sender.validateAddress && !sender.validateAddress(address)) throw new AuthError('bad_address', 'invalid address');
  const site = params.site || params.aud || '';
  if (site.length > MAX_SITE || UNSAFE.test(site)) throw new AuthError('bad_request', 'invalid site');
  const from = params.from || undefined;
  if (from && (from.length > MAX_FROM || UNSAFE.test(from))) throw new AuthError('bad_request', 'invalid from');
  return { user, address, site, from, session: sessionFlag(params) ?? false };
}

/** The confirmation token: one-shot (its `jti`), bound to this provider, carrying `user::address` and `from`. */
function mintToken(name: string, lifetimeS: number, request: ConfirmationRequest, deps: ProviderDeps): Promise<string> {
  const tokens = deps.tokenService;
  const now = tokens.now();
  return tokens.create({
    aud: request.site,
    exp: now + lifetimeS,
    nbf: now - NBF_SKEW_S,
    jti: randomId(),
    sess_only: request.session || undefined,
    handshake: { id: `${request.user}::${request.address}`, ...(request.from ? { from: request.from } : {}) },
    auth_provider: { name },
  });
}

/**
 * The step-1 limits (`rateLimit`), counted per provider by the service's limiter: the wait when over one; undefined
 * when off.
 */
function requestLimit(
  { name, rateLimit }: VerifiedConfig,
  limiter: Limiter,
): ((address: string, ip: string) => Promise<number | undefined>) | undefined {
  if (!rateLimit) return undefined;
  const { perAddress, perIP, windowMs } = rateLimit;
  // Addresses compare case-insensitively: a flood should not dodge the limit by changing case.
  return (address, ip) =>
    limiter.hit(
      [
        { key: `verified:${name}:a:${address.toLowerCase()}`, limit: perAddress },
        { key: `verified:${name}:i:${clientKey(ip)}`, limit: perIP },
      ],
      windowMs,
    );
}
