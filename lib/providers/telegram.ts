import type { Context } from 'koa';
import { parseDuration, type Duration } from '../util/duration.js';
import { AuthError } from '../errors.js';
import { readJSON } from '../http/body.js';
import { writeJSON } from '../http/respond.js';
import type { Provider, ProviderDeps, ProviderModule } from './core/contract.js';
import type { StateStore } from '../state/index.js';
import { providerState } from '../state/shared.js';
import { LoginBot } from './telegram/bot.js';
import { startPolling, type Poller } from './telegram/poller.js';
import { LoginRequests, type TelegramIdentity } from './telegram/requests.js';
import type { User } from '../user.js';
import { safeEqual } from '../util/safe-equal.js';
import { optionNames } from '../util/options.js';

/** Options of a `kind: 'telegram'` provider: login by pressing Start in a Telegram bot. */
export interface TelegramProviderOptions {
  kind: 'telegram';
  /** Provider name: route `/auth/<name>/login`, user ids `<name>_<sha1(telegram id)>`. Default `telegram`. */
  name?: string;
  /** Bot token from BotFather. */
  token: string;
  /** Bot username; when given, the app never calls getMe. */
  bot?: string;
  /** Reply after a successful Start. */
  successMsg?: string;
  /** Reply to an unknown, expired or malformed Start. */
  errorMsg?: string;
  /** Bot API root (self-hosted Bot API server, tests). Default https://api.telegram.org. */
  apiRoot?: string;
  /** How long a login request waits for Start. Default 10 minutes, as the original. */
  lifetime?: Duration;
  /** Poll getUpdates inside this process. Default true, false with `webhook`; false when `authctl bot` polls. */
  poll?: boolean;
  /** Long-poll wait per getUpdates call, in seconds. Default 25. */
  pollTimeout?: number;
  /** Waits after Bot API failures: `{ min, max }` in ms, doubling in between. Default 500 ms to 30 s. */
  backoff?: { min?: number; max?: number };
  /** Take updates pushed by Telegram to `POST /auth/<name>/webhook` instead of polling. */
  webhook?: TelegramWebhookOptions;
  /** Where login requests live: the service's `stateStore` (default), or this provider's own `lmdb://<path>`, `redis://…`, `mongodb://…` or StateStore. */
  stateStore?: string | StateStore;
  /** Largest profile photo downloaded, in bytes. Default 10 MiB. */
  maxPhotoBytes?: number;
  /** Deadline of one Bot API call and of the photo download, in ms. Default 10 000. */
  timeout?: number;
}

export interface TelegramWebhookOptions {
  /** Compared with the `X-Telegram-Bot-Api-Secret-Token` header: 1–256 of A–Z, a–z, 0–9, `_`, `-`. */
  secret: string;
  /** Call setWebhook at start-up with `<url>/auth/<name>/webhook` and the secret. Default false. */
  register?: boolean;
}

