import { serveAvatar } from './route.js';
import { ResizePool } from './pool.js';
import { FetchError, safeFetch, type FetchLimits } from './fetch.js';
import { readHeader } from './image.js';
import { addressPolicy } from './ip.js';
import { AuthError } from '../errors.js';
import { identicon } from './identicon.js';
import { lazyResource } from '../util/lazy.js';
import { openStore, parseStoreUri } from '../stores/index.js';
import { avatarId, isAvatarStore } from '../stores/types.js';
import type { User } from '../user.js';
import type { AvatarProxy, AvatarProxyOptions } from './types.js';

export type { AvatarProxy, AvatarProxyOptions, AvatarPutOptions } from './types.js';

/** The proxy, plus a count of resizes in flight (for monitoring and tests). */
export interface AvatarProxyImpl extends AvatarProxy {
  readonly pendingResizes: number;
}

/** Thrown inside the proxy when bytes are not an acceptable image; never escapes put(). */
class InvalidImage extends Error {}

/**
 * Builds the avatar proxy. Without `store` it is the original's pass-through: pictures stay the
 * provider's URLs and the route answers 404 JSON. A bad store URI throws a TypeError here (start-up);
 * the store itself is opened on first use, and reopened later if that failed.
 */
export function createAvatarProxy(opts: AvatarProxyOptions): AvatarProxyImpl {
  const routePath = opts.routePath;
  if (opts.store === undefined) return passThrough(routePath);
  if (typeof opts.store === 'string') parseStoreUri(opts.store, 'avatarStore');
  else if (!isAvatarStore(opts.store)) throw new TypeError('authKoa: avatarStore must be a store URI or an object with put, get, remove, list and close');

  const base = opts.url.replace(/\/+$/, '') + routePath.replace(/\/+$/, '') + '/';
  const log = opts.logger;
  const maxPixels = opts.maxPixels ?? 16_777_216;
  // Identicons match the stored avatars' size when a resize limit is set (never above 300, the original's).
  const identiconSize = opts.identiconSize ?? (opts.resizeLimit > 0 ? Math.max(10, Math.min(300, opts.resizeLimit)) : 300);
  const limits: FetchLimits = {
    timeoutMs: opts.fetchTimeout ?? 10_000,
    maxBytes: opts.maxBytes ?? 10 * 1024 * 1024,
    maxRedirects: opts.maxRedirects ?? 5,
    allowed: addressPolicy(opts.allowPrivate, opts.allowAddresses),
    retries: opts.fetchRetries ?? 2,
    retryDelayMs: opts.retryDelay ?? 1000,
  };
  const pool = new ResizePool(opts.workers);
  const source = opts.store;
  const opened = lazyResource(() => openStore(source), {
    onError(err) {
      log.error(`avatar store unavailable: ${(err as Error).message}`);
      return new AuthError(500, 'avatar_store_failed', "can't save avatar", { cause: err });
    },
  });
  const store = opened.get;

  /** Header check, pixel cap, then a resize in the pool when larger than the limit. */
  async function prepare(bytes: Buffer): Promise<Buffer> {
    const header = readHeader(bytes);
    if (!header) throw new InvalidImage('not an image');
    if (header.width * header.height > maxPixels) throw new InvalidImage(`too many pixels (${header.width}x${header.height})`);
    const limit = opts.resizeLimit;
    if (limit <= 0 || (header.width <= limit && header.height <= limit)) return bytes; // kept verbatim
    if (header.type === 'image/webp') return bytes; // jimp has no WebP decoder: served as it came
    try {
      return await pool.resize(bytes, limit);
    } catch (err) {
      throw new InvalidImage(`cannot decode: ${(err as Error).message}`);
    }
  }

  async function save(userId: string, bytes: Buffer): Promise<string> {
    const s = await store();
    try {
      return base + (await s.put(userId, bytes));
    } catch (err) {
      log.error(`avatar store failed for ${avatarId(userId)}: ${(err as Error).message}`);
      throw new AuthError(500, 'avatar_store_failed', "can't save avatar", { cause: err });
    }
  }

  /** Fetch + prepare; undefined (logged) on any failure, so the caller falls back to an identicon. */
  async function fetchPicture(user: User, headers: Record<string, string>): Promise<Buffer | undefined> {
    try {
      return await prepare(await safeFetch(user.picture, headers, limits));
    } catch (err) {
      const why = err instanceof FetchError || err instanceof InvalidImage ? err.message : 'unexpected error';
      log.warn(`avatar for ${user.id} from ${redact(user.picture)} not used (${why}); identicon instead`);
      return undefined;
    }
  }

  return {
    routePath,
    get pendingResizes() {
      return pool.pending;
    },
    async put(user, options = {}) {
      const ownUrl = base + avatarId(user.id);
      // Our own proxied URL (a relogin, a refreshed user): fetching it would loop back to us.
      if (user.picture === ownUrl && (await (await store()).get(avatarId(user.id)).catch(() => undefined))) return ownUrl;
      const fetched = user.picture && !user.picture.startsWith(base) ? await fetchPicture(user, options.headers ?? {}) : undefined;
      return save(user.id, fetched ?? identicon(user.id, identiconSize));
    },
    async putContent(userId, image) {
      let bytes: Buffer;
      try {
        bytes = await prepare(image);
      } catch (err) {
        throw new AuthError(400, 'invalid_avatar', 'invalid avatar image', { cause: err });
      }
      return save(userId, bytes);
    },
    handle: (ctx) => serveAvatar(ctx, routePath, store),
    async close() {
      await pool.close();
      await opened.close();
    },
  };
}

function passThrough(routePath: string): AvatarProxyImpl {
  return {
    routePath,
    pendingResizes: 0,
    async put(user) {
      return user.picture;
    },
    async putContent() {
      return '';
    },
    handle: (ctx) => serveAvatar(ctx, routePath, undefined),
    async close() {},
  };
}

/** Origin and path only: query strings of picture URLs can carry tokens. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '<malformed url>';
  }
}
