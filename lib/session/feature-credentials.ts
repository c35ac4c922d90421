import type { FeatureCredential } from '../features/contract.js';

/** A credential of a feature found in a request's Authorization header, with the value after its scheme. */
export interface PresentedCredential {
  credential: FeatureCredential;
  value: string;
}

/**
 * The credentials the configured features accept besides the session (Feature.credential): made with the
 * core, before any feature exists, and filled by FeatureSet.start() as each is created, as FeatureHooks is,
 * so the authenticator holds one object from the start. Empty, `find` is one length check: it runs on
 * every protected request that sends an Authorization header.
 */
export class FeatureCredentials {
  readonly #all: FeatureCredential[] = [];

  /** Adds a created feature's credential. */
  add(credential: FeatureCredential): void {
    this.#all.push(credential);
  }

  /** True when some feature accepts a credential: only then is the Authorization header read for one. */
  get any(): boolean {
    return this.#all.length > 0;
  }

  /** The feature credential an Authorization header carries, or undefined (no header, another scheme, not ours). */
  find(header: string | undefined): PresentedCredential | undefined {
    if (!header || this.#all.length === 0) return undefined;
    const space = header.indexOf(' ');
    if (space <= 0) return undefined;
    const scheme = header.slice(0, space).toLowerCase();
    const value = header.slice(space + 1).trim();
    for (const credential of this.#all) {
      if (credential.scheme.toLowerCase() === scheme && credential.recognises(value)) return { credential, value };
    }
    return undefined;
  }
}
