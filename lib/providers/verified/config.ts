import type { UsedTokenStore } from '../../state/used-tokens.js';
import type { Sender } from './sender.js';
import type { Template } from './template.js';

/** A verified provider's options, checked and with their defaults filled in by parseVerifiedOptions(). */
export interface VerifiedConfig {
  /** The provider's name: its route, its users' ids (`<name>_<sha1(address)>`), the keys of its tokens and limits. */
  readonly name: string;
  readonly sender: Sender;
  readonly template: Template;
  /** Whether the sender sends HTML, so the template escapes the values it inserts. */
  readonly html: boolean;
  /** Whether a GET of the link shows the page whose button logs in (true), or logs in itself (false). */
  readonly confirmPage: boolean;
  /** Lifetime of a confirmation token, in seconds. */
  readonly lifetimeS: number;
  /** Step-1 requests per address and per client per window; undefined when `rateLimit` is false. */
  readonly rateLimit?: { readonly perAddress: number; readonly perIP: number; readonly windowMs: number };
  /** Where spent token ids are kept: the `usedTokens` option, else the service's state store. */
  readonly usedTokens: UsedTokenStore;
}
