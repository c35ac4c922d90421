import { parseDuration, type Duration } from '../../util/duration.js';
import { optionNames } from '../../util/options.js';
import { toSender, isHTML, type Sender, type SenderFunc } from '../../providers/verified/sender.js';
import { checkScryptParams, OWASP_SCRYPT, type ScryptParams } from '../password-hash.js';
import {
  BreachCheckError,
  DEFAULT_POLICY,
  hibpCheck,
  MAX_PASSWORD_LENGTH,
  type PasswordPolicy,
} from '../password-policy.js';
import { compileMessages, type MessageTemplates, type Messages } from './messages.js';

/** Options of a `kind: 'password'` provider: sign-up, login and the rest over the `accounts` store. */
export interface PasswordProviderOptions {
  kind: 'password';
  /** Provider name: the routes are `/auth/<name>/…`, user ids `<name>_<account id>`. */
  name: string;
  /** Delivers the links: `emailSender({...})`, any `{ send(address, text, about) }`, or a function. */
  sender: Sender | SenderFunc;
  /** Whether anyone may sign up (`POST signup`). Default true; false leaves accounts to an operator. */
  signup?: boolean;
  /** How long a confirmation link (sign-up, a new address) works. Default 24 hours. */
  confirmTimeout?: Duration;
  /** How long a reset link works. Default 1 hour. */
  resetTimeout?: Duration;
  /** The shortest password accepted, in characters (NIST 800-63B: 8 at least). Default 8. */
  minLength?: number;
  /**
   * Refuse passwords known from breaches: `'hibp'` asks the Pwned Passwords range API with the first five hex
   * characters of the password's SHA-1 only (k-anonymity), or a function that says whether one is breached.
   */
  breached?: 'hibp' | ((password: string) => boolean | Promise<boolean>);
  /** The range API's base URL for `breached: 'hibp'`. Default https://api.pwnedpasswords.com. */
  hibpUrl?: string;
  /** scrypt's cost (`ln`, log2 of N), block size `r` and parallelism `p`. Default OWASP's: 17, 8, 1. */
  scrypt?: ScryptParams;
  /** The messages' texts and subjects, each a template over `{{.URL}}`, `{{.Address}}`, `{{.Name}}`, `{{.Site}}`. */
  templates?: MessageTemplates;
  /** Sign-ups, resets and new links per address and per client per window; false turns them off. */
  rateLimit?: false | { perAddress?: number; perIP?: number; window?: Duration };
  /** How recent a login must be to change the password or the address or to delete the account. Default 5 minutes. */
  fresh?: Duration;
  /**
   * Where the owner reviews the logins linked to the account (the app's own page over `GET /auth/links`), linked
   * from the notice of a new password: a path under `url` (`'/settings/logins'`) or an http(s) URL. Default `'/'`.
   */
  reviewLinksUrl?: string;
}

/** A password entry's options, checked, with their defaults. */
export interface PasswordConfig {
  readonly name: string;
  readonly sender: Sender;
  /** The sender sends HTML: templates escape what they insert. */
  readonly html: boolean;
  readonly signup: boolean;
  readonly confirmS: number;
  readonly resetS: number;
  readonly policy: PasswordPolicy;
  readonly scrypt: ScryptParams;
  readonly messages: Messages;
  readonly rateLimit?: { readonly perAddress: number; readonly perIP: number; readonly windowMs: number };
  readonly freshMs: number;
  /** A path under the service's `url`, or an http(s) URL. */
  readonly reviewLinksUrl: string;
}

export const PASSWORD_OPTIONS = optionNames<PasswordProviderOptions>({
  kind: true,
  name: true,
  sender: true,
  signup: true,
  confirmTimeout: true,
  resetTimeout: true,
  minLength: true,
  breached: true,
  hibpUrl: true,
  scrypt: true,
  templates: true,
  rateLimit: true,
  fresh: true,
  reviewLinksUrl: true,
});

