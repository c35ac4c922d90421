import { clientKey } from '../http/client-key.js';
import type { Context } from 'koa';
import { parseDuration, type Duration } from '../util/duration.js';
import { AuthError } from '../errors.js';
import { rateLimited, writeJSON } from '../http/respond.js';
import type { Limiter } from '../state/limiter.js';
import type { Provider, ProviderDeps, ProviderModule } from './core/contract.js';
import type { UsedTokenStore } from '../state/used-tokens.js';
import type { Claims } from '../session/claims.js';
import { alreadySpent, writeConfirmPage, writeDeadLinkPage } from './verified/confirm-page.js';
import { describeSendError, isHTML, toSender, type Sender, type SenderFunc } from './verified/sender.js';
import { DEFAULT_TEMPLATE, compileTemplate } from './verified/template.js';
import { optionNames } from '../util/options.js';

/** Options of a `kind: 'verified'` provider: login by a one-shot token sent to an address. */
export interface VerifiedProviderOptions {
  kind: 'verified';
  /** Provider name; the route is `/auth/<name>/login` and user ids are `<name>_<sha1(address)>`. */
  name: string;
  /** Message text with `{{.User}}`, `{{.Address}}`, `{{.Token}}`, `{{.Site}}`, `{{.URL}}`. Default: a short text with the token. */
  template?: string;
  /** Delivers the message: `emailSender({...})`, any `{ send(address, text) }`, or a function. */
  sender: Sender | SenderFunc;
  /**
   * Step 2 by GET answers a page whose button POSTs the token; only the POST logs in, so link scanners
   * cannot spend the token and a link alone never logs a browser in. Default true; false lets the GET log in
   * (the original's behaviour).
   */
  confirmPage?: boolean;
  /** Lifetime of the confirmation token. Default 30 minutes. */
  tokenDuration?: Duration;
  /** Limits on step 1 (it sends a message per request); false turns them off. */
  rateLimit?: false | VerifiedRateLimit;
  /** Where spent token ids are kept until they expire. Default: the service's `stateStore`. */
  usedTokens?: UsedTokenStore;
}

/** Step-1 limits, counted per provider in the service's `stateStore` (so shared by the processes sharing it). */
export interface VerifiedRateLimit {
  /** Requests per address per window. Default 5. */
  perAddress?: number;
  /** Requests per client (`ctx.ip`, an IPv6 address by its /64; set `app.proxy` behind a proxy) per window. Default 20. */
  perIP?: number;
  /** Window length. Default 10 minutes. */
  window?: Duration;
}

const MAX_USER = 128;
const MAX_ADDRESS = 254; // the longest forward path SMTP allows (RFC 5321)
const MAX_SITE = 128;
const MAX_FROM = 2048;
const MAX_TOKEN = 4096;
const PARAMS_LIMIT = 64 * 1024;
// C0/C1 controls (CR/LF among them), line separators and bidi overrides: none belongs in a name or an
// address, and each can forge headers or disguise what the reader sees.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const NBF_SKEW_S = 60;

const invalid = () => new AuthError(403, 'confirmation_invalid', 'failed to verify confirmation token');

