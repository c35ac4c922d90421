import type { FeatureCapabilities } from '../features/capabilities.js';
import type { FeatureModule } from '../features/contract.js';
import type { Logger } from '../logger.js';
import { MissingPackageError } from '../util/optional.js';
import { provide } from '../util/service-key.js';
import { ACCOUNTS_SERVICE } from './service-key.js';
import { checkStoreOpens } from '../util/store-policy.js';
import { ACCOUNT_ERRORS } from './errors.js';
import { ACCOUNT_EVENTS } from './events.js';
import type { AccountsConfig } from './options.js';

/** What the accounts ask of the instance (index.ts `needs`). */
export const ACCOUNTS_NEEDS = [
  ...['stores', 'providers', 'featureHooks', 'presentedToken', 'endSessions', 'factorChanged'],
  ...['navigationSession', 'safeRedirect', 'cookies'],
] as const satisfies ReadonlyArray<keyof FeatureCapabilities>;
export type AccountsCapabilities = Pick<FeatureCapabilities, (typeof ACCOUNTS_NEEDS)[number]>;

/**
 * The accounts (docs/accounts.md) as a feature: it opens the account store at start-up, offers it to the
 * `password` kind (`provides`), answers `auth.accounts` (`admin`), declares the account events and error
 * codes, and closes the store. Each password provider serves its accounts' routes under its name; the feature's
 * own are the links' (`/auth/links`), and it says who every login is (`identify`: account linking, links/). Its
 * code loads only when `accounts` is set.
 */
export function accountsFeature(config: AccountsConfig, has: AccountsCapabilities): FeatureModule {
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
      const opening = openAccountStore(config.store, { connections: has.stores.connections });
      if (typeof config.store === 'string') {
        const where = {
          option: 'accounts.store',
          uri: config.store,
          code: 'accounts_store_unreachable',
          local: /^(lmdb|memory):/.test(config.store),
        };
        // Accounts cannot wait for a store that comes up later: without it nobody logs in or signs up.
        await checkStoreOpens(opening, where, { ...has.stores.policy, startWithStoresDown: false }, isConfigError);
      }
      const store = await opening;
      const service = accountsService(store, {
        clock: context.clock,
        endSessions: (userId, keep) => has.endSessions(userId, keep),
        forgetUser: (userId) => forgetUser(has, context.logger, userId),
        resetRevokes: config.resetRevokes,
        revokeCredentials: (userId) => has.featureHooks.credentialsRevoked(userId, 'password_reset'),
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
        connections: has.stores.connections,
        stores: has.stores.policy,
        secureCookies: has.cookies.secure,
        url: context.url,
        providers: has.providers,
        navigationSession: (ctx) => has.navigationSession(ctx),
        presentedSid: async (ctx) => (await has.presentedToken(ctx))?.sid,
        factorChanged: (userId, keep) => has.factorChanged(userId, keep),
        safeRedirect: has.safeRedirect,
      });
      return {
        provides: [provide(ACCOUNTS_SERVICE, service)],
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
async function forgetUser(has: AccountsCapabilities, logger: Logger, userId: string): Promise<void> {
  await has.featureHooks.userDeleted(userId);
  for (const provider of has.providers.list()) {
    try {
      await provider.forgetUser?.(userId);
    } catch (err) {
      logger.warn(`${provider.name}: forgetting a deleted account's user failed: ${(err as Error)?.message}`, {
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
