import type { Context } from 'koa';
import type { Logger } from './logger.js';
import type { User } from './user.js';

/**
 * What providers and the service need from the avatar proxy. The full proxy (fetch, resize, stores,
 * identicons) lands with the avatar issue; until then this pass-through keeps the provider's picture.
 */
export interface AvatarProxy {
  /** Route prefix the proxy serves, e.g. `/avatar`. */
  readonly routePath: string;
  /** Fetches `user.picture` (identicon when empty or failing), stores it, returns the proxied URL. */
  put(user: User, options?: AvatarPutOptions): Promise<string>;
  /** Stores image bytes the caller already holds (Telegram); rejects non-images. Returns the proxied URL. */
  putContent(userId: string, image: Buffer): Promise<string>;
  /** Answers a request whose path is under `routePath`. */
  handle(ctx: Context): Promise<void>;
  /** Releases the store. */
  close(): Promise<void>;
}

export interface AvatarPutOptions {
  /** Extra request headers for the picture fetch (Microsoft needs the user's bearer token). */
  headers?: Record<string, string>;
}

export interface AvatarProxyOptions {
  url: string;
  routePath: string;
  resizeLimit: number;
  allowPrivate: boolean;
  logger: Logger;
}

/** The proxy used while no store exists: pictures stay the provider's URLs, the route answers 404. */
export function createAvatarProxy(opts: AvatarProxyOptions): AvatarProxy {
  return {
    routePath: opts.routePath,
    async put(user) {
      return user.picture;
    },
    async putContent() {
      return '';
    },
    async handle(ctx) {
      ctx.status = 404;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify({ error: 'avatar proxy is disabled', code: 'avatar_disabled' }) + '\n';
    },
    async close() {},
  };
}
