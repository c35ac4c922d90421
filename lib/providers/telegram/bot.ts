import type { Tracing } from '../../telemetry/types.js';
import { Api } from 'node-telegram-bot-api';
import { cappedFetch, request } from '../../http/client.js';
import type { Logger } from '../../logger.js';
import type { ConfirmResult, LoginRequests, TelegramIdentity } from './requests.js';

/** Options of a LoginBot: the Bot API side of Telegram login, shared by the app and `authctl bot`. */
export interface LoginBotOptions {
  /** Bot token from BotFather. Never logged, never answered: see redact(). */
  token: string;
  /** Bot API calls as client spans (the token redacted from `url.full`), when the instance has OpenTelemetry. */
  tracing?: Tracing;
  /** Bot API root; default https://api.telegram.org (self-hosted Bot API servers, tests). */
  apiRoot?: string;
  /** Reply after a successful Start. */
  successMsg?: string;
  /** Reply to an unknown, expired or malformed Start. */
  errorMsg?: string;
  requests: LoginRequests;
  logger: Logger;
  /** Bot username when known, which spares a getMe call. */
  username?: string;
  /** Largest profile photo downloaded, in bytes. Default 10 MiB. */
  maxPhotoBytes?: number;
  /**
   * Deadline of one Bot API call (not the long poll, which adds its own wait) and of the photo download, in ms. Default
   * 10 000.
   */
  timeoutMs?: number;
}

export const DEFAULT_SUCCESS_MSG = '✅ You have successfully authenticated, check the web!';
export const DEFAULT_ERROR_MSG = '❌ Invalid auth request. Please try clicking link again.';
export const DEFAULT_API_ROOT = 'https://api.telegram.org';

/** Largest Bot API answer read: a full getUpdates batch (100 updates) fits several times over. */
const API_MAX_BYTES = 8 * 1024 * 1024;

/** `/start`, optionally addressed to the bot (`/start@my_bot`), then the deep-link payload. */
const START = /^\/start(?:@[A-Za-z0-9_]{1,64})?(?:[ \t]+(\S*))?\s*$/;

/** Why the bot username could not be read; the message is already redacted. */
export class BotUnavailableError extends Error {
  override name = 'BotUnavailableError';
}

/**
 * Reads `/start <token>` messages and confirms login requests. The profile photo is fetched through
 * getUserProfilePhotos/getFile and downloaded here, server-side, because its URL embeds the bot
 * token; only the bytes travel on. Every error text passes through redact() before it is logged.
 */
export class LoginBot {
  readonly api: Api;
  readonly #token: string;
  readonly #apiRoot: string;
  readonly #success: string;
  readonly #error: string;
  readonly #requests: LoginRequests;
  readonly #log: Logger;
  readonly #maxPhoto: number;
  readonly #timeout: number;
  readonly #tracing: Tracing | undefined;
  readonly #secrets: string[];
  #me: Promise<string> | undefined;

  constructor(o: LoginBotOptions) {
    if (typeof o.token !== 'string' || !/^[^\s/]+$/.test(o.token))
      throw new TypeError('token must be the bot token from BotFather');
    this.#token = o.token;
    this.#apiRoot = (o.apiRoot ?? DEFAULT_API_ROOT).replace(/\/+$/, '');
    this.#success = o.successMsg ?? DEFAULT_SUCCESS_MSG;
    this.#error = o.errorMsg ?? DEFAULT_ERROR_MSG;
    this.#requests = o.requests;
    this.#log = o.logger;
    this.#maxPhoto = o.maxPhotoBytes ?? 10 * 1024 * 1024;
    this.#timeout = o.timeoutMs ?? 10_000;
    this.#tracing = o.tracing;
    // The raw token and its URL-encoded form (':' becomes %3A), longest first.
    this.#secrets = [...new Set([encodeURIComponent(o.token), o.token])].sort((a, b) => b.length - a.length);
    // Three attempts 50 ms apart for transient failures, as the original; longer outages are the
    // poller's backoff's business.
    this.api = new Api(o.token, {
      apiRoot: this.#apiRoot,
      timeoutMs: this.#timeout,
      maxRetries: 2,
      retryBackoffMs: 50,
      fetch: cappedFetch(API_MAX_BYTES, o.tracing && { tracing: o.tracing, what: 'telegram' }),
    });
    if (o.username) this.#me = Promise.resolve(o.username);
  }

  /** The bot's username (getMe once; a failure is retried at the next call). */
  username(): Promise<string> {
    this.#me ??= this.api.getMe().then(
      (me) => {
        if (!me.username) throw new BotUnavailableError('getMe answered without a username');
        return me.username;
      },
      (err: unknown) => {
        throw new BotUnavailableError(`getMe failed: ${this.describe(err)}`, { cause: err });
      },
    );
    const me = this.#me;
    me.catch(() => {
      if (this.#me === me) this.#me = undefined;
    });
    return me;
  }

