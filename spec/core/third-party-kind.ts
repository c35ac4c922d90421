/**
 * A provider kind written the way an application or a plug-in package would write one: against
 * authkoa's main entry alone (here `../../lib/index.js`, for a package `authkoa`), with no import from
 * lib/'s internals. It does what the built-in `direct` kind does: a user name and password checked by
 * the application, failed attempts throttled through `deps.checkCredentials` (a capability the kind asks
 * for in `needs`), the session issued by `deps.completeLogin` and ended by `deps.endSession`, the request
 * read with the entry's pure helpers (`readParams`, `sessionFlag`, `sessionOnly`).
 * third-party-kind.test.ts checks both that it behaves like `direct` and that its imports stay on the
 * public entry.
 */
import type { Context } from 'koa';
import {
  AuthError,
  readParams,
  sessionFlag,
  sessionOnly,
  type Provider,
  type ProviderDepsWith,
  type ProviderModule,
} from '../../lib/index.js';

/** Options of a `kind: 'passphrase'` entry. */
export interface PasswordKindOptions {
  kind: 'passphrase';
  /** Provider name; also the prefix of user ids (`<name>_<sha1(user)>`). */
  name: string;
  /** Decides the credentials. */
  checker: (user: string, passwd: string) => boolean | Promise<boolean>;
  [option: string]: unknown;
}

// What a kind's package declares so that `providers` entries of its kind are type-checked as the
// built-in ones are (from a package, `declare module 'authkoa'`).
declare module '../../lib/index.js' {
  interface ProviderKinds {
    passphrase: PasswordKindOptions;
  }
}

/** The longest user name or password taken, as `direct` takes them. */
const MAX_FIELD = 1024;

/**
 * Logs users in with a user name and password from a JSON or form POST. Unlike `direct` it takes no
 * GET: the router already refuses a POST another site's page sends (login CSRF), while a GET login
 * would need its own cross-site check, which the public API does not offer.
 */
export const passwordKind: ProviderModule<PasswordKindOptions, 'checkCredentials'> = {
  kind: 'passphrase',
  needs: ['checkCredentials'],
  options: ['kind', 'name', 'checker'],
  create(opts, deps): Provider {
    const { name, checker } = parseOptions(opts);
    return {
      name,
      kind: 'passphrase',
      login: (ctx) => login(ctx, { name, checker, deps }),
      async logout(ctx) {
        deps.endSession(ctx);
      },
    };
  },
};

/** Checks the options the `options` list let through: names and types. */
function parseOptions(opts: PasswordKindOptions): { name: string; checker: PasswordKindOptions['checker'] } {
  if (typeof opts.name !== 'string') throw new TypeError('name is required');
  if (typeof opts.checker !== 'function') throw new TypeError('checker must be a function (user, passwd) => boolean');
  return { name: opts.name, checker: opts.checker };
}

interface LoginSetup {
  name: string;
  checker: PasswordKindOptions['checker'];
  deps: ProviderDepsWith<'checkCredentials'>;
}

/** One login: read the credentials, check them through the throttle, then issue the session. */
async function login(ctx: Context, { name, checker, deps }: LoginSetup): Promise<void> {
  if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'log in with a POST');
  const params = await readParams(ctx);
  const user = params.user ?? '';
  const passwd = params.passwd ?? '';
  if (!user || user.length > MAX_FIELD || passwd.length > MAX_FIELD || /[\r\n\0]/.test(user)) {
    throw new AuthError('bad_request', 'failed to parse credentials');
  }
  // Reserved before the checker runs (429 with Retry-After while locked out), then 403 or 500 as direct answers.
  await deps.checkCredentials(ctx, name, user, () => checker(user, passwd));
  await deps.completeLogin(ctx, {
    provider: name,
    user: { name: user, id: deps.userId(name, user), picture: '' },
    aud: params.aud ?? '',
    // The flag may come in the body as well as in the query.
    sessionOnly: sessionFlag(params) ?? sessionOnly(ctx),
  });
}
