import type { FeatureModule } from '../features/contract.js';
import type { Logger } from '../logger.js';
import type { Provider } from '../providers/core/provider.js';
import type { ConnectionShare } from '../util/connections.js';
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
  core: {
    connections: ConnectionShare;
    stores: StorePolicy;
    providers: { list(): Provider[] };
    hooks: { userDeleted(userId: string): Promise<void> };
  };
  login: { endSessions(userId: string, keep: string | undefined): Promise<void> };
}

/**
 * The accounts (docs/accounts.md) as a feature: it opens the account store at start-up, offers it to the
 * `password` kind (`provides`), answers `auth.accounts` (`admin`), declares the account events and error
 * codes, and closes the store. It has no routes of its own: each password provider serves its accounts'
 * routes under its name. Its code loads only when `accounts` is set.
 */
export function accountsFeature(config: AccountsConfig, p: AccountsParts): FeatureModule {
  return {
    name: 'accounts',
    errors: ACCOUNT_ERRORS,
    events: ACCOUNT_EVENTS,
    async create(_options, context) {
      const [{ openAccountStore }, { accountsService }] = await Promise.all([
        import('./open.js'),
        import('./service.js'),
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
        emit: (type, fields, ctx) => context.emit(type, fields, ctx),
      });
      return {
        provides: service,
        admin: service.admin,
        // A store the application passed in is the application's to close.
        close: () => (typeof config.store === 'string' ? store.close() : Promise.resolve()),
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

/** An error of the URI itself (a TypeError naming the option), not of a store that cannot be reached. */
function isConfigError(err: unknown): boolean {
  return err instanceof TypeError;
}
