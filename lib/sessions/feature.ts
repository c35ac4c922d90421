import type { Context } from 'koa';
import type { EventSink } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { SessionOf } from '../session/fresh.js';
import type { TokenService } from '../session/token-service.js';
import type { Feature, FeatureModule } from '../features/contract.js';
import { adminOf } from './admin.js';
import type { SessionList, SessionListConfig } from './list.js';

/**
 * What the session list is made of: the options it reads, the request's full login and the tokens for its
 * routes, and the instance's events (ending a session tells `session_revoked`, one of authkoa's own).
 */
export interface SessionsFeatureParts extends Omit<SessionListConfig, 'clock' | 'logger'> {
  authRoutePath: string;
  origin: string;
  session: (ctx: Context) => Promise<SessionOf>;
  tokens: TokenService;
  events: EventSink;
}

/**
 * The session list (docs/sessions.md) as a feature: `GET <authRoutePath>/sessions`, ending one session or
 * all the others. It keeps its record of every login through the session hooks (the login, the refresh,
 * the logout and the end of a user's sessions tell it); the admin API (admin.ts) is what the application
 * and `authctl` see of it.
 */
export function sessionsFeature(p: SessionsFeatureParts): FeatureModule {
  return {
    name: 'sessions',
    prefix: '/sessions',
    async create(_options, context) {
      const [{ default: Router }, { mountSessionRoutes }, { sessionList }] = await Promise.all([
        import('@koa/router'),
        import('./routes.js'),
        import('./list.js'),
      ]);
      const list = sessionList(context.stateStore, { ...p, clock: context.clock, logger: context.logger }, p.events);
      const router = new Router({ prefix: p.authRoutePath });
      mountSessionRoutes(router, { ...p, list });
      return {
        routes: router.routes() as never,
        openapi: async () => ({
          paths: (await import('./openapi.js')).sessionPaths(),
          tags: { sessions: "The user's sessions, one per login" },
        }),
        admin: adminOf(() => list),
        // The oidc kind ends the sessions a back-channel logout names through it, as `auth.sessions.revoke` does.
        provides: adminOf(() => list),
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
