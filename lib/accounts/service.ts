import type { Context } from 'koa';
import { clientOf } from '../events/bus.js';
import { AccountError, accountsAdmin, lookUpAccount, type AccountsAdmin, type NewAccount } from './admin.js';
import { accountError } from './errors.js';
import type { AccountEventType } from './events.js';
import type { ScryptParams } from './password-hash.js';
import type { PasswordPolicy } from './password-policy.js';
import type { AccountStore, StoredAccount } from './store.js';
import type { LinksAdmin, LinkView } from './links/manage.js';
import type { ResetRevocable } from './options.js';
import { accountIdIn } from './user-ids.js';

/**
 * What the accounts feature offers the `password` kind (Feature.provides) and the application (`auth.accounts`):
 * the open store, the session user id of an account under each password provider, and what follows a change
 * to an account: its sessions ended, its second factors and passkeys forgotten, its events told.
 */

/** A password provider, as it attaches itself to the accounts: what the admin API needs from it. */
export interface PasswordKindHandle {
  readonly name: string;
  readonly policy: PasswordPolicy;
  readonly scrypt: ScryptParams;
  /** A single-use reset link for the account, as the provider mails it. */
  resetLink(account: StoredAccount): Promise<string>;
}

/** What the feature is made of besides the store: the instance's session and cleanup parts. */
export interface AccountsServiceParts {
  clock: () => number;
  /** Ends every session of the user but the session `keep` (auth.revokeSessions). */
  endSessions(userId: string, keep: string | undefined): Promise<void>;
  /** Each feature and provider forgets what it keeps for the user (Feature.userDeleted, Provider.forgetUser). */
  forgetUser(userId: string): Promise<void>;
  /** What `accounts.resetRevokes` says a reset revokes besides the password. */
  resetRevokes: readonly ResetRevocable[];
  /** Each feature revokes what acts as the user without a session (Feature.credentialsRevoked: personal tokens). */
  revokeCredentials(userId: string): Promise<void>;
  /** The identities linked to the user (links/manage.ts), the account's own among them. */
  linksOf(userId: string): Promise<LinkView[]>;
  /** Tells one of the accounts' events (FeatureContext.emit). */
  emit(type: AccountEventType, fields: Record<string, unknown>, ctx?: Context): void;
  /** The accounts' user-id prefix as recorded in the links' store, `first` recorded when none is (user-ids.ts). */
  recordedPrefix(first: string | undefined): Promise<string | undefined>;
}

/** What the `password` kind reaches through `featureService(ACCOUNTS_SERVICE)`. */
export interface AccountsService {
  readonly store: AccountStore;
  readonly clock: () => number;
  /** Called by each password provider as it is created. */
  attach(kind: PasswordKindHandle): void;
  /** The names of the password providers, in the order they attached. */
  passwordProviders(): string[];
  /**
   * The account's one session user id, whichever password provider or linked identity logs it in:
   * `<prefix>_<account id>` (user-ids.ts). Rejects with a TypeError when no password provider ever ran.
   */
  userIdOf(accountId: string): Promise<string>;
  /** The `<prefix>` of those ids; undefined while no password provider has run with the links' store. */
  userIdPrefix(): Promise<string | undefined>;
  /** The account id in a session user id of the accounts; undefined for any other user. */
  accountIdOf(userId: string): Promise<string | undefined>;
  /** Ends the account's sessions (those of the ids earlier versions gave it under each provider too), but `keep`. */
  endSessions(accountId: string, keep?: string): Promise<void>;
  /** After a deletion: features and providers forget the account's users. */
  forget(accountId: string): Promise<void>;
  /**
   * After a reset (the account recovered): what `accounts.resetRevokes` names ends, its sessions and the personal
   * tokens of its users, so whoever held the account before keeps no way in through it.
   */
  recovered(accountId: string): Promise<void>;
  /** The identities linked to the account, as its owner lists them (`GET /auth/links`). */
  linkedIdentities(accountId: string): Promise<LinkView[]>;
  emit(
    type: AccountEventType,
    fields: { accountId: string; provider?: string; [k: string]: unknown },
    ctx?: Context,
  ): void;
  readonly admin: AccountsCoreAdmin;
}

/** The accounts' own admin calls; the feature adds the links' (LinksAdmin) to make `auth.accounts`. */
export type AccountsCoreAdmin = Omit<AccountsAdminAPI, keyof LinksAdmin>;

/** `auth.accounts`: the operator's calls (admin.ts) with what the running service adds, its links included. */
export interface AccountsAdminAPI extends AccountsAdmin, LinksAdmin {
  /**
   * A single-use reset link for the account (by address or id), of the password provider `provider` (default
   * the first): for an operator to hand over when mail does not arrive.
   */
  resetLink(emailOrId: string, provider?: string): Promise<string>;
}

