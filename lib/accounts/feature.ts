import type { Context } from 'koa';
import type { CredentialsRevokedReason, FeatureModule } from '../features/contract.js';
import { safeRedirect } from '../http/redirect.js';
import type { Claims } from '../session/claims.js';
import type { SessionOf } from '../session/fresh.js';
import type { Logger } from '../logger.js';
import type { Provider } from '../providers/core/provider.js';
import type { ConnectionShare } from '../util/connections.js';
import { MissingPackageError } from '../util/optional.js';
import { checkStoreOpens, type StorePolicy } from '../util/store-policy.js';
import { ACCOUNT_ERRORS } from './errors.js';
import { ACCOUNT_EVENTS } from './events.js';
import type { AccountsConfig } from './options.js';

/**
 * The instance's parts the accounts are made of, as the feature table hands them over: the store policy and
 * connections (to open the store), the session revocation, and what forgets a deleted account's user.
 */
export interface AccountsParts {
  clock: () => number;
  logger: Logger;
  url: string;
  allowedRedirects: string[];
  secureCookies: boolean;
  core: {
    connections: ConnectionShare;
    stores: StorePolicy;
    providers: { list(): Provider[]; get(name: string): Provider | undefined };
    hooks: {
      userDeleted(userId: string): Promise<void>;
      credentialsRevoked(userId: string, reason: CredentialsRevokedReason): Promise<void>;
    };
  };
  /** The token the request presents, checked by signature only (a link's callback: is it the same session?). */
  tokens: { presented(ctx: Context): Promise<Claims | undefined> };
  login: {
    endSessions(userId: string, keep: string | undefined): Promise<void>;
    factorChanged(userId: string, keep: string | undefined): Promise<void>;
    navigationSession(ctx: Context): Promise<SessionOf>;
  };
}

/**
 * The accounts (docs/accounts.md) as a feature: it opens the account store at start-up, offers it to the
 * `password` kind (`provides`), answers `auth.accounts` (`admin`), declares the account events and error
 * codes, and closes the store. Each password provider serves its accounts' routes under its name; the feature's
 * own are the links' (`/auth/links`), and it says who every login is (`identify`: account linking, links/). Its
 * code loads only when `accounts` is set.
 */
export function accountsFeature(config: AccountsConfig, p: AccountsParts): FeatureModule {
  return {
    name: 'accounts',
    prefix: '/links',
    errors: ACCOUNT_ERRORS,
    events: ACCOUNT_EVENTS,
    async create(_options, context) {
      const [{ openAccountStore }, { accountsService }, { accountLinks }] = await Promise.all([
        import('./open.js'),
        import('./service.js'),
        import('./links/service.js'),
      ]);
      const opening = openAccountStore(config.store, { connections: p.core.connections });
      if (typeof config.store === 'string') {
        const where = {
          option: 'accounts.store',
          uri: config.store,
          code: 'accounts_store_unreachable',
          local: /^(lmdb|memory):/.test(config.store),
        };
        // Accounts cannot wait for a store that comes up later: without it nobody logs in or signs up.
        await checkStoreOpens(opening, where, { ...p.core.stores, startWithStoresDown: false }, isConfigError);
      }
      const store = await opening;
      const service = accountsService(store, {
        clock: p.clock,
        endSessions: (userId, keep) => p.login.endSessions(userId, keep),
        forgetUser: (userId) => forgetUser(p, userId),
        resetRevokes: config.resetRevokes,
        revokeCredentials: (userId) => p.core.hooks.credentialsRevoked(userId, 'password_reset'),
        // The links are made below, with the service: asked only once a route runs.
        linksOf: (userId) => links.admin.links(userId),
        emit: (type, fields, ctx) => context.emit(type, fields, ctx),
        // Asked at the first login or admin call, after start-up has made the links below.
        recordedPrefix: (first) => links.recordedPrefix(first),
      });
      const links = accountLinks({
        config,
        context,
        accounts: service,
        connections: p.core.connections,
        stores: p.core.stores,
        secureCookies: p.secureCookies,
        url: p.url,
        providers: p.core.providers,
        navigationSession: (ctx) => p.login.navigationSession(ctx),
        presentedSid: async (ctx) => (await p.tokens.presented(ctx))?.sid,
        factorChanged: (userId, keep) => p.login.factorChanged(userId, keep),
        safeRedirect: (from) => safeRedirect(from, p.url, p.allowedRedirects),
      });
      return {
        provides: service,
        admin: { ...service.admin, ...links.admin },
        routes: links.routes,
        openapi: async () => (await import('./links/openapi.js')).linksOpenAPI(),
        loginStarts: links.login.loginStarts,
        identify: links.login.identify,
        sessionStarted: links.login.sessionStarted,
        // A deleted account's identities are free again: each logs in as an account of its own next time.
        userDeleted: async (userId) => void (await links.identities.unlinkAll(userId)),
        providersReady: (names) => checkTrustEmail(config.trustEmail, names),
        start: () => links.start(),
        // A store the application passed in is the application's to close.
        close: async () => {
          await links.close();
          if (typeof config.store === 'string') await store.close();
        },
      };
    },
  };
}

/** A deleted account's user: every feature (its second factor) and every provider (its passkeys) forgets it. */
async function forgetUser(p: AccountsParts, userId: string): Promise<void> {
  await p.core.hooks.userDeleted(userId);
  for (const provider of p.core.providers.list()) {
    try {
      await provider.forgetUser?.(userId);
    } catch (err) {
      p.logger.warn(`${provider.name}: forgetting a deleted account's user failed: ${(err as Error)?.message}`, {
        code: 'forget_user_failed',
        provider: provider.name,
        userId,
      });
    }
  }
}

/** `accounts.trustEmail` names configured providers only: a misspelt one would trust nothing, silently. */
function checkTrustEmail(trustEmail: readonly string[], names: readonly string[]): void {
  for (const name of trustEmail) {
    if (!names.includes(name))
      throw new TypeError(
        `authKoa: accounts.trustEmail names "${name}", which is not a configured provider (${names.join(', ')})`,
      );
  }
}

/**
 * An error of the URI itself (a TypeError naming the option) or of the install (its backend's package missing), not
 * of a store that cannot be reached.
 */
function isConfigError(err: unknown): boolean {
  return err instanceof TypeError || err instanceof MissingPackageError;
}