  /**
   * Handles one update from getUpdates or a webhook. Only private-chat `/start` messages count;
   * everything else is ignored. Never throws for a bad update: failures are logged and answered
   * with the error message, so one poisoned update cannot stall the poller.
   */
  async handleUpdate(update: unknown, signal?: AbortSignal): Promise<void> {
    const start = readStart(update);
    if (!start) return;
    let result: ConfirmResult | 'failed';
    try {
      const bot = await this.username();
      result = await this.#requests.confirm(bot, start.token, start.from, () => this.#photo(start.from.id, signal));
    } catch (err) {
      if (signal?.aborted) return;
      this.#log.error(`telegram: login request not confirmed: ${this.describe(err)}`);
      result = 'failed';
    }
    // The login token stays out of logs: until it is consumed it is as good as a session.
    if (result === 'confirmed') this.#log.info(`telegram: login request confirmed by a user`);
    else if (result !== 'repeated') this.#log.info(`telegram: login request refused (${result})`);
    await this.#reply(
      start.chatId,
      result === 'confirmed' || result === 'repeated' ? this.#success : this.#error,
      signal,
    );
  }

  /** `text` with the bot token replaced by `<redacted>`, whatever library produced it. */
  redact(text: string): string {
    let out = text;
    for (const s of this.#secrets) out = out.split(s).join('<redacted>');
    return out;
  }

  /** A one-line, redacted description of an error and its causes, for logs. */
  describe(err: unknown): string {
    const parts: string[] = [];
    let e: unknown = err;
    for (let depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
      parts.push(linkText(e));
      // BotUnavailableError's message already describes its cause.
      e = e instanceof Error && !(e instanceof BotUnavailableError) ? e.cause : undefined;
    }
    return this.redact(parts.join(' <- '));
  }

  async #reply(chatId: number, text: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.api.sendMessage({ chat_id: chatId, text }, signal);
    } catch (err) {
      if (!signal?.aborted) this.#log.warn(`telegram: reply not sent: ${this.describe(err)}`);
    }
  }

  /** The largest profile photo the limits allow, or undefined (no photo, or any failure: logged). */
  async #photo(userId: number, signal?: AbortSignal): Promise<Buffer | undefined> {
    try {
      const photos = await this.api.getUserProfilePhotos({ user_id: userId, limit: 1 }, signal);
      const sizes = photos.photos?.[0] ?? [];
      const fits = sizes.filter((p) => (p.file_size ?? 0) <= this.#maxPhoto);
      const best = fits.reduce<(typeof fits)[number] | undefined>(
        (a, p) => (!a || p.width * p.height > a.width * a.height ? p : a),
        undefined,
      );
      if (!best) return undefined;
      const file = await this.api.getFile({ file_id: best.file_id }, signal);
      if (!file.file_path || (file.file_size ?? 0) > this.#maxPhoto) return undefined;
      return await this.#download(file.file_path, signal);
    } catch (err) {
      if (!signal?.aborted)
        this.#log.warn(`telegram: profile photo not used (identicon instead): ${this.describe(err)}`);
      return undefined;
    }
  }

  /** GETs a file under the deadline and the size cap. Redirects are not followed: the URL holds the token. */
  async #download(filePath: string, signal?: AbortSignal): Promise<Buffer> {
    const path = filePath.split('/').map(encodeURIComponent).join('/');
    const tracing = this.#tracing && { tracing: this.#tracing, what: 'telegram_file' };
    const res = await request(`${this.#apiRoot}/file/bot${this.#token}/${path}`, {
      timeoutMs: this.#timeout,
      maxBytes: this.#maxPhoto,
      signal,
      tracing,
    });
    if (res.status !== 200) throw new Error(`file download answered ${res.status}`);
    return res.body;
  }
}

/** The parts of an update a login needs, checked field by field: webhook bodies are untrusted input. */
function readStart(update: unknown): { chatId: number; token: string; from: TelegramIdentity } | undefined {
  const msg = (update as { message?: unknown } | null)?.message as
    { chat?: { id?: unknown; type?: unknown }; from?: Record<string, unknown>; text?: unknown } | undefined;
  if (!msg || typeof msg !== 'object') return undefined;
  if (msg.chat?.type !== 'private' || typeof msg.chat.id !== 'number') return undefined;
  if (typeof msg.text !== 'string') return undefined;
  const m = START.exec(msg.text);
  const from = msg.from;
  if (!m || !from || !Number.isSafeInteger(from.id) || typeof from.first_name !== 'string') return undefined;
  const tg: TelegramIdentity = { id: from.id as number, first_name: from.first_name.slice(0, 256) };
  if (typeof from.last_name === 'string' && from.last_name) tg.last_name = from.last_name.slice(0, 256);
  if (typeof from.username === 'string' && from.username) tg.username = from.username.slice(0, 64);
  return { chatId: msg.chat.id, token: m[1] ?? '', from: tg };
}

/** One link of an error chain: an Error by its name and message, anything else thrown as String() writes it. */
function linkText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
