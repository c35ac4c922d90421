import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { readJSON } from '../../http/body.js';
import { writeJSON } from '../../http/respond.js';
import type { ProviderDeps, ProviderDepsWith } from '../core/contract.js';
import type { User } from '../../user.js';
import { safeEqual } from '../../util/safe-equal.js';
import type { LoginBot } from './bot.js';
import type { TelegramConfig } from './config.js';
import type { LoginRequests, TelegramIdentity } from './requests.js';

/** What the routes of one Telegram provider share. */
export interface TelegramParts {
  readonly config: TelegramConfig;
  /** The login context and the avatar proxy, which stores the photo's bytes. */
  readonly deps: ProviderDepsWith<'avatarProxy'>;
  readonly bot: LoginBot;
  readonly requests: LoginRequests;
}

const WEBHOOK_BODY_LIMIT = 1024 * 1024;
const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** GET /login: a new request without a token, the session for a confirmed one with `?token=`. */
export async function loginRoute(parts: TelegramParts, ctx: Context): Promise<void> {
  const token = ctx.query.token;
  if (typeof token === 'string' && token !== '') return claimRequest(parts, ctx, token);
  if (token !== undefined) throw new AuthError('bad_request', 'token must be given once');
  return openRequest(parts, ctx);
}

/**
 * The bot's username; a failure to learn it is a 503 (logged once, by the service's 5xx handler, with the redacted
 * cause).
 */
async function botUsername(bot: LoginBot): Promise<string> {
  try {
    return await bot.username();
  } catch (err) {
    throw new AuthError('provider_unavailable', 'telegram bot is unavailable', { cause: err });
  }
}

/** GET /login without a token: a new pending request and the bot to send it to. */
async function openRequest({ config, bot, requests }: TelegramParts, ctx: Context): Promise<void> {
  const username = await botUsername(bot);
  const token = await requests.open(username, config.lifetimeMs);
  ctx.set('Cache-Control', 'no-store');
  writeJSON(ctx, 200, { bot: username, token });
}

/** GET /login?token=: 404 until the request is confirmed, then the session, once. */
async function claimRequest(
  { config, deps, bot, requests }: TelegramParts,
  ctx: Context,
  token: string,
): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  const found = await requests.claim(await botUsername(bot), token);
  switch (found.status) {
    case 'unknown':
      throw new AuthError('request_not_found', 'request is not found');
    case 'expired':
      throw new AuthError('request_expired', 'request expired');
    case 'pending':
      throw new AuthError('request_not_verified', 'request is not verified yet');
  }
  const user = toUser(config.name, found.tg, deps.userId);
  if (found.photo) {
    try {
      user.picture = await deps.avatarProxy.putContent(user.id, found.photo);
    } catch (err) {
      deps.logger.warn(
        `telegram: profile photo of ${user.id} not stored (identicon instead): ${(err as Error).message}`,
      );
    }
  }
  const site = ctx.query.site;
  await deps.completeLogin(ctx, {
    provider: config.name,
    user,
    aud: typeof site === 'string' ? site : '',
    // As the original: the login token becomes the session's jti (and so its XSRF value).
    claims: { jti: token },
    amr: ['fed'],
  });
}

/** POST /webhook: one update pushed by Telegram, authenticated by the secret header. */
export async function webhookRoute({ config, bot }: TelegramParts, ctx: Context): Promise<void> {
  const { webhook } = config;
  if (!webhook) throw new AuthError('not_found', 'webhook is not enabled');
  if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'method not allowed');
  if (!safeEqual(ctx.get(SECRET_HEADER), webhook.secret))
    throw new AuthError('webhook_unauthorized', 'bad webhook secret');
  const update = await readJSON(ctx, WEBHOOK_BODY_LIMIT);
  await bot.handleUpdate(update);
  writeJSON(ctx, 200, { ok: true });
}

/** `<name>_<sha1(decimal id)>` and the full name, as the original builds them. */
function toUser(provider: string, tg: TelegramIdentity, userId: ProviderDeps['userId']): User {
  const full = tg.last_name ? `${tg.first_name} ${tg.last_name}` : tg.first_name;
  return { name: full, id: userId(provider, String(tg.id)), picture: '' };
}
