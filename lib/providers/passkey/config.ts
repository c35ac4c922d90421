import type { StateStore } from '../../state/types.js';

/** A passkey provider's options, checked and with their defaults filled in by parsePasskeyOptions(). */
export interface PasskeyConfig {
  /** The provider's name: its routes, its binding cookie, the keys of its challenges and limits. */
  readonly name: string;
  /** The name browsers show for the site. */
  readonly rpName: string;
  /** The relying party id: the host of the service's url or a registrable suffix of it. */
  readonly rpID: string;
  /** The origin every WebAuthn response must come from: the service's url's. */
  readonly origin: string;
  readonly userVerification: 'preferred' | 'required';
  /** How long a challenge may be answered, in ms. */
  readonly challengeMs: number;
  /** Login challenges per client per window; undefined when `rateLimit` is false. */
  readonly rateLimit?: { readonly perIP: number; readonly windowMs: number };
  /** The `credentials` option as given: the provider's own passkey store, or undefined for the service's. */
  readonly credentials?: string | StateStore;
}
