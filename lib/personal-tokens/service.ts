import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import type {
  CredentialsRevokedReason,
  CredentialUser,
  FeatureContext,
  FeatureCredential,
  RequestAuth,
} from '../features/contract.js';
import { canonicalUser } from '../session/claims.js';
import type { User } from '../user.js';
import { stateLimiter } from '../state/limiter.js';
import { isPromise } from '../util/is-promise.js';
import { tokenCache } from './cache.js';
import { tokenChannel } from './channel.js';
import type { TokenRevokedEvent } from './events.js';
import { mintToken, tokenHash } from './format.js';
import { lookupThrottle, type LookupThrottle } from './lookup-throttle.js';
import type { PersonalTokensConfig } from './options.js';
import { statePersonalTokenStore, TooManyTokens, type PersonalToken, type PersonalTokenStore } from './store.js';
import { tokenVerifier, type TokenVerifier } from './verify.js';
import { tokenView, type NewPersonalToken, type PersonalTokenView } from './views.js';

/** `auth.tokens.list/revoke` and `auth.features.get('tokens')`: the personal tokens of any user. */
export interface PersonalTokensAdmin {
  /** The user's live tokens, oldest first, without secrets. */
  list(userId: string): Promise<PersonalTokenView[]>;
  /** Revokes the user's token `id`: refused at once in this process, within `revocationDelay` in the others. */
  revoke(userId: string, id: string): Promise<boolean>;
  /** Revokes every token of the user; how many went. */
  revokeAll(userId: string): Promise<number>;
}

/** What a new token asks for, checked (routes.ts reads it from the request). */
export interface TokenRequest {
  name: string;
  scopes: string[];
  /** ms since the epoch; undefined: never. */
  expires: number | undefined;
}

/** The personal tokens of one instance: the store, the verification with its cache, and what uses them. */
export interface PersonalTokens {
  credential: FeatureCredential;
  admin: PersonalTokensAdmin;
  store: PersonalTokenStore;
  /** Mints a token for `user` (a full login's, fresh): 409 `too_many_tokens` past `maxPerUser`. */
  create(user: User, provider: string | undefined, asked: TokenRequest, ctx: Context): Promise<NewPersonalToken>;
  /** Revokes one token of the user, telling `token_revoked`; false when the user has none by that id. */
  revoke(userId: string, id: string, by: 'user' | 'admin', ctx?: Context): Promise<boolean>;
  /** Revokes every token of a deleted account's user. */
  userDeleted(userId: string): Promise<void>;
  /** Revokes every token of a recovered account's user (Feature.credentialsRevoked). */
  credentialsRevoked(userId: string, reason: CredentialsRevokedReason): Promise<void>;
  /** Stops following the other processes' revocations. */
  close(): void;
}

/** What the tokens need of the instance besides a feature's context. */
export interface PersonalTokensParts {
  /** `strictRevocation`: every use of a token reads the store, nothing is cached. */
  strictRevocation: boolean;
  /** The configured providers, by name: a token of a provider no longer configured is refused. */
  providers: { has(name: string): boolean };
}

export function personalTokens(
  config: PersonalTokensConfig,
  context: FeatureContext,
  { strictRevocation, providers }: PersonalTokensParts,
): PersonalTokens {
  const store = statePersonalTokenStore(context.stateStore);
  const verifier = cachedVerifier(config, context, store, strictRevocation);
  const { revoke, revokeAll, channel } = revocations(config, context, store, verifier, strictRevocation);
  const credential = tokenCredential(config, context, verifier, providers);

  async function create(user: User, provider: string | undefined, asked: TokenRequest, ctx: Context) {
    const now = context.clock();
    await store.list(user.id, now); // expired tokens leave the index, so they do not count against the limit
    const owner = ownerOf(user);
    for (let tries = 0; tries < 3; tries++) {
      const token = mintToken(config.prefix);
      const record: PersonalToken = {
        id: `pat_${randomBytes(12).toString('base64url')}`,
        userId: user.id,
        user: owner,
        ...(provider !== undefined && { provider }),
        name: asked.name,
        scopes: asked.scopes,
        created: now,
        ...(asked.expires !== undefined && { expires: asked.expires }),
        hash: tokenHash(token),
      };
      if (!(await keep(record))) continue; // a collision of 2^96 ids or 2^178 secrets: mint again
      const view = tokenView(record);
      const event = { userId: user.id, tokenId: record.id, name: record.name, scopes: record.scopes };
      context.emit('token_created', view.expires ? { ...event, expires: view.expires } : event, ctx);
      return { ...view, token };
    }
    throw new Error('personal tokens: could not store a new token');
  }

  /** Stores a new token within the user's limit: 409 `too_many_tokens` past it. */
  async function keep(record: PersonalToken): Promise<boolean> {
    try {
      return await store.create(record, config.maxPerUser);
    } catch (err) {
      if (!(err instanceof TooManyTokens)) throw err;
      throw context.error('too_many_tokens', `a user holds at most ${config.maxPerUser} tokens: revoke one first`);
    }
  }

  const admin: PersonalTokensAdmin = {
    list: async (userId) => (await store.list(checkUserId(userId), context.clock())).map(tokenView),
    revoke: (userId, id) => revoke(checkUserId(userId), String(id), 'admin'),
    revokeAll: (userId) => revokeAll(checkUserId(userId), 'admin'),
  };
  return {
    credential,
    admin,
    store,
    create,
    revoke,
    userDeleted: async (userId) => void (await revokeAll(userId, 'account_deleted')),
    credentialsRevoked: async (userId, reason) => void (await revokeAll(userId, reason)),
    close: () => channel.close(),
  };
}