export function accountsService(store: AccountStore, parts: AccountsServiceParts): AccountsService {
  const kinds = new Map<string, PasswordKindHandle>();
  let prefix: Promise<string | undefined> | undefined;
  const userIdPrefix = async (): Promise<string | undefined> => {
    const asked = (prefix ??= parts.recordedPrefix([...kinds.keys()][0]));
    try {
      const held = await asked;
      // An answer from before any password provider attached is asked again next time.
      if (held === undefined) prefix = undefined;
      return held;
    } catch (err) {
      prefix = undefined; // a store that failed to answer is asked again next time
      throw err;
    }
  };
  const idPrefix = async (): Promise<string> => {
    const held = await userIdPrefix();
    if (held === undefined)
      throw new TypeError('accounts: no password provider is configured, so an account has no user id yet');
    return held;
  };
  const userIdOf = async (accountId: string) => `${await idPrefix()}_${accountId}`;
  // Earlier versions gave an account one id per password provider: their sessions and records are ended too.
  const userIds = async (accountId: string) => [
    ...new Set([await userIdOf(accountId), ...[...kinds.keys()].map((k) => `${k}_${accountId}`)]),
  ];
  const service: Omit<AccountsService, 'admin'> = {
    store,
    clock: parts.clock,
    attach(kind) {
      kinds.set(kind.name, kind);
    },
    passwordProviders: () => [...kinds.keys()],
    userIdPrefix,
    userIdOf,
    async accountIdOf(userId) {
      return accountIdIn(userId, await idPrefix());
    },
    async endSessions(accountId, keep) {
      for (const id of await userIds(accountId)) await parts.endSessions(id, keep);
    },
    async forget(accountId) {
      for (const id of await userIds(accountId)) await parts.forgetUser(id);
    },
    async recovered(accountId) {
      if (parts.resetRevokes.includes('sessions')) await service.endSessions(accountId);
      if (parts.resetRevokes.includes('tokens'))
        for (const id of await userIds(accountId)) await parts.revokeCredentials(id);
    },
    async linkedIdentities(accountId) {
      const all: LinkView[] = [];
      for (const id of await userIds(accountId)) all.push(...(await parts.linksOf(id)));
      return all;
    },
    emit(type, fields, ctx) {
      parts.emit(type, ctx ? { ...fields, ...clientOf(ctx) } : fields, ctx);
    },
  };
  return { ...service, admin: adminAPI(service, () => [...kinds.values()]) };
}

/** The admin calls over the store, under the first password provider's policy and scrypt parameters. */
function adminAPI(service: Omit<AccountsService, 'admin'>, kinds: () => PasswordKindHandle[]): AccountsCoreAdmin {
  // A user id is answered and taken once a password provider has given the accounts their prefix.
  const prefix = () => service.userIdPrefix();
  const base = () => {
    const first = kinds()[0];
    return accountsAdmin(service.store, {
      policy: first?.policy,
      scrypt: first?.scrypt,
      clock: service.clock,
      userIdPrefix: prefix,
    });
  };
  return {
    async create(input: NewAccount) {
      const account = await base().create(input);
      service.emit('signup', { accountId: account.id, by: 'admin' });
      return account;
    },
    find: (who) => base().find(who),
    async setPassword(who, password) {
      const account = await base().setPassword(who, password);
      // An operator sets a password after a compromise, or for an owner locked out: old sessions go.
      await service.endSessions(account.id);
      service.emit('password_changed', { accountId: account.id, by: 'admin' });
      return account;
    },
    async delete(who) {
      const account = await base().find(who);
      await base().delete(who);
      if (!account) return true; // unreachable: delete() refused an unknown account
      await service.endSessions(account.id);
      await service.forget(account.id);
      service.emit('account_deleted', { accountId: account.id, by: 'admin' });
      return true;
    },
    list: (page) => base().list(page),
    async resetLink(who, provider) {
      const all = kinds();
      const kind = provider === undefined ? all[0] : all.find((k) => k.name === provider);
      if (!kind)
        throw new TypeError(
          provider === undefined
            ? 'resetLink(): no password provider is configured'
            : `resetLink(): ${provider} is not a password provider`,
        );
      if (typeof who !== 'string' || who.trim() === '')
        throw new TypeError('resetLink(): the account must be its address, its id (acct_…) or its user id');
      const account = await lookUpAccount(service.store, who.trim(), prefix);
      if (!account) throw new AccountError('not_found', `no account ${who.trim()}`);
      return kind.resetLink(account);
    },
  };
}

/** An AccountError of the admin calls as the HTTP answer a route gives for it. */
export function answerOf(err: unknown): unknown {
  if (!(err instanceof AccountError)) return err;
  switch (err.code) {
    case 'invalid_email':
      return accountError('invalid_email', 'email must be one plain address');
    case 'weak_password':
      return accountError('weak_password', err.message);
    case 'email_taken':
      return accountError('email_taken', 'that address belongs to another account');
    case 'not_found':
      return accountError('account_not_found', 'no such account');
    default:
      return accountError('account_changed', 'the account changed meanwhile: try again');
  }
}
