import type { FeatureCapabilities } from '../features/capabilities.js';
import type { Feature, FeatureModule } from '../features/contract.js';
import type { Logger } from '../logger.js';
import { SESSION_ENDER } from '../providers/oauth2/session-ender.js';
import { provide } from '../util/service-key.js';
import { adminOf } from './admin.js';
import type { SessionList } from './list.js';

/** What the session list asks of the instance (index.ts `needs`). */
export const SESSIONS_NEEDS = ['sessionTimes', 'endSessions', 'coreEvents', 'tokens'] as const;
export type SessionsCapabilities = Pick<FeatureCapabilities, (typeof SESSIONS_NEEDS)[number]>;

/**
 * The session list (docs/sessions.md) as a feature: `GET <authRoutePath>/sessions`, ending one session or
 * all the others. It keeps its record of every login through the session hooks (the login, the refresh,
 * the logout and the end of a user's sessions tell it); the admin API (admin.ts) is what the application
 * and `authctl` see of it.
 */
export function sessionsFeature(has: SessionsCapabilities): FeatureModule {
  return {
    name: 'sessions',
    prefix: '/sessions',
    async create(_options, context) {
      const [{ default: Router }, { mountSessionRoutes }, { sessionList }] = await Promise.all([
        import('@koa/router'),
        import('./routes.js'),
        import('./list.js'),
      ]);
      const { clock, logger } = context;
      // Ending a user's other sessions from the list's route or admin goes through the instance, as every end does.
      const config = { ...has.sessionTimes, endSessions: has.endSessions, clock, logger };
      const list = sessionList(context.stateStore, config, has.coreEvents);
      const router = new Router({ prefix: context.authRoutePath });
      const origin = new URL(context.url).origin;
      mountSessionRoutes(router, { list, session: (ctx) => context.session(ctx), tokens: has.tokens, origin });
      return {
        routes: router.routes() as never,
        openapi: async () => ({
          paths: (await import('./openapi.js')).sessionPaths(),
          tags: { sessions: "The user's sessions, one per login" },
        }),
        admin: adminOf(() => list),
        // The oidc kind ends the sessions a back-channel logout names through it, as `auth.sessions.revoke` does.
        provides: [
          provide(
            SESSION_ENDER,
            adminOf(() => list),
          ),
        ],
        ...listHooks(list, context.logger),
      };
    },
  };
}

/** The hooks that keep the list: a login is recorded, a refresh moves `lastSeen`, a logout or revocation drops. */
function listHooks(list: SessionList, logger: Logger): Feature {
  return {
    // begin() logs a store failure itself: the login goes on, listed at its first refresh.
    sessionStarted: (ctx, claims) => list.begin(ctx, claims),
    // The refresh stands whatever happens to the list: a store that failed now is retried at the next one.
    sessionRefreshed: (ctx, claims) =>
      list.seen(ctx, claims).catch((err: unknown) =>
        logger.warn(`session list not updated at refresh: ${(err as Error).message}`, {
          code: 'state_store_unavailable',
          userId: claims.user?.id,
        }),
      ),
    sessionEnded: (_ctx, claims) => list.forget(claims),
    sessionsRevoked: (userId, keptSid) => list.drop(userId, keptSid),
  };
}
