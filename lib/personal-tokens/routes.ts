import type { Context, Middleware, Next } from 'koa';
import { AuthError } from '../errors.js';
import type { FeatureContext, FullLogin } from '../features/contract.js';
import { readJSON } from '../http/body.js';
import { requireFresh } from '../session/fresh.js';
import { parseDuration } from '../util/duration.js';
import { isScopeName, type PersonalTokensConfig } from './options.js';
import type { PersonalTokens, TokenRequest } from './service.js';

/**
 * `GET|POST /auth/tokens` and `DELETE /auth/tokens/<id>`: a user's own personal tokens. Only a full login's
 * session reaches them (FeatureContext.session): never basic auth, never a personal token (403
 * `token_not_allowed`); a new token needs a fresh one too. A POST or DELETE from another site is refused
 * before this (FeatureSet.mount).
 */
export function tokenRoutes(tokens: PersonalTokens, config: PersonalTokensConfig, context: FeatureContext): Middleware {
  const base = `${context.authRoutePath}/tokens`;
  const session = async (ctx: Context): Promise<FullLogin> => {
    ctx.set('Cache-Control', 'no-store');
    return context.session(ctx);
  };
  return async function personalTokenRoutes(ctx: Context, next: Next) {
    const rest = ctx.path.slice(base.length);
    if (rest === '' || rest === '/') {
      if (ctx.method === 'GET' || ctx.method === 'HEAD') {
        const me = await session(ctx);
        return context.json(ctx, 200, await tokens.admin.list(me.user.id));
      }
      if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'GET or POST only');
      const me = await session(ctx);
      requireFresh(me, config.freshMs, context.clock());
      const asked = tokenRequest(await readJSON(ctx, 16 * 1024), config, context);
      const made = await tokens.create(me.user, me.claims.auth_provider?.name, asked, ctx);
      return context.json(ctx, 201, made);
    }
    const id = /^\/([A-Za-z0-9_-]{1,64})$/.exec(rest)?.[1];
    if (id === undefined) {
      await next();
      return;
    }
    if (ctx.method !== 'DELETE') throw new AuthError('method_not_allowed', 'DELETE only');
    const me = await session(ctx);
    // Another user's token is answered like a missing one: ids are not a way to probe accounts.
    if (!(await tokens.revoke(me.user.id, id, 'user', ctx))) throw new AuthError('not_found', 'no such token');
    ctx.status = 204;
  };
}

const MAX_SCOPES = 50;

/** The body of `POST /auth/tokens`, checked: a 400 naming the field for anything else. */
function tokenRequest(body: unknown, config: PersonalTokensConfig, context: FeatureContext): TokenRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AuthError('bad_request', 'the body must be a JSON object: { "name": "CI deploy" }');
  const { name, scopes = [], expiresIn, ...extra } = body as Record<string, unknown>;
  const unknown = Object.keys(extra)[0];
  if (unknown !== undefined) throw new AuthError('bad_request', `unknown field "${unknown}": name, scopes, expiresIn`);
  if (typeof name !== 'string' || name.trim() === '' || name.length > 100)
    throw new AuthError('bad_request', 'name must be a string of 1 to 100 characters');
  if (!Array.isArray(scopes) || scopes.length > MAX_SCOPES)
    throw new AuthError('bad_request', `scopes must be an array of at most ${MAX_SCOPES} scope names`);
  for (const s of scopes) {
    if (!isScopeName(s)) throw context.error('invalid_scope', `${JSON.stringify(s)} is not a scope name`);
    if (config.scopes && !config.scopes.includes(s))
      throw context.error('invalid_scope', `unknown scope "${s}": one of ${config.scopes.join(', ')}`);
  }
  return { name: name.trim(), scopes: [...new Set(scopes as string[])], expires: expiry(expiresIn, config, context) };
}

/** `expiresIn` (seconds, or '30d'), bounded by `maxLifetime`, which is also the life of a token asking none. */
function expiry(expiresIn: unknown, config: PersonalTokensConfig, context: FeatureContext): number | undefined {
  let ms: number | undefined;
  if (expiresIn !== undefined && expiresIn !== null) {
    try {
      ms = parseDuration(typeof expiresIn === 'number' ? expiresIn * 1000 : (expiresIn as string), 'expiresIn');
    } catch {
      throw new AuthError('bad_request', "expiresIn must be a positive number of seconds or a duration like '30d'");
    }
  }
  const max = config.maxLifetimeMs;
  if (max !== undefined && ms !== undefined && ms > max)
    throw new AuthError('bad_request', `expiresIn may be at most ${Math.floor(max / 1000)} seconds`);
  const life = ms ?? max;
  return life === undefined ? undefined : context.clock() + life;
}
