import { builtIn } from '../features/built-in.js';
import { ACCOUNT_EVENTS } from './events.js';
import { ACCOUNTS_NEEDS, accountsFeature } from './feature.js';
import { readAccountsOptions, type AccountsConfig } from './options.js';

/**
 * The accounts, with the `accounts` option: the feature table's row (core/features.ts). It brings the `password`
 * provider kind, whose entries sign users up and in with the accounts' store.
 */
export const accounts = builtIn({
  name: 'accounts',
  option: 'accounts',
  read: (input, context): AccountsConfig | undefined => readAccountsOptions(input, context),
  events: ACCOUNT_EVENTS,
  shortcut: ['create', 'find', 'setPassword', 'delete', 'list', 'resetLink', 'links', 'link', 'unlink'],
  kinds: { password: () => import('./password/provider.js').then((m) => m.passwordProvider) },
  needs: ACCOUNTS_NEEDS,
  module: (config: AccountsConfig, has) => accountsFeature(config, has),
});
