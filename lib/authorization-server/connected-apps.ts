import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import { listConnectedApps } from './admin.js';
import type { ServerParts } from './parts.js';

/**
 * The user's connected apps: `GET <authRoutePath>/oauth2/grants` lists the clients holding a grant of theirs (id,
 * name, scopes, resources, first and last use); `DELETE …/grants/<url-encoded client id>` revokes every token of that
 * client for them, which reaches resource servers as a session's end does (the grant families are the tokens'
 * `sid`). Both need the user's full login with its XSRF header, as every route that manages the account does.
 */
export async function connectedApps(p: ServerParts, ctx: Context, rest: string): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  const me = await p.fullSession(ctx);
  if (rest === '') {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new AuthError('method_not_allowed', 'GET only');
    const named = await listConnectedApps(p.grants, p.clients, me.user.id);
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(named);
    return;
  }
  if (ctx.method !== 'DELETE') throw new AuthError('method_not_allowed', 'DELETE only');
  let clientId: string;
  try {
    clientId = decodeURIComponent(rest.slice(1));
  } catch {
    throw new AuthError('not_found', 'no such grant');
  }
  // Each family revoked is told as `grant_revoked` by the store's listener (server.ts).
  if (!(await p.grants.revokeGrant(me.user.id, clientId)).length) throw new AuthError('not_found', 'no such grant');
  ctx.status = 204;
}
