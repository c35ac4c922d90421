import { DIRECT_ROUTE_DOCS } from './direct-docs.js';
import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import { crossSite } from '../http/origin.js';
import type { Provider, ProviderDepsWith, ProviderModule } from './core/contract.js';
import { readParams, sessionOnly } from './kit.js';
import { optionNames } from '../util/options.js';

/** Options of a `kind: 'direct'` provider: the application checks user name and password itself. */
export interface DirectProviderOptions {
  kind: 'direct';
  /** Provider name; also the prefix of user ids (`<name>_<sha1>`). */
  name: string;
  /** Decides the credentials. The password may be any hash the caller prepared. */
  checker: (user: string, passwd: string) => boolean | Promise<boolean>;
  /** Makes the raw user id (hashed afterwards); default the user name. */
  userIdFunc?: (user: string, ctx: Context) => string;
}

const MAX_FIELD = 1024;

/** A direct entry's checked options, with the origin its logins must come from. */
interface DirectConfig {
  name: string;
  checker: DirectProviderOptions['checker'];
  userIdFunc?: DirectProviderOptions['userIdFunc'];
  /** The service's origin: a login from anywhere else is refused. */
  origin: string;
}

/** What a direct provider uses: the login context and the throttled credential check. */
type DirectDeps = ProviderDepsWith<'checkCredentials'>;

/** Logs users in with credentials from a JSON or form POST, or from the query of a GET. */
export const directProvider: ProviderModule<DirectProviderOptions & { [k: string]: unknown }, 'checkCredentials'> = {
  kind: 'direct',
  needs: ['checkCredentials'],
  options: optionNames<DirectProviderOptions>({ kind: true, name: true, checker: true, userIdFunc: true }),
  create(opts, deps: DirectDeps): Provider {
    if (typeof opts.name !== 'string') throw new TypeError('name is required');
    if (typeof opts.checker !== 'function') throw new TypeError(`checker must be a function (user, passwd) => boolean`);
    if (opts.userIdFunc !== undefined && typeof opts.userIdFunc !== 'function')
      throw new TypeError('userIdFunc must be a function');
    const config: DirectConfig = {
      name: opts.name,
      checker: opts.checker,
      userIdFunc: opts.userIdFunc,
      origin: new URL(deps.url).origin,
    };
    return {
      name: config.name,
      kind: 'direct',
      login: (ctx) => credentialLogin(config, deps, ctx),
      callback(ctx) {
        ctx.status = 200;
        ctx.body = '';
        return Promise.resolve();
      },
      logout(ctx) {
        deps.endSession(ctx);
        return Promise.resolve();
      },
      routeDocs: DIRECT_ROUTE_DOCS,
    };
  },
};

/** Checks the credentials (throttled when `loginThrottle` is on) and issues the session. */
async function credentialLogin(
  { name, checker, userIdFunc, origin }: DirectConfig,
  deps: DirectDeps,
  ctx: Context,
): Promise<void> {
  // Login CSRF: another site's form or link would log the visitor's browser into an account of
  // the attacker's choosing. The router refuses a foreign POST for every provider; a direct login
  // also takes its credentials from a GET's query, so a foreign GET (a link, an image) is refused here.
  if (crossSite(ctx, origin)) throw new AuthError('origin_mismatch', 'login must come from this site');
  const params = await readParams(ctx);
  const user = params.user ?? '';
  const passwd = params.passwd ?? '';
  if (!user || user.length > MAX_FIELD || passwd.length > MAX_FIELD || /[\r\n\0]/.test(user)) {
    throw new AuthError('bad_request', 'failed to parse credentials');
  }
  await deps.checkCredentials(ctx, name, user, () => checker(user, passwd));
  const rawId = userIdFunc ? userIdFunc(user, ctx) : user;
  await deps.completeLogin(ctx, {
    provider: name,
    user: { name: user, id: deps.userId(name, rawId), picture: '' },
    aud: params.aud ?? '',
    sessionOnly: sessionOnly(ctx),
    amr: ['pwd'],
  });
}
