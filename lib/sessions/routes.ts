/**
 * The session list routes under the auth path: a user's own sessions (one per login, per device), and
 * ending one of them or all the others. JSON in and out; POST and DELETE refused from another site. Only a
 * full login's session reaches them (Authenticator.loginSession): never basic auth.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import { crossSite } from '../http/origin.js';
import { writeJSON } from '../http/respond.js';
import type { SessionOf } from '../session/fresh.js';
import type { TokenService } from '../session/token-service.js';
import type { SessionList } from './list.js';

/** What the routes work with. */
export interface SessionRouteParts {
  list: SessionList;
  /** The request's full-login session, with its claims; 401 without one, 403 `full_login_required` for basic auth. */
  session: (ctx: Context) => Promise<SessionOf>;
  tokens: TokenService;
  /** The origin of `url`: a POST or DELETE from elsewhere is refused. */
  origin: string;
}

/** The answer's shape of one session. */
export interface SessionView {
  sid: string;
  /** The session of this very request. */
  current: boolean;
  provider: string;
  device: string;
  /** ISO 8601. */
  created: string;
  lastSeen: string;
}

/** Adds `GET /sessions`, `DELETE /sessions/<sid>` and `POST /sessions/revoke-others` to the auth router. */
export function mountSessionRoutes(router: Router, p: SessionRouteParts): void {
  const guarded =
    (method: 'GET' | 'POST' | 'DELETE', handle: (ctx: Context, me: SessionOf) => Promise<void>) =>
    async (ctx: Context) => {
      if (ctx.method !== method && !(method === 'GET' && ctx.method === 'HEAD'))
        throw new AuthError('method_not_allowed', `${method} only`);
      if (method !== 'GET' && crossSite(ctx, p.origin))
        throw new AuthError('origin_mismatch', 'the request must come from this site');
      ctx.set('Cache-Control', 'no-store');
      await handle(ctx, await p.session(ctx));
    };
  router.all(
    '/sessions',
    guarded('GET', async (ctx, me) => {
      const mine = await p.list.list(me.user.id);
      const view = (r: (typeof mine)[number]): SessionView => ({
        sid: r.sid,
        current: r.sid === me.claims.sid,
        provider: r.provider,
        device: r.device,
        created: iso(r.created),
        lastSeen: iso(r.lastSeen),
      });
      writeJSON(ctx, 200, mine.map(view));
    }),
  );
  router.all(
    '/sessions/revoke-others',
    guarded('POST', async (ctx, me) => {
      const current = sidOf(me);
      await p.list.revokeAll(me.user.id, current);
      writeJSON(ctx, 200, { ended: 'others', current });
    }),
  );
  router.all(
    '/sessions/:sid',
    guarded('DELETE', async (ctx, me) => {
      const sid = (ctx.params as { sid: string }).sid; // routed as `/sessions/:sid`
      // Another user's session is answered like a missing one: sids are not a way to probe accounts.
      if (sid.length > 128 || !(await p.list.revoke(me.user.id, sid)))
        throw new AuthError('not_found', 'no such session');
      // Ending this very session is a logout of this browser too.
      if (sid === me.claims.sid) p.tokens.reset(ctx);
      ctx.status = 204;
    }),
  );
}

/** The sid of the request's session: a full login always has one (full-login.ts). */
function sidOf(me: SessionOf): string {
  return me.claims.sid!;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
