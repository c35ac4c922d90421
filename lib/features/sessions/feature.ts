import type { Context } from 'koa';
import type { FeatureModule } from '../contract.js';
import type { SessionOf } from '../../session/fresh.js';
import type { SessionRecord, SessionRegistry } from '../../session/devices.js';
import type { TokenService } from '../../session/token-service.js';

/** What the session list's routes work with: the instance's registry, the request's full login, the tokens. */
export interface SessionsFeatureParts {
  authRoutePath: string;
  origin: string;
  registry: SessionRegistry;
  session: (ctx: Context) => Promise<SessionOf>;
  tokens: TokenService;
}

/** What `auth.features.get('sessions')` and `auth.sessions` offer. */
export interface SessionsAdmin {
  list(userId: string): Promise<SessionRecord[]>;
  /** False when the user has no session `sid`. */
  revoke(userId: string, sid: string): Promise<boolean>;
}

/**
 * The session list (docs/sessions.md) as a feature: `GET <authRoutePath>/sessions`, ending one session or
 * all the others. Its record of every login is kept by the registry, which the login, the refresh and the
 * logout write to; the feature is what the user and the application see of it.
 */
export function sessionsFeature(p: SessionsFeatureParts): FeatureModule {
  return {
    name: 'sessions',
    prefix: '/sessions',
    async create() {
      const [{ default: Router }, { mountDeviceRoutes }] = await Promise.all([
        import('@koa/router'),
        import('../../session/device-routes.js'),
      ]);
      const router = new Router({ prefix: p.authRoutePath });
      mountDeviceRoutes(router, p);
      const admin: SessionsAdmin = {
        list: (userId) => p.registry.list(userId),
        revoke: (userId, sid) => p.registry.revoke(userId, sid),
      };
      return {
        routes: router.routes() as never,
        openapi: async () => ({ paths: (await import('./openapi.js')).sessionPaths() }),
        admin,
      };
    },
  };
}