/**
 * Revoking tokens: the store, this process's cache, the `token_revoked` event, then every other process's cache
 * through the revocation channel. Without a cache (strictRevocation, or no delay) there is nothing to tell.
 */
function revocations(
  config: PersonalTokensConfig,
  context: FeatureContext,
  store: PersonalTokenStore,
  verifier: ReturnType<typeof cachedVerifier>,
  strictRevocation: boolean,
) {
  const cached = !strictRevocation && config.revocationDelayMs > 0;
  const broadcast = cached ? context.stateStore.broadcast : undefined;
  const channel = tokenChannel(broadcast, config.revocationDelayMs, (t) => verifier.revoked(t));
  const emitRevoked = (t: PersonalToken, by: TokenRevokedEvent['by'], ctx?: Context) =>
    context.emit('token_revoked', { userId: t.userId, tokenId: t.id, by }, ctx);

  async function revoke(userId: string, id: string, by: 'user' | 'admin', ctx?: Context): Promise<boolean> {
    const gone = await store.revoke(userId, id);
    if (!gone) return false;
    verifier.revoked(gone);
    emitRevoked(gone, by, ctx);
    await channel.revoked(gone);
    return true;
  }

  async function revokeAll(userId: string, by: Exclude<TokenRevokedEvent['by'], 'user'>): Promise<number> {
    const gone = await store.revokeAll(userId);
    for (const t of gone) {
      verifier.revoked(t);
      emitRevoked(t, by);
    }
    await Promise.all(gone.map((t) => channel.revoked(t)));
    return gone.length;
  }
  return { revoke, revokeAll, channel };
}

/** The verification of the tokens in `store`, through this process's cache (none with strictRevocation). */
function cachedVerifier(
  config: PersonalTokensConfig,
  context: FeatureContext,
  store: PersonalTokenStore,
  strictRevocation: boolean,
): TokenVerifier {
  // With strictRevocation nothing is cached: every use reads the store, and a revocation anywhere counts at once.
  const cache = tokenCache({ maxEntries: config.cacheSize, ttlMs: strictRevocation ? 0 : config.revocationDelayMs });
  const onTouchFailed = (err: unknown) =>
    context.logger.warn(`personal tokens: recording a use failed: ${(err as Error)?.message}`, {
      code: 'token_touch_failed',
    });
  return tokenVerifier({ store, cache, prefix: config.prefix, clock: context.clock, onTouchFailed });
}

/**
 * The tokens as a credential of the application's routes (`Authorization: Bearer <prefix>_…`): a live token's owner,
 * synchronously from the cache when it can, and the refusal every account route answers a request presenting one.
 */
function tokenCredential(
  config: PersonalTokensConfig,
  context: FeatureContext,
  verifier: TokenVerifier,
  providers: PersonalTokensParts['providers'],
): FeatureCredential {
  /** The owner of a live token as the request gets them, copied: the app may change what it is handed. */
  const owner = (found: PersonalToken | undefined): CredentialUser => {
    if (!found) throw new AuthError('token_invalid', 'the personal access token is unknown, revoked or expired');
    if (found.provider !== undefined && !providers.has(found.provider))
      throw new AuthError('provider_not_allowed', 'the provider of this token is no longer configured');
    const auth: RequestAuth = { method: 'token', id: found.id, scopes: found.scopes };
    return { user: canonicalUser(found.user, ''), auth };
  };
  const throttle =
    config.failedLookups && lookupThrottle(config.failedLookups, stateLimiter(context.stateStore, context.clock));
  return {
    scheme: 'Bearer',
    recognises: (value) => value.startsWith(`${config.prefix}_`),
    authenticate(value, ctx) {
      const refusal = throttle?.refusal(ctx, context.clock());
      if (refusal) throw refusal;
      const found = verifier.verify(value);
      if (!isPromise(found)) return owner(found);
      // A promise went to the store: when it found nothing, the client's failed lookups count one more.
      return throttle ? found.then((t) => counted(throttle, ctx, t, context.clock())).then(owner) : found.then(owner);
    },
    refused: (what) =>
      context.error('token_not_allowed', `${what} does not take a personal access token: log in to manage an account`),
  };
}

/** A token the store answered, after counting the lookup as a failure of the request's client when it found none. */
async function counted(
  throttle: LookupThrottle,
  ctx: Context,
  found: PersonalToken | undefined,
  now: number,
): Promise<PersonalToken | undefined> {
  if (!found) await throttle.failed(ctx, now);
  return found;
}

/** The user a token acts as: the session's user without what belongs to one request (`aud`, `ip`). */
function ownerOf(user: User): User {
  const owner = { ...user };
  delete owner.aud;
  delete owner.ip;
  return owner;
}

function checkUserId(userId: unknown): string {
  if (typeof userId !== 'string' || userId === '') throw new TypeError('a user id must be a non-empty string');
  return userId;
}
