import { serviceKey } from '../util/service-key.js';
import type { AccountsService } from './service.js';

/**
 * The accounts' service as the `password` kind asks for it (`featureService(ACCOUNTS_SERVICE)`): a module of its own,
 * so the feature names its offer without loading the service's code before the option is set.
 */
export const ACCOUNTS_SERVICE = serviceKey<AccountsService>('the accounts');
