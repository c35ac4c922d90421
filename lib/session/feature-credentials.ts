import type { Context } from 'koa';
import type { AuthError } from '../errors.js';
import type { RequestAuth, User } from '../user.js';

/** Who a feature's credential is: its user, and what `ctx.state.auth` says of it. */
export interface CredentialUser {
  user: User;
  auth: RequestAuth;
}

/**
 * A credential other than the session that a feature accepts on the application's routes (`auth`, `admin`,
 * `rbac`, `scope`), sent as `Authorization: <scheme> <value>`. It is never a full login: every route that
 * manages factors, sessions, links, tokens or credentials refuses a request that presents one, with the
 * feature's `refused` error, and `fresh()` answers it 401 `reauth_required`.
 */
export interface FeatureCredential {
  /** The Authorization scheme it is sent with, case-insensitive: `Bearer`. */
  readonly scheme: string;
  /** Whether a value sent with the scheme is this feature's (its prefix); cheap and synchronous. */
  recognises(value: string): boolean;
  /**
   * The credential's user and how they authenticated, or a thrown AuthError (401) for one that is not live.
   * Synchronous when it can be (a cached credential): this runs on every request that presents it.
   */
  authenticate(value: string, ctx: Context): CredentialUser | Promise<CredentialUser>;
  /** The refusal of a route that manages how the user logs in (403), naming the route (`what`). */
  refused(what: string): AuthError;
}

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
