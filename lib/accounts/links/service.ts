import type { Context } from 'koa';
import type { FeatureContext } from '../../features/contract.js';
import { providerState } from '../../state/shared.js';
import type { StorePolicy } from '../../util/store-policy.js';
import type { ConnectionShare } from '../../util/connections.js';
import type { SessionOf } from '../../session/fresh.js';
import type { AccountsConfig } from '../options.js';
import type { AccountsService } from '../service.js';
import { linkCookies } from './cookies.js';
import { stateIdentityStore, type IdentityStore } from './identities.js';
import { linkLogin, type LinkLogin } from './login.js';
import { linksManager, type LinksAdmin, type WaysInProvider } from './manage.js';
import { stateLinkIntents, statePendingLinks } from './offers.js';
import { linkRoutes } from './routes.js';
import { recordedPrefix } from '../user-ids.js';

/**
 * Account linking as the accounts feature holds it (docs/accounts.md#linking): the identity map opened in its store
 * (`accounts.links`), the login side (login.ts), the owner's routes and the operator's calls (manage.ts).
 */

/** What linking is made of besides the accounts: the instance's parts it reads. */
export interface LinksParts {
  config: AccountsConfig;
  context: FeatureContext;
  accounts: AccountsService;
  connections: ConnectionShare;
  stores: StorePolicy;
  secureCookies: boolean;
  url: string;
  providers: { get(name: string): WaysInProvider | undefined; list(): readonly WaysInProvider[] };
  navigationSession: (ctx: Context) => Promise<SessionOf>;
  presentedSid: (ctx: Context) => Promise<string | undefined>;
  /** Ends the user's other sessions after a change to how they log in (endOtherSessionsOnFactorChange). */
  factorChanged: (userId: string, keep: string | undefined) => Promise<void>;
  safeRedirect: (from: string | undefined) => string | undefined;
}

export interface AccountLinks {
  login: LinkLogin;
  routes: ReturnType<typeof linkRoutes>;
  admin: LinksAdmin;
  identities: IdentityStore;
  /** The accounts' user-id prefix kept in the links' store (user-ids.ts). */
  recordedPrefix(first: string | undefined): Promise<string | undefined>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export function accountLinks(p: LinksParts): AccountLinks {
  const { context } = p;
  const held = providerState(p.config.links, context.stateStore, {
    clock: context.clock,
    option: 'accounts.links',
    connections: p.connections,
    // Without the map nobody can log in: a links store that is down stops start-up, as the accounts' own does.
    policy: { ...p.stores, startWithStoresDown: false },
  });
  const identities = stateIdentityStore(held.store);
  const emit = (type: string, fields: Record<string, unknown>, ctx?: Context) => context.emit(type, fields, ctx);
  const accountUserId = async (accountId: string) => {
    const prefix = await p.accounts.userIdPrefix();
    return prefix === undefined ? undefined : `${prefix}_${accountId}`;
  };
  const login = linkLogin({
    identities,
    intents: stateLinkIntents(held.store, context.clock),
    offers: statePendingLinks(held.store, context.clock),
    cookies: linkCookies(context.authRoutePath, p.secureCookies),
    accounts: p.accounts.store,
    accountUserId,
    trustEmail: p.config.trustEmail,
    clock: context.clock,
    navigationSession: p.navigationSession,
    presentedSid: p.presentedSid,
    linked: p.factorChanged,
    safeRedirect: p.safeRedirect,
    url: p.url,
    emit,
  });
  const manager = linksManager({
    identities,
    provider: (name) => p.providers.get(name),
    providers: () => p.providers.list(),
    clock: context.clock,
  });
  const unlinked = async (userId: string, provider: string, keep: string | undefined, ctx?: Context) => {
    emit('identity_unlinked', { userId, provider, by: ctx ? 'user' : 'admin' }, ctx);
    await p.factorChanged(userId, keep);
  };
  const admin: LinksAdmin = {
    links: (userId) => manager.list(userId),
    async link(userId, identity) {
      if (await manager.link(userId, identity))
        emit('identity_linked', { userId, provider: identity.provider, by: 'admin' });
    },
    async unlink(userId, which) {
      const gone = await manager.unlink(userId, which);
      await unlinked(userId, gone.provider, undefined);
    },
  };
  return {
    login,
    routes: linkRoutes(manager, context, unlinked),
    admin,
    identities,
    recordedPrefix: (first) => recordedPrefix(held.store, first),
    start: () => held.start(),
    close: () => held.close(),
  };
}
