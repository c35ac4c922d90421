import { randomId } from '../../session/claims.js';
import type { StateEntry, StateStore } from '../../state/types.js';

/** The Telegram user a bot saw pressing Start: the fields login needs, nothing more. */
export interface TelegramIdentity {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

/**
 * A login request as the state store keeps it. The poller may run in another process than the app
 * (`authctl bot`), so a confirmed request carries everything the app needs to finish the login: the
 * identity and the profile photo's bytes (base64), which the app stores through its own avatar proxy.
 */
export type LoginRequest = { state: 'pending' } | { state: 'confirmed'; tg: TelegramIdentity; photo?: string };

/** What a poll for a token finds. */
export type ClaimResult =
  { status: 'unknown' | 'expired' | 'pending' } | { status: 'confirmed'; tg: TelegramIdentity; photo?: Buffer };

/** What pressing Start with a token did. */
export type ConfirmResult = 'confirmed' | 'repeated' | 'unknown' | 'expired' | 'taken';

/** Login tokens are randomId() values; anything else is refused before it reaches the store. */
export const LOGIN_TOKEN = /^[0-9a-f]{40}$/;

/**
 * The bot-login state machine over a state store: pending → confirmed (identity attached) → consumed
 * (deleted). Requests are namespaced by bot username, so several bots can share one store and a
 * token is only confirmed by the bot it was issued for.
 */
export class LoginRequests {
  readonly #store: () => Promise<StateStore>;
  readonly #clock: () => number;

  constructor(store: () => Promise<StateStore>, clock: () => number) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Records a pending request for `bot` that lives `lifetimeMs`; resolves to its token. */
  async open(bot: string, lifetimeMs: number): Promise<string> {
    const store = await this.#store();
    // Two 160-bit random tokens do not clash; the retries only keep create()'s contract honest, and
    // the bound keeps a broken store from spinning here.
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = randomId();
      if (await store.create(ns(bot), token, { state: 'pending' } satisfies LoginRequest, this.#clock() + lifetimeMs))
        return token;
    }
    throw new Error('state store refused three fresh login tokens');
  }

  /**
   * Attaches `tg` to a pending request. `photo` is called only for a live pending request (so a stray
   * or forged token costs no download) and may resolve to undefined. Pressing Start again on a request
   * the same user already confirmed answers 'repeated'.
   */
  async confirm(
    bot: string,
    token: string,
    tg: TelegramIdentity,
    photo: () => Promise<Buffer | undefined>,
  ): Promise<ConfirmResult> {
    if (!LOGIN_TOKEN.test(token)) return 'unknown';
    const store = await this.#store();
    const entry = await store.get<LoginRequest>(ns(bot), token);
    const status = this.#status(entry, tg);
    if (status !== 'pending') return status;
    const bytes = await photo();
    const confirmed: LoginRequest = { state: 'confirmed', tg, ...(bytes ? { photo: bytes.toString('base64') } : {}) };
    if (await store.replace(ns(bot), token, entry!.rev, confirmed, entry!.expiresAt)) return 'confirmed';
    // Changed while the photo downloaded: confirmed (perhaps by this user's second Start), consumed
    // or expired. Judge it again as it is now.
    const now = this.#status(await store.get<LoginRequest>(ns(bot), token), tg);
    return now === 'pending' ? 'taken' : now;
  }

  #status(entry: StateEntry<LoginRequest> | undefined, tg: TelegramIdentity): ConfirmResult | 'pending' {
    if (!entry) return 'unknown';
    if (entry.expiresAt <= this.#clock()) return 'expired';
    if (entry.value.state === 'confirmed') return entry.value.tg.id === tg.id ? 'repeated' : 'taken';
    return 'pending';
  }

  /** Looks a token up for a poll; a confirmed request is consumed here, exactly once. */
  async claim(bot: string, token: string): Promise<ClaimResult> {
    if (!LOGIN_TOKEN.test(token)) return { status: 'unknown' };
    const store = await this.#store();
    const entry = await store.get<LoginRequest>(ns(bot), token);
    if (!entry) return { status: 'unknown' };
    if (entry.expiresAt <= this.#clock()) {
      await store.remove(ns(bot), token);
      return { status: 'expired' };
    }
    if (entry.value.state !== 'confirmed') return { status: 'pending' };
    // Two polls racing for one confirmed request: take() lets exactly one of them log in.
    if (!(await store.take(ns(bot), token, entry.rev))) return { status: 'unknown' };
    const { tg, photo } = entry.value;
    return { status: 'confirmed', tg, ...(photo ? { photo: Buffer.from(photo, 'base64') } : {}) };
  }
}

function ns(bot: string): string {
  return `telegram:${bot.toLowerCase()}`;
}
