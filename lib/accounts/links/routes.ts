import type { Context, Middleware, Next } from 'koa';
import { AuthError } from '../../errors.js';
import { accountError } from '../errors.js';
import type { FeatureContext } from '../../features/contract.js';
import { requireFresh } from '../../session/fresh.js';
import { LINK_FRESH_MS } from './login.js';
import type { LinksManager } from './manage.js';

/**
 * `GET /auth/links` (the session's account's identities) and `DELETE /auth/links/<identity>` (one unlinked, by its
 * id or its provider, by a fresh login). Only a full login's session reaches them (FeatureContext.session): never
 * basic auth, never a personal token. A DELETE from another site is refused before this (FeatureSet.mount). Linking
 * itself starts at the provider's login (`/auth/<provider>/login?link=1`).
 */
export function linkRoutes(
  links: LinksManager,
  context: FeatureContext,
  unlinked: (userId: string, provider: string, keep: string | undefined, ctx: Context) => Promise<void>,
): Middleware {
  const base = `${context.authRoutePath}/links`;
  return async function accountLinkRoutes(ctx: Context, next: Next) {
    const rest = ctx.path.slice(base.length);
    ctx.set('Cache-Control', 'no-store');
    if (rest === '' || rest === '/') {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new AuthError('method_not_allowed', 'GET only');
      const me = await context.session(ctx);
      return context.json(ctx, 200, await links.list(me.user.id));
    }
    if (rest.indexOf('/', 1) !== -1) {
      await next();
      return;
    }
    if (ctx.method !== 'DELETE') throw new AuthError('method_not_allowed', 'DELETE only');
    const me = await context.session(ctx);
    requireFresh(me, LINK_FRESH_MS, context.clock());
    // A name no identity or provider could have is no link of the account's either.
    const which = /^\/([A-Za-z0-9_.~-]{1,256})$/.exec(rest)?.[1];
    if (which === undefined) throw accountError('link_not_found', 'the account has no such identity');
    const gone = await links.unlink(me.user.id, which);
    await unlinked(me.user.id, gone.provider, me.claims.sid, ctx);
    return context.json(ctx, 200, await links.list(me.user.id));
  };
}