/** Checks a password entry's options (a TypeError naming the option) and fills in their defaults. */
export function parsePasswordOptions(opts: PasswordProviderOptions): PasswordConfig {
  if (typeof opts.name !== 'string' || !opts.name) throw new TypeError('name is required');
  const sender = toSender(opts.sender);
  if (opts.signup !== undefined && typeof opts.signup !== 'boolean') throw new TypeError('signup must be a boolean');
  const minLength = opts.minLength ?? DEFAULT_POLICY.minLength;
  if (!Number.isInteger(minLength) || minLength < 8 || minLength > 64)
    throw new TypeError('minLength must be a whole number from 8 to 64 (NIST 800-63B asks for 8 at least)');
  const scrypt = checkScryptParams(opts.scrypt ?? OWASP_SCRYPT, 'scrypt');
  return {
    name: opts.name,
    sender,
    html: isHTML(sender.contentType),
    signup: opts.signup !== false,
    confirmS: seconds(opts.confirmTimeout ?? '24h', 'confirmTimeout'),
    resetS: seconds(opts.resetTimeout ?? '1h', 'resetTimeout'),
    policy: { minLength, maxLength: MAX_PASSWORD_LENGTH, breached: breachCheck(opts) },
    scrypt,
    messages: compileMessages(opts.templates),
    rateLimit: parseRateLimit(opts.rateLimit),
    freshMs: parseDuration(opts.fresh ?? '5m', 'fresh'),
    reviewLinksUrl: readReviewLinksUrl(opts.reviewLinksUrl),
  };
}

/** `reviewLinksUrl`: a path under `url` (not `//host`, which a browser reads as another site) or an http(s) URL. */
function readReviewLinksUrl(input: unknown): string {
  if (input === undefined) return '/';
  const ok =
    typeof input === 'string' &&
    !/\s/.test(input) &&
    (/^\/(?![/\\])/.test(input) || (/^https?:\/\//i.test(input) && URL.canParse(input)));
  if (!ok) throw new TypeError("reviewLinksUrl must be a path under url ('/settings/logins') or an http(s) URL");
  return input;
}

function seconds(d: Duration, option: string): number {
  return Math.ceil(parseDuration(d, option) / 1000);
}

function breachCheck(opts: PasswordProviderOptions): PasswordPolicy['breached'] {
  const b = opts.breached;
  if (opts.hibpUrl !== undefined && b !== 'hibp') throw new TypeError("hibpUrl is only read with breached: 'hibp'");
  if (b === undefined) return undefined;
  if (b === 'hibp') {
    if (opts.hibpUrl !== undefined && (typeof opts.hibpUrl !== 'string' || !/^https?:\/\//.test(opts.hibpUrl)))
      throw new TypeError('hibpUrl must be an http(s) URL');
    return hibpCheck({ url: opts.hibpUrl });
  }
  if (typeof b === 'function')
    return async (password) => {
      try {
        return (await b(password)) === true;
      } catch (err) {
        // The app's own check could not say: answered as the range API's outage is (503), never as a 500.
        throw new BreachCheckError('the breached function failed', { cause: err });
      }
    };
  throw new TypeError("breached must be 'hibp' or a function (password) => boolean");
}

function parseRateLimit(input: PasswordProviderOptions['rateLimit']): PasswordConfig['rateLimit'] {
  if (input === false) return undefined;
  if (input !== undefined && (typeof input !== 'object' || input === null))
    throw new TypeError('rateLimit must be false or { perAddress, perIP, window }');
  const o = input ?? {};
  const count = (v: unknown, key: string, dflt: number) => {
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
      throw new TypeError(`rateLimit.${key} must be a positive integer`);
    return v;
  };
  return {
    perAddress: count(o.perAddress, 'perAddress', 5),
    perIP: count(o.perIP, 'perIP', 20),
    windowMs: parseDuration(o.window ?? '10m', 'rateLimit.window'),
  };
}
