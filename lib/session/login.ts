import type { Context } from 'koa';
import type { AvatarProxy, AvatarPutOptions } from '../avatar/types.js';
import type { Logger } from '../logger.js';
import { writeJSON } from '../http/respond.js';
import { safeRedirect } from '../http/redirect.js';
import { randomId, type Claims } from './claims.js';
import type { SessionHooks } from './hooks.js';
import type { TokenService } from './token-service.js';
import type { User } from '../user.js';

/** Runs once a provider has identified the user, before the token is issued; may edit the user or throw to refuse. */
export type PostAuthHook = (ctx: Context, user: User, provider: string) => void | Promise<void>;

/** The options the end of a login reads. */
export interface LoginConfig {
  /** The public base URL, without a trailing slash: where `from` may always lead. */
  url: string;
  /** Lower case. */
  allowedRedirects: string[];
  postAuthHook: PostAuthHook | undefined;
  logger: Logger;
}

/** What a provider knows once it has identified a user. */
export interface CompletedLogin {
  /** Provider name, written to the token's auth_provider. */
  provider: string;
  user: User;
  /** Audience (site id) the token is for; "" when none was asked. */
  aud?: string;
  /** Session-only cookies (no Max-Age). */
  sessionOnly?: boolean;
  /** Where to send the browser afterwards; only honoured when the redirect policy allows it. */
  from?: string;
  /** Use an identicon instead of the provider's picture. */
  noAva?: boolean;
  /** Extra headers for fetching the picture (a bearer token for Microsoft). */
  avatar?: AvatarPutOptions;
  /** Claims to mint the token with (Telegram uses its login token as jti). */
  claims?: Partial<Claims>;
  /**
   * How the user proved who they are, as RFC 8176 `amr` values (`pwd`, `hwk`, or authkoa's `fed` for a
   * login at another site and `email` for a link sent to the user): the token's `amr` claim starts with them.
   */
  amr?: string[];
  /**
   * The login ends a browser navigation (an OAuth2 callback, a confirmation link): a second step, when
   * one is needed, is asked for by redirecting to the second-step page rather than in a JSON answer.
   */
  navigation?: boolean;
  /**
   * The provider's own word that `user.email` belongs to the user (an OpenID `email_verified: true`). Only this
   * makes an address a reason to offer a link to an account (`accounts.trustEmail`); absent is no.
   */
  emailVerified?: boolean;
}

/** A login once its user is final (avatar stored, postAuthHook run): what a session is minted from. */
export interface IdentifiedLogin {
  provider: string;
  user: User;
  aud: string;
  sessionOnly?: boolean;
  noAva?: boolean;
  from?: string;
  claims?: Partial<Claims>;
  amr: string[];
  navigation?: boolean;
  emailVerified?: boolean;
}

/**
 * What may stand between a first factor and the session (the second factor): it answers the request
 * itself and resolves true when the login must go on elsewhere, false to let the session be issued.
 */
export interface SecondStepGate {
  intercept(ctx: Context, login: IdentifiedLogin): Promise<boolean>;
}

/**
 * The common end of every login: store the avatar, run the post-auth hook, let the second-step gate
 * (the `mfa` option) take over when it must, else mint the token and set the cookies, then 303 to a
 * permitted `from` or answer the User JSON.
 */
export async function completeLogin(
  ctx: Context,
  login: CompletedLogin,
  o: LoginConfig,
  start: SessionStarter,
  avatars: AvatarProxy,
  gate?: SecondStepGate,
): Promise<void> {
  const user: User = { ...login.user };
  if (login.noAva) user.picture = '';
  user.picture = await avatars.put(user, login.avatar);
  if (o.postAuthHook) await o.postAuthHook(ctx, user, login.provider);
  const identified: IdentifiedLogin = {
    provider: login.provider,
    user,
    aud: login.aud ?? '',
    sessionOnly: login.sessionOnly,
    noAva: login.noAva,
    from: login.from,
    claims: login.claims,
    amr: login.amr ?? [],
    navigation: login.navigation,
    emailVerified: login.emailVerified,
  };
  if (gate && (await gate.intercept(ctx, identified))) return;
  const claims = await start(ctx, identified);
  answerLogin(ctx, identified, claims, o);
}

/** Starts the session of an identified login (see startSession): what completeLogin and the second step call. */
export type SessionStarter = (ctx: Context, login: IdentifiedLogin) => Promise<Claims>;

/**
 * Mints the session of an identified login and sets its cookies: a new session id (`sid`), `auth_time`
 * now, `amr` the login's methods; then tells the features (SessionHooks.started: the session list records it).
 */
export async function startSession(
  ctx: Context,
  login: IdentifiedLogin,
  tokens: TokenService,
  hooks: SessionHooks,
): Promise<Claims> {
  const claims = await tokens.set(ctx, {
    aud: login.aud,
    jti: randomId(),
    sid: randomId(),
    user: login.user,
    sess_only: login.sessionOnly || undefined,
    'no-ava': login.noAva || undefined,
    auth_provider: { name: login.provider },
    auth_time: tokens.now(),
    amr: login.amr.length > 0 ? login.amr : undefined,
    ...login.claims,
  });
  await hooks.started(ctx, claims);
  return claims;
}

/** The answer to a finished login: 303 to a `from` the redirect policy permits, else the User JSON. */
export function answerLogin(
  ctx: Context,
  login: Pick<IdentifiedLogin, 'from' | 'provider'>,
  claims: Claims,
  o: LoginConfig,
): void {
  const location = safeRedirect(login.from, o.url, o.allowedRedirects);
  if (location) {
    ctx.status = 303;
    ctx.redirect(location);
    return;
  }
  if (login.from)
    o.logger.warn(`login by ${login.provider}: redirect target refused, answering the user instead`, {
      provider: login.provider,
      code: 'redirect_refused',
    });
  writeJSON(ctx, 200, claims.user);
}

/**
 * The `session` flag of a login request (or the original's `sess`): the first of the two that is
 * non-empty decides, and anything but "0" asks for session-only cookies; undefined when neither is set.
 */
export function sessionFlag(params: Record<string, unknown>): boolean | undefined {
  for (const key of ['session', 'sess']) {
    const v = params[key];
    const s: unknown = Array.isArray(v) ? v[0] : v;
    if (typeof s === 'string' && s !== '') return s !== '0';
  }
  return undefined;
}

/** The end of every logout: both session cookies cleared, 200 with an empty text/plain body. */
export function endSession(ctx: Context, tokens: TokenService): void {
  tokens.reset(ctx);
  ctx.status = 200;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = '';
}
