import { verifiedRouteDocs } from './verified/docs.js';
import { parseDuration, type Duration } from '../util/duration.js';
import { optionNames } from '../util/options.js';
import type { UsedTokenStore } from '../state/used-tokens.js';
import type { Provider, ProviderDeps, ProviderModule } from './core/contract.js';
import { readParams } from './kit.js';
import type { VerifiedConfig } from './verified/config.js';
import { confirmStep } from './verified/confirm.js';
import { sendStep } from './verified/send.js';
import { isHTML, toSender, type Sender, type SenderFunc } from './verified/sender.js';
import { DEFAULT_TEMPLATE, compileTemplate } from './verified/template.js';

/** Options of a `kind: 'verified'` provider: login by a one-shot token sent to an address. */
export interface VerifiedProviderOptions {
  kind: 'verified';
  /** Provider name; the route is `/auth/<name>/login` and user ids are `<name>_<sha1(address)>`. */
  name: string;
  /**
   * Message text with `{{.User}}`, `{{.Address}}`, `{{.Token}}`, `{{.Site}}`, `{{.URL}}`. Default: a short text with
   * the token.
   */
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
  /**
   * Requests per client (`ctx.ip`, an IPv6 address by its /64; set `app.proxy` behind a proxy) per window. Default 20.
   */
  perIP?: number;
  /** Window length. Default 10 minutes. */
  window?: Duration;
}

/** The largest login body read, for either step. */
const PARAMS_LIMIT = 64 * 1024;

/** The verified ("email") provider: step 1 sends a signed confirmation token, step 2 trades it for a session. */
export const verifiedProvider: ProviderModule<VerifiedProviderOptions & { [k: string]: unknown }> = {
  kind: 'verified',
  options: optionNames<VerifiedProviderOptions>({
    kind: true,
    name: true,
    template: true,
    sender: true,
    confirmPage: true,
    tokenDuration: true,
    rateLimit: true,
    usedTokens: true,
  }),
  async create(opts, deps: ProviderDeps): Promise<Provider> {
    const config = parseVerifiedOptions(opts, deps);
    await config.sender.ready?.();
    const send = sendStep(config, deps);
    const confirm = confirmStep(config, deps);
    return {
      name: config.name,
      kind: 'verified',
      async login(ctx) {
        const params = await readParams(ctx, PARAMS_LIMIT);
        return params.token ? confirm(ctx, params.token, params) : send(ctx, params);
      },
      callback(ctx) {
        ctx.status = 200;
        ctx.body = '';
        return Promise.resolve();
      },
      logout(ctx) {
        deps.endSession(ctx);
        return Promise.resolve();
      },
      async close() {
        await config.sender.close?.(); // a usedTokens store passed in belongs to the application
      },
      routeDocs: verifiedRouteDocs(config.confirmPage),
    };
  },
};

/** Checks a verified entry's options (a TypeError naming the option) and fills in their defaults. */
export function parseVerifiedOptions(opts: VerifiedProviderOptions, deps: ProviderDeps): VerifiedConfig {
  if (typeof opts.name !== 'string' || !opts.name) throw new TypeError('name is required');
  const sender = toSender(opts.sender);
  const template = compileTemplate(opts.template ?? DEFAULT_TEMPLATE);
  if (opts.confirmPage !== undefined && typeof opts.confirmPage !== 'boolean')
    throw new TypeError('confirmPage must be a boolean');
  const lifetimeS = Math.ceil(parseDuration(opts.tokenDuration ?? '30m', 'tokenDuration') / 1000);
  const rateLimit = parseRateLimit(opts.rateLimit);
  if (opts.usedTokens !== undefined && typeof opts.usedTokens?.markUsed !== 'function') {
    throw new TypeError('usedTokens must implement markUsed(id, expiresAtMs)');
  }
  return {
    name: opts.name,
    sender,
    template,
    html: isHTML(sender.contentType),
    confirmPage: opts.confirmPage !== false,
    lifetimeS,
    rateLimit,
    usedTokens: opts.usedTokens ?? deps.stateStore,
  };
}

/** The `rateLimit` option: its counts per address and per client and its window, or undefined when it is false. */
function parseRateLimit(input: unknown): VerifiedConfig['rateLimit'] {
  if (input === false) return undefined;
  if (input !== undefined && (typeof input !== 'object' || input === null))
    throw new TypeError('rateLimit must be false or { perAddress, perIP, window }');
  const o = (input ?? {}) as VerifiedRateLimit;
  const count = (v: unknown, key: string, dflt: number) => {
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
      throw new TypeError(`rateLimit.${key} must be a positive integer`);
    return v;
  };
  const perAddress = count(o.perAddress, 'perAddress', 5);
  const perIP = count(o.perIP, 'perIP', 20);
  return { perAddress, perIP, windowMs: parseDuration(o.window ?? '10m', 'rateLimit.window') };
}
