import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Claims } from '../session/claims.js';
import type { SessionHooks } from '../session/hooks.js';
import type { CredentialsRevokedReason, Feature } from './contract.js';

type ClaimsHook = (ctx: Context, claims: Claims) => Promise<void>;
type RevokedHook = (userId: string, keptSid: string | undefined) => Promise<void>;
type DeletedHook = (userId: string) => Promise<void>;
type CredentialsHook = (userId: string, reason: CredentialsRevokedReason) => Promise<void>;

/** One feature's hook, with the feature's name for the log. */
interface Hook<F> {
  feature: string;
  run: F;
}

/**
 * The session hooks of the configured features (Feature.sessionStarted, …), as the core calls them: made
 * with the core, before any feature exists, and filled by FeatureSet.start() as each feature is created, so
 * the login, the refresh and the logout hold one object from the start. Each call runs the features' hooks
 * in their order, one after the other; a hook that throws or rejects is logged (as a warning, with the
 * error's code or `feature_hook_failed`) and the rest still run. With no feature hooking a step, a call
 * is an empty loop: this is on every login's path.
 */
export class FeatureHooks implements SessionHooks {
  readonly #logger: Logger;
  readonly #started: Hook<ClaimsHook>[] = [];
  readonly #refreshed: Hook<ClaimsHook>[] = [];
  readonly #ended: Hook<ClaimsHook>[] = [];
  readonly #revoked: Hook<RevokedHook>[] = [];
  readonly #deleted: Hook<DeletedHook>[] = [];
  readonly #credentials: Hook<CredentialsHook>[] = [];

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Adds a created feature's hooks, after those of the features before it. */
  add(feature: string, made: Feature): void {
    if (made.sessionStarted) this.#started.push({ feature, run: made.sessionStarted.bind(made) });
    if (made.sessionRefreshed) this.#refreshed.push({ feature, run: made.sessionRefreshed.bind(made) });
    if (made.sessionEnded) this.#ended.push({ feature, run: made.sessionEnded.bind(made) });
    if (made.sessionsRevoked) this.#revoked.push({ feature, run: made.sessionsRevoked.bind(made) });
    if (made.userDeleted) this.#deleted.push({ feature, run: made.userDeleted.bind(made) });
    if (made.credentialsRevoked) this.#credentials.push({ feature, run: made.credentialsRevoked.bind(made) });
  }

  async started(ctx: Context, claims: Claims): Promise<void> {
    for (const h of this.#started) {
      try {
        await h.run(ctx, claims);
      } catch (err) {
        this.#failed(h.feature, 'sessionStarted', err, claims.user?.id);
      }
    }
  }

  async refreshed(ctx: Context, claims: Claims): Promise<void> {
    for (const h of this.#refreshed) {
      try {
        await h.run(ctx, claims);
      } catch (err) {
        this.#failed(h.feature, 'sessionRefreshed', err, claims.user?.id);
      }
    }
  }

  async ended(ctx: Context, claims: Claims): Promise<void> {
    for (const h of this.#ended) {
      try {
        await h.run(ctx, claims);
      } catch (err) {
        this.#failed(h.feature, 'sessionEnded', err, claims.user?.id);
      }
    }
  }

  async revoked(userId: string, keptSid: string | undefined): Promise<void> {
    for (const h of this.#revoked) {
      try {
        await h.run(userId, keptSid);
      } catch (err) {
        this.#failed(h.feature, 'sessionsRevoked', err, userId);
      }
    }
  }

  /** An account was deleted: each feature forgets what it keeps for the user. */
  async userDeleted(userId: string): Promise<void> {
    for (const h of this.#deleted) {
      try {
        await h.run(userId);
      } catch (err) {
        this.#failed(h.feature, 'userDeleted', err, userId);
      }
    }
  }

  /** An account was recovered: each feature revokes what acts as the user without a session (personal tokens). */
  async credentialsRevoked(userId: string, reason: CredentialsRevokedReason): Promise<void> {
    for (const h of this.#credentials) {
      try {
        await h.run(userId, reason);
      } catch (err) {
        this.#failed(h.feature, 'credentialsRevoked', err, userId);
      }
    }
  }

  #failed(feature: string, hook: string, err: unknown, userId: string | undefined): void {
    const code = err instanceof AuthError ? err.code : 'feature_hook_failed';
    const why = err instanceof Error ? err.message : String(err);
    this.#logger.warn(`feature "${feature}": ${hook} failed: ${why}`, {
      code,
      feature,
      ...(userId !== undefined && { userId }),
    });
  }
}