const SECRET = /^[A-Za-z0-9_-]{1,256}$/;
const WEBHOOK_BODY_LIMIT = 1024 * 1024;
const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** The Telegram provider: the bot deep-link login of reference §5.6, with a shareable state store. */
export const telegramProvider: ProviderModule<TelegramProviderOptions & { [k: string]: unknown }> = {
  kind: 'telegram',
  options: optionNames<TelegramProviderOptions>({
    kind: true,
    name: true,
    token: true,
    bot: true,
    successMsg: true,
    errorMsg: true,
    apiRoot: true,
    lifetime: true,
    poll: true,
    pollTimeout: true,
    backoff: true,
    webhook: true,
    stateStore: true,
    maxPhotoBytes: true,
    timeout: true,
  }),
  async create(opts, deps: ProviderDeps): Promise<Provider> {
    const name = opts.name ?? 'telegram';
    if (typeof name !== 'string' || !name) throw new TypeError('name must be a non-empty string');
    if (typeof opts.token !== 'string' || !opts.token) throw new TypeError('token (the bot token from BotFather) is required');
    for (const key of ['bot', 'successMsg', 'errorMsg', 'apiRoot'] as const) {
      if (opts[key] !== undefined && (typeof opts[key] !== 'string' || !opts[key])) throw new TypeError(`${key} must be a non-empty string`);
    }
    if (opts.apiRoot !== undefined && !/^https?:\/\//.test(opts.apiRoot)) throw new TypeError('apiRoot must be an http(s) URL');
    const lifetimeMs = parseDuration(opts.lifetime ?? '10m', 'lifetime');
    const webhook = checkWebhook(opts.webhook);
    if (opts.poll !== undefined && typeof opts.poll !== 'boolean') throw new TypeError('poll must be a boolean');
    if (opts.poll && webhook) throw new TypeError('poll and webhook exclude each other: Telegram delivers updates one way at a time');
    const poll = opts.poll ?? !webhook;
    const pollTimeout = positive(opts.pollTimeout, 'pollTimeout') ?? 25;
    const backoff = opts.backoff ?? {};
    const clock = deps.clock;
    const log = deps.logger;

    // Its own `stateStore` when it has one (an object passed in belongs to the caller), else the service's.
    const state = providerState(opts.stateStore, deps.stateStore, { clock, logger: log, option: 'stateStore' });
    // The backend (and its optional package) now, so a missing one fails start-up; an unreachable server is retried on use.
    await state.start();
    const requests = new LoginRequests(async () => state.store, clock);
    const bot = new LoginBot({
      token: opts.token,
      apiRoot: opts.apiRoot,
      successMsg: opts.successMsg,
      errorMsg: opts.errorMsg,
      username: opts.bot,
      requests,
      logger: log,
      maxPhotoBytes: positive(opts.maxPhotoBytes, 'maxPhotoBytes'),
      timeoutMs: positive(opts.timeout, 'timeout'),
    });
    const poller: Poller | undefined = poll
      ? startPolling(bot, { logger: log, pollTimeout, backoffMin: positive(backoff.min, 'backoff.min'), backoffMax: positive(backoff.max, 'backoff.max') })
      : undefined;
    if (webhook?.register) {
      const url = deps.routeURL(name, 'webhook');
      bot.api
        .setWebhook({ url, secret_token: webhook.secret, allowed_updates: ['message'] })
        .then(() => log.info(`telegram: webhook registered for ${name}`))
        .catch((err: unknown) => log.error(`telegram: setWebhook failed: ${bot.describe(err)}`));
    }

    /** GET /login without a token: a new pending request and the bot to send it to. */
    async function open(ctx: Context): Promise<void> {
      let username: string;
      try {
        username = await bot.username();
      } catch (err) {
        // Logged once, by the service's 5xx handler, with the (redacted) cause.
        throw new AuthError(503, 'provider_unavailable', 'telegram bot is unavailable', { cause: err });
      }
      const token = await requests.open(username, lifetimeMs);
      ctx.set('Cache-Control', 'no-store');
      writeJSON(ctx, 200, { bot: username, token });
    }

    /** GET /login?token=: 404 until the request is confirmed, then the session, once. */
    async function claim(ctx: Context, token: string): Promise<void> {
      ctx.set('Cache-Control', 'no-store');
      const username = await bot.username().catch((err: unknown) => {
        throw new AuthError(503, 'provider_unavailable', 'telegram bot is unavailable', { cause: err });
      });
      const found = await requests.claim(username, token);
      switch (found.status) {
        case 'unknown':
          throw new AuthError(404, 'request_not_found', 'request is not found');
        case 'expired':
          throw new AuthError(404, 'request_expired', 'request expired');
        case 'pending':
          throw new AuthError(404, 'request_not_verified', 'request is not verified yet');
      }
      const user = toUser(name, found.tg, deps.userId);
      if (found.photo) {
        try {
          user.picture = await deps.avatarProxy.putContent(user.id, found.photo);
        } catch (err) {
          log.warn(`telegram: profile photo of ${user.id} not stored (identicon instead): ${(err as Error).message}`);
        }
      }
      const site = ctx.query.site;
      await deps.completeLogin(ctx, {
        provider: name,
        user,
        aud: typeof site === 'string' ? site : '',
        // As the original: the login token becomes the session's jti (and so its XSRF value).
        claims: { jti: token },
      });
    }

    /** POST /webhook: one update pushed by Telegram, authenticated by the secret header. */
    async function receive(ctx: Context): Promise<void> {
      if (!webhook) throw new AuthError(404, 'not_found', 'webhook is not enabled');
      if (ctx.method !== 'POST') throw new AuthError(405, 'method_not_allowed', 'method not allowed');
      if (!safeEqual(ctx.get(SECRET_HEADER), webhook.secret)) throw new AuthError(401, 'webhook_unauthorized', 'bad webhook secret');
      const update = await readJSON(ctx, WEBHOOK_BODY_LIMIT);
      await bot.handleUpdate(update);
      writeJSON(ctx, 200, { ok: true });
    }

    let closing: Promise<void> | undefined;
    return {
      name,
      kind: 'telegram',
      async login(ctx) {
        const token = ctx.query.token;
        if (typeof token === 'string' && token !== '') return claim(ctx, token);
        if (token !== undefined) throw new AuthError(400, 'bad_request', 'token must be given once');
        return open(ctx);
      },
      async logout(ctx) {
        deps.endSession(ctx);
      },
      actions: { webhook: receive },
      close() {
        closing ??= (async () => {
          await poller?.stop();
          await state.close();
        })();
        return closing;
      },
    };
  },
};

/** `<name>_<sha1(decimal id)>` and the full name, as the original builds them. */
function toUser(provider: string, tg: TelegramIdentity, userId: ProviderDeps['userId']): User {
  const full = tg.last_name ? `${tg.first_name} ${tg.last_name}` : tg.first_name;
  return { name: full, id: userId(provider, String(tg.id)), picture: '' };
}

function checkWebhook(input: unknown): TelegramWebhookOptions | undefined {
  if (input === undefined || input === false) return undefined;
  const w = input as TelegramWebhookOptions;
  if (typeof w !== 'object' || w === null || typeof w.secret !== 'string' || !SECRET.test(w.secret)) {
    throw new TypeError('webhook must be { secret } with a secret of 1-256 characters A-Z, a-z, 0-9, _ or -');
  }
  if (w.register !== undefined && typeof w.register !== 'boolean') throw new TypeError('webhook.register must be a boolean');
  return w;
}



function positive(value: unknown, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`${option} must be a non-negative number`);
  return value;
}
