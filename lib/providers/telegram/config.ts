import type { StateStore } from '../../state/types.js';
import type { LoginBotOptions } from './bot.js';
import type { PollerOptions } from './poller.js';

/** A Telegram provider's options, checked and with their defaults filled in by parseTelegramOptions(). */
export interface TelegramConfig {
  /** The provider's name: its routes and the prefix of its user ids. */
  readonly name: string;
  /** The bot as LoginBot takes it: token, Bot API root, replies, known username, limits. */
  readonly bot: Omit<LoginBotOptions, 'requests' | 'logger'>;
  /** How long a login request waits for Start, in ms. */
  readonly lifetimeMs: number;
  /** getUpdates polling in this process (long-poll wait and backoff); undefined with a webhook or `poll: false`. */
  readonly polling?: Omit<PollerOptions, 'logger' | 'onReady'>;
  /** Updates pushed by Telegram to `POST /auth/<name>/webhook`, with the secret they must carry. */
  readonly webhook?: { readonly secret: string; readonly register?: boolean };
  /** The `stateStore` option as given: the provider's own store, or undefined for the service's. */
  readonly stateStore?: string | StateStore;
}
