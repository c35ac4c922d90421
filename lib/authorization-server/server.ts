import type { Feature, FeatureContext } from '../features/contract.js';
import { defaultClaims } from '../providers/oauth2-server/claims.js';
import { IdTokenKeys } from '../providers/oauth2-server/id-token.js';
import { serverAdmin } from './admin.js';
import { clientDirectory, isRegisteredClientId } from './clients/index.js';
import { grantStore } from './grant-store.js';
import type { AuthorizationServerConfig } from './options.js';
import type { ServerCapabilities, ServerParts } from './parts.js';
import { serverRoutes, siteRoutes } from './routes.js';

/**
 * The server of one configuration, made when the feature is created at start-up: its grants and clients over the
 * service's state store, its places (the issuer is `url`), the routes that serve them, and its admin API
 * (`auth.authorizationServer`). A deleted or recovered account's grants end with it.
 */
export function startServer(
  config: AuthorizationServerConfig,
  has: ServerCapabilities,
  context: FeatureContext,
): Feature {
  const authBase = context.url + context.authRoutePath;
  const signer = has.signer!; // readAuthorizationServerOptions refuses the option without `signing`
  const grants = grantStore(context.stateStore, {
    codeTTLMs: config.codeTTLMs,
    refreshTTLMs: config.refreshTokenTTLMs,
    clock: context.clock,
    // Only the clients an operator can remove need their users indexed (client-index.ts): the registered ones.
    indexClient: (clientId) => isRegisteredClientId(clientId) && !config.clientConfig.clients.has(clientId),
    // Every family that ends, whoever ended it (a client, the user, an operator, a replayed code, a reused refresh
    // token): its access tokens carry it as `sid`, so the event reaches resource servers as a session's end does.
    onRevoked: (_ids, reason, families) => {
      for (const f of families)
        context.emit('grant_revoked', { clientId: f.clientId, userId: f.userId, sid: f.id, reason });
    },
  });
  const clients = clientDirectory(config.clientConfig, {
    state: context.stateStore,
    clock: context.clock,
    logger: context.logger,
    events: { emit: (type, data) => context.emit(type, data as Record<string, unknown>) },
  });
  const parts: ServerParts = {
    config,
    places: {
      issuer: context.url,
      authBase,
      registration: config.clientConfig.registration !== false,
      metadataDocuments: config.clientConfig.metadataDocuments !== false,
      alg: signer.alg,
    },
    clients,
    grants,
    state: context.stateStore,
    clock: context.clock,
    accessTokens: { signer, issuer: context.url, ttlMs: config.accessTokenTTLMs, clock: context.clock },
    // The `signing` key alone: the app publishes one key set, and an RSA key made here would differ per process.
    ids: new IdTokenKeys([signer]),
    claims: config.claims ?? defaultClaims(),
    session: (ctx) => has.cookieSession(ctx),
    fullSession: (ctx) => context.session(ctx),
    loginPage: config.loginPage ?? `${authBase}/oauth2/login`,
    keySet: () => has.publicKeys ?? { keys: [] },
    providers: () => has.providers.list().map((p) => ({ name: p.name, kind: p.kind })),
    emit: (type, fields, ctx) => context.emit(type, fields, ctx),
  };
  const revokeUser = async (userId: string) => void (await grants.revokeUser(userId));
  return {
    routes: serverRoutes(parts, `${context.authRoutePath}/oauth2`),
    siteRoutes: siteRoutes(parts),
    openapi: async () => (await import('./openapi.js')).serverOpenAPI(),
    admin: serverAdmin(grants, clients),
    userDeleted: revokeUser,
    credentialsRevoked: revokeUser,
  };
}
