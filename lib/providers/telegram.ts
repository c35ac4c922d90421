import { TELEGRAM_ROUTE_DOCS } from './telegram/docs.js';
import { parseDuration, type Duration } from '../util/duration.js';
import type { Provider, ProviderDeps, ProviderDepsWith, ProviderModule } from './core/contract.js';
import type { StateStore } from '../state/index.js';
import { providerState } from '../state/shared.js';
import { LoginBot } from './telegram/bot.js';
import type { TelegramConfig } from './telegram/config.js';
import { startPolling } from './telegram/poller.js';
import { LoginRequests } from './telegram/requests.js';
import { loginRoute, webhookRoute, type TelegramParts } from './telegram/routes.js';
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
  /**
   * Where login requests live: the service's `stateStore` (default), or this provider's own `lmdb://<path>`,
   * `redis://…`, `mongodb://…` or StateStore.
   */
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

/**
 * Beyond the login context: the avatar proxy, since Telegram hands over the photo's bytes rather than a URL;
 * the connections and the store policy, for its own `stateStore`.
 */
const TELEGRAM_NEEDS = ['avatarProxy', 'connections', 'stores'] as const;
type TelegramNeed = (typeof TELEGRAM_NEEDS)[number];

/**
 * The Telegram provider: the page asks /login for a token and sends the user to the bot with it as
 * the Start deep-link payload; the bot confirms the request when Start is pressed, and the page's
 * polling of /login?token= then gets the session. Requests live in a state store several processes
 * can share.
 */
export const telegramProvider: ProviderModule<TelegramProviderOptions & { [k: string]: unknown }, TelegramNeed> = {
  kind: 'telegram',
  needs: TELEGRAM_NEEDS,
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
  async create(opts, deps: ProviderDepsWith<TelegramNeed>): Promise<Provider> {
    const config = parseTelegramOptions(opts);
    const log = deps.logger;
    // Its own `stateStore` when it has one (an object passed in belongs to the caller), else the service's.
    const state = providerState(config.stateStore, deps.stateStore, {
      clock: deps.clock,
      option: 'stateStore',
      connections: deps.connections,
      policy: deps.stores,
    });
    // The backend (and its optional package) now, so a missing one fails start-up, as does a server
    // that cannot be reached (unless startWithStoresDown).
    await state.start();
    const requests = new LoginRequests(() => Promise.resolve(state.store), deps.clock);
    const bot = new LoginBot({ ...config.bot, requests, logger: log, tracing: deps.tracing });
    const poller = config.polling ? startPolling(bot, { logger: log, ...config.polling }) : undefined;
    if (config.webhook?.register) registerWebhook(config.name, config.webhook.secret, bot, deps);
    const parts: TelegramParts = { config, deps, bot, requests };
    let closing: Promise<void> | undefined;
    return {
      name: config.name,
      kind: 'telegram',
      login: (ctx) => loginRoute(parts, ctx),
      logout(ctx) {
        deps.endSession(ctx);
        return Promise.resolve();
      },
      actions: { webhook: (ctx) => webhookRoute(parts, ctx) },
      routeDocs: TELEGRAM_ROUTE_DOCS,
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

/** Checks a Telegram entry's options and fills in the defaults; TypeErrors name the option. */
function parseTelegramOptions(opts: TelegramProviderOptions & { [k: string]: unknown }): TelegramConfig {
  const name = opts.name ?? 'telegram';
  if (typeof name !== 'string' || !name) throw new TypeError('name must be a non-empty string');
  if (typeof opts.token !== 'string' || !opts.token)
    throw new TypeError('token (the bot token from BotFather) is required');
  for (const key of ['bot', 'successMsg', 'errorMsg', 'apiRoot'] as const) {
    if (opts[key] !== undefined && (typeof opts[key] !== 'string' || !opts[key]))
      throw new TypeError(`${key} must be a non-empty string`);
  }
  if (opts.apiRoot !== undefined && !/^https?:\/\//.test(opts.apiRoot))
    throw new TypeError('apiRoot must be an http(s) URL');
  const lifetimeMs = parseDuration(opts.lifetime ?? '10m', 'lifetime');
  const webhook = checkWebhook(opts.webhook);
  if (opts.poll !== undefined && typeof opts.poll !== 'boolean') throw new TypeError('poll must be a boolean');
  if (opts.poll && webhook)
    throw new TypeError('poll and webhook exclude each other: Telegram delivers updates one way at a time');
  const poll = opts.poll ?? !webhook;
  const pollTimeout = positive(opts.pollTimeout, 'pollTimeout') ?? 25;
  const backoff = opts.backoff ?? {};
  const bot = {
    token: opts.token,
    apiRoot: opts.apiRoot,
    successMsg: opts.successMsg,
    errorMsg: opts.errorMsg,
    username: opts.bot,
    maxPhotoBytes: positive(opts.maxPhotoBytes, 'maxPhotoBytes'),
    timeoutMs: positive(opts.timeout, 'timeout'),
  };
  // The backoff is read only where it is used: by this process's own polling.
  const polling = poll
    ? {
        pollTimeout,
        backoffMin: positive(backoff.min, 'backoff.min'),
        backoffMax: positive(backoff.max, 'backoff.max'),
      }
    : undefined;
  return { name, bot, lifetimeMs, polling, webhook, stateStore: opts.stateStore };
}

/** setWebhook with the route URL and the secret, in the background: a failure is logged, and start-up goes on. */
function registerWebhook(name: string, secret: string, bot: LoginBot, deps: ProviderDeps): void {
  const url = deps.routeURL(name, 'webhook');
  bot.api
    .setWebhook({ url, secret_token: secret, allowed_updates: ['message'] })
    .then(() => deps.logger.info(`telegram: webhook registered for ${name}`))
    .catch((err: unknown) => deps.logger.error(`telegram: setWebhook failed: ${bot.describe(err)}`));
}

function checkWebhook(input: unknown): TelegramWebhookOptions | undefined {
  if (input === undefined || input === false) return undefined;
  const w = input as TelegramWebhookOptions;
  if (typeof w !== 'object' || w === null || typeof w.secret !== 'string' || !SECRET.test(w.secret)) {
    throw new TypeError('webhook must be { secret } with a secret of 1-256 characters A-Z, a-z, 0-9, _ or -');
  }
  if (w.register !== undefined && typeof w.register !== 'boolean')
    throw new TypeError('webhook.register must be a boolean');
  return w;
}

function positive(value: unknown, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new TypeError(`${option} must be a non-negative number`);
  return value;
}
