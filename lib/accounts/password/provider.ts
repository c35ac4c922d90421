import type { Provider, ProviderModule, ProviderOptions } from '../../providers/core/contract.js';
import { passwordLogin } from '../password-login.js';
import { ACCOUNTS_SERVICE } from '../service-key.js';
import { afterAnswer } from './after-answer.js';
import { confirmRoute } from './confirm.js';
import { passwordRouteDocs } from './docs.js';
import { loginRoute } from './login.js';
import { changeEmailRoute, changePasswordRoute, deleteAccountRoute } from './manage.js';
import { parsePasswordOptions, PASSWORD_OPTIONS, type PasswordProviderOptions } from './options.js';
import { PASSWORD_NEEDS, type PasswordDeps, type PasswordNeed, type PasswordParts } from './parts.js';
import { resetConfirmRoute, resetLink, resetRoute } from './reset.js';
import { signupRoute } from './signup.js';

/**
 * The `password` kind (docs/accounts.md): sign-up with a confirmed address, login, reset, and the owner's
 * changes, over the accounts of the `accounts` option. JSON routes under `/auth/<name>/`, and the pages its
 * mailed links open.
 */
export const passwordProvider: ProviderModule<ProviderOptions, PasswordNeed> = {
  kind: 'password',
  needs: PASSWORD_NEEDS,
  options: PASSWORD_OPTIONS,
  async create(input, deps: PasswordDeps): Promise<Provider> {
    const config = parsePasswordOptions(input as unknown as PasswordProviderOptions);
    const accounts = deps.featureService(ACCOUNTS_SERVICE);
    if (!accounts)
      throw new TypeError("needs the accounts option: authKoa({ accounts: { store: 'lmdb://./var/accounts' } })");
    await config.sender.ready?.();
    const check = passwordLogin(accounts.store, {
      scrypt: config.scrypt,
      clock: deps.clock,
      onRehashFailed: (err) =>
        deps.logger.warn(`password ${config.name}: a hash could not be updated: ${(err as Error)?.message}`, {
          provider: config.name,
          code: 'rehash_failed',
        }),
    });
    const p: PasswordParts = { config, deps, accounts, check, later: afterAnswer(deps.logger, config.name) };
    accounts.attach({
      name: config.name,
      policy: config.policy,
      scrypt: config.scrypt,
      resetLink: (account) => resetLink(p, account),
    });
    return {
      name: config.name,
      kind: 'password',
      login: loginRoute(p),
      logout(ctx) {
        deps.endSession(ctx);
        return Promise.resolve();
      },
      actions: {
        signup: signupRoute(p),
        confirm: confirmRoute(p),
        reset: resetRoute(p),
        'reset/confirm': resetConfirmRoute(p),
        password: changePasswordRoute(p),
        email: changeEmailRoute(p),
        account: deleteAccountRoute(p),
      },
      close: async () => {
        await p.later.settled(); // the messages still being sent go out before the sender closes
        await config.sender.close?.();
      },
      // One way in for an account of this provider that has a password (account linking keeps the last one).
      async waysIn(userId) {
        const id = await accounts.accountIdOf(userId);
        return id !== undefined && (await accounts.store.get(id))?.passwordHash !== undefined ? 1 : 0;
      },
      routeDocs: passwordRouteDocs(config.signup),
    };
  },
};