/** The verified ("email") provider: step 1 sends a signed confirmation token, step 2 trades it for a session. */
export const verifiedProvider: ProviderModule<VerifiedProviderOptions & { [k: string]: unknown }> = {
  kind: 'verified',
  options: optionNames<VerifiedProviderOptions>({ kind: true, name: true, template: true, sender: true, confirmPage: true, tokenDuration: true, rateLimit: true, usedTokens: true }),
  async create(opts, deps: ProviderDeps): Promise<Provider> {
    if (typeof opts.name !== 'string' || !opts.name) throw new TypeError('name is required');
    const name = opts.name;
    const sender = toSender(opts.sender);
    await sender.ready?.();
    const template = compileTemplate(opts.template ?? DEFAULT_TEMPLATE);
    const html = isHTML(sender.contentType);
    if (opts.confirmPage !== undefined && typeof opts.confirmPage !== 'boolean') throw new TypeError('confirmPage must be a boolean');
    const lifetimeS = Math.ceil(parseDuration(opts.tokenDuration ?? '30m', 'tokenDuration') / 1000);
    const limits = rateLimits(opts.rateLimit, deps.limiter, name);
    if (opts.usedTokens !== undefined && typeof opts.usedTokens?.markUsed !== 'function') {
      throw new TypeError('usedTokens must implement markUsed(id, expiresAtMs)');
    }
    const usedTokens = opts.usedTokens ?? deps.stateStore;
    const tokens = deps.tokenService;
    const origin = new URL(deps.url).origin;

    /** Step 1: check the request, mint the confirmation token, render and send it. */
    async function request(ctx: Context, params: Record<string, string>): Promise<void> {
      const user = (params.user ?? '').trim();
      const address = (params.address ?? '').trim();
      if (!user || !address) throw new AuthError(400, 'bad_request', "can't get user and address");
      // "::" separates user from address inside the token.
      if (user.length > MAX_USER || UNSAFE.test(user) || user.includes('::')) throw new AuthError(400, 'bad_user', 'invalid user');
      if (address.length > MAX_ADDRESS || UNSAFE.test(address)) throw new AuthError(400, 'bad_address', 'invalid address');
      if (sender.validateAddress && !sender.validateAddress(address)) throw new AuthError(400, 'bad_address', 'invalid address');
      const site = params.site || params.aud || '';
      if (site.length > MAX_SITE || UNSAFE.test(site)) throw new AuthError(400, 'bad_request', 'invalid site');
      const from = params.from || undefined;
      if (from && (from.length > MAX_FROM || UNSAFE.test(from))) throw new AuthError(400, 'bad_request', 'invalid from');
      const session = deps.sessionFlag(params) ?? false;

      const wait = await limits?.check(address, ctx.ip);
      if (wait !== undefined) {
        throw rateLimited(ctx, wait, 'too many confirmation requests');
      }

      const now = tokens.now();
      const token = await tokens.create({
        aud: site,
        exp: now + lifetimeS,
        nbf: now - NBF_SKEW_S,
        jti: deps.randomId(),
        sess_only: session || undefined,
        handshake: { id: `${user}::${address}`, ...(from ? { from } : {}) },
        auth_provider: { name },
      });
      const link = `${deps.callbackURL(ctx).replace(/\/callback$/, '/login')}?token=${encodeURIComponent(token)}${session ? '&session=1' : ''}`;
      const text = template.render({ User: user, Address: address, Token: token, Site: site, URL: link }, html);
      try {
        await sender.send(address, text);
      } catch (err) {
        // No cause on the AuthError: the service logs causes, and SMTP replies may quote the request.
        deps.logger.error(`verified ${name}: sending the confirmation failed: ${describeSendError(err)}`);
        throw new AuthError(502, 'sender_failed', 'failed to send confirmation');
      }
      writeJSON(ctx, 200, { user, address });
    }

    /** Checks a confirmation token without spending it. */
    async function verify(token: string, params: Record<string, string>): Promise<Claims & { handshake: { id: string } }> {
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
      if (claims.auth_provider?.name !== name || typeof id !== 'string' || !id.includes('::') || claims.user) throw invalid();
      if (typeof claims.jti !== 'string' || !claims.jti || typeof claims.exp !== 'number') throw invalid();
      if (tokens.isExpired(claims)) throw new AuthError(403, 'confirmation_expired', 'confirmation token expired');
      const site = params.site || params.aud;
      if (site !== undefined && site !== '' && site !== claims.aud) throw invalid();
      return claims as Claims & { handshake: { id: string } };
    }

    /** Step 2: spend the token, then log in. */
    async function confirm(ctx: Context, token: string, params: Record<string, string>): Promise<void> {
      const claims = await verify(token, params);
      const session = deps.sessionFlag(params) ?? claims.sess_only === true;
      const from = typeof claims.handshake.from === 'string' ? claims.handshake.from : undefined;
      const usedId = `verified:${name}:${claims.jti}`;
      // Only a POST logs in unless confirmPage is false: a GET (a mail scanner, a prefetch, a link an
      // attacker sent the victim) shows the page whose button makes that POST.
      if (opts.confirmPage !== false && ctx.method !== 'POST') {
        // A spent link says so at once, instead of a button whose POST can only be refused.
        if (await alreadySpent(usedTokens, usedId, deps.clock())) throw new AuthError(403, 'confirmation_used', 'confirmation token already consumed');
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
      // A POST from another site's page (the attacker's own token, the victim's browser) never gets here: the router refuses it.
      let fresh: boolean;
      try {
        fresh = await usedTokens.markUsed(usedId, claims.exp! * 1000);
      } catch (err) {
        // Fails closed. The service's store already answers a 503; the service logs its cause.
        throw err instanceof AuthError ? err : new AuthError(503, 'state_store_unavailable', 'login state is unavailable', { cause: err });
      }
      if (!fresh) throw new AuthError(403, 'confirmation_used', 'confirmation token already consumed');
      const id = claims.handshake.id;
      const sep = id.indexOf('::');
      const address = id.slice(sep + 2);
      await deps.completeLogin(ctx, {
        provider: name,
        user: { name: id.slice(0, sep), id: deps.userId(name, address), picture: '' },
        aud: claims.aud ?? '',
        sessionOnly: session,
        from,
      });
    }

    return {
      name,
      kind: 'verified',
      async login(ctx) {
        const params = await deps.readParams(ctx, PARAMS_LIMIT);
        if (!params.token) return request(ctx, params);
        return confirm(ctx, params.token, params).catch((err: unknown) => {
          // In confirm-page mode the link is opened in a browser: a dead one gets a page, not raw JSON.
          if (opts.confirmPage === false || !writeDeadLinkPage(ctx, err)) throw err;
        });
      },
      async callback(ctx) {
        ctx.status = 200;
        ctx.body = '';
      },
      async logout(ctx) {
        deps.endSession(ctx);
      },
      async close() {
        await sender.close?.(); // a usedTokens store passed in belongs to the application
      },
    };
  },
};

function addressOf(id: string): string {
  return id.slice(id.indexOf('::') + 2);
}

function rateLimits(input: unknown, limiter: Limiter, name: string): { check(address: string, ip: string): Promise<number | undefined> } | undefined {
  if (input === false) return undefined;
  if (input !== undefined && (typeof input !== 'object' || input === null)) throw new TypeError('rateLimit must be false or { perAddress, perIP, window }');
  const o = (input ?? {}) as VerifiedRateLimit;
  const count = (v: unknown, key: string, dflt: number) => {
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new TypeError(`rateLimit.${key} must be a positive integer`);
    return v;
  };
  const perAddress = count(o.perAddress, 'perAddress', 5);
  const perIP = count(o.perIP, 'perIP', 20);
  const windowMs = parseDuration(o.window ?? '10m', 'rateLimit.window');
  return {
    // Addresses compare case-insensitively: a flood should not dodge the limit by changing case.
    check: (address, ip) =>
      limiter.hit(
        [
          { key: `verified:${name}:a:${address.toLowerCase()}`, limit: perAddress },
          { key: `verified:${name}:i:${clientKey(ip)}`, limit: perIP },
        ],
        windowMs,
      ),
  };
}
