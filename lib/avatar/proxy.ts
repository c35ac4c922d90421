import { noTracing, type Tracing } from '../telemetry/types.js';
import { MissingPackageError } from '../util/optional.js';
import { serveAvatar } from './route.js';
// Fetching (node:http, https, dns), resizing (worker_threads) and identicons (zlib) load with the first picture,
// not with the package.
import type { ResizePool } from './pool.js';
import type { FetchLimits } from './fetch.js';
import { readHeader } from './image.js';
import { addressPolicy } from '../http/address-policy.js';
import { AuthError } from '../errors.js';
import type { Logger } from '../logger.js';
import { lazyResource } from '../util/lazy.js';
import { checkStoreOpens, STRICT_STORES } from '../util/store-policy.js';
import { openStoreTarget, storeSource } from './stores/open.js';
import { avatarId, isAvatarStore, storeUnavailable, type AvatarStore } from './stores/types.js';
import type { User } from '../user.js';
import type { AvatarProxy, AvatarProxyOptions, AvatarPutOptions } from './types.js';

export type { AvatarProxy, AvatarProxyOptions, AvatarPutOptions } from './types.js';

/** The proxy, plus a count of resizes in flight (for monitoring and tests). */
export interface AvatarProxyImpl extends AvatarProxy {
  readonly pendingResizes: number;
  /**
   * Start-up: a store named by URI is opened now, as the state store is, so a refused password or a
   * missing database fails start-up naming the URI; one that cannot be reached is logged and opened
   * again on first use.
   */
  start(): Promise<void>;
}

/** Thrown inside the proxy when bytes are not an acceptable image; never escapes put(). */
class InvalidImage extends Error {}

/** A storing proxy's settings, defaults filled in. */
interface ProxyConfig {
  /** `<url><routePath>/`: every proxied picture URL starts with it. */
  base: string;
  log: Logger;
  maxPixels: number;
  resizeLimit: number;
  identiconSize: number;
  limits: FetchLimits;
  tracing: Tracing;
}

function proxyConfig(opts: AvatarProxyOptions): ProxyConfig {
  return {
    base: opts.url.replace(/\/+$/, '') + opts.routePath.replace(/\/+$/, '') + '/',
    log: opts.logger,
    tracing: opts.tracing ?? noTracing,
    maxPixels: opts.maxPixels ?? 16_777_216,
    resizeLimit: opts.resizeLimit,
    // Identicons match the stored avatars' size when a resize limit is set (never above 300, the original's).
    identiconSize: opts.identiconSize ?? (opts.resizeLimit > 0 ? Math.max(10, Math.min(300, opts.resizeLimit)) : 300),
    limits: {
      timeoutMs: opts.fetchTimeout ?? 10_000,
      maxBytes: opts.maxBytes ?? 10 * 1024 * 1024,
      maxRedirects: opts.maxRedirects ?? 5,
      allowed: addressPolicy(opts.allowPrivate, opts.allowAddresses, 'avatarAllowAddresses'),
      retries: opts.fetchRetries ?? 2,
      retryDelayMs: opts.retryDelay ?? 1000,
    },
  };
}

/**
 * What a storing proxy works with: its settings, the resize pool and the store (opened at start-up, or at first use
 * after a failed open).
 */
interface Parts {
  cfg: ProxyConfig;
  pool: LazyPool;
  store: () => Promise<AvatarStore>;
}

/**
 * Builds the avatar proxy. Without `store` it is the original's pass-through: pictures stay the
 * provider's URLs and the route answers 404 JSON. A bad store URI throws a TypeError here (start-up);
 * the store itself is opened by start() (auth.ready), and opened again at a later use if that failed.
 */
export function createAvatarProxy(opts: AvatarProxyOptions): AvatarProxyImpl {
  const routePath = opts.routePath;
  if (opts.store === undefined) return passThrough(routePath);
  const source = storeSource(opts.store, 'avatarStore');
  const cfg = proxyConfig(opts);
  const pool = lazyPool(opts.workers);
  const opened = lazyResource(
    async () =>
      isAvatarStore(source) ? source : openStoreTarget(source, 'avatarStore', { connections: opts.connections }),
    {
      onError(err) {
        cfg.log.error(`avatar store unavailable: ${(err as Error).message}`, { code: 'avatar_store_failed' });
        return new AuthError('avatar_store_failed', "can't save avatar", { cause: err });
      },
    },
  );
  const parts: Parts = { cfg, pool, store: opened.get };
  return {
    routePath,
    async start() {
      if (isAvatarStore(source)) return; // the application's own, opened by it
      // onError wrapped the failure for requests: start-up words it from the cause.
      const opening = opened.get().catch((err: unknown) => {
        throw (err as AuthError).cause ?? err;
      });
      const where = {
        option: 'avatarStore',
        uri: source.uri,
        code: 'avatar_store_failed',
        local: source.path !== undefined,
      };
      const fatal = (err: unknown) => err instanceof TypeError || err instanceof MissingPackageError;
      await checkStoreOpens(opening, where, opts.policy ?? STRICT_STORES, fatal);
    },
    get pendingResizes() {
      return pool.pending;
    },
    put: (user, options = {}) => putPicture(parts, user, options),
    putContent: (userId, image) => putContent(parts, userId, image),
    handle: (ctx) => serveAvatar(ctx, routePath, opened.get),
    async close() {
      await pool.close();
      await opened.close();
    },
  };
}

/** put(): the user's picture fetched and stored (an identicon when there is none or it fails); the proxied URL. */
async function putPicture(p: Parts, user: User, options: AvatarPutOptions): Promise<string> {
  const { base } = p.cfg;
  const ownUrl = base + avatarId(user.id);
  // Our own proxied URL (a relogin, a refreshed user): fetching it would loop back to us.
  if (user.picture === ownUrl && (await (await p.store()).get(avatarId(user.id)).catch(() => undefined))) return ownUrl;
  const fetched =
    user.picture && !user.picture.startsWith(base) ? await fetchPicture(p, user, options.headers ?? {}) : undefined;
  return save(p, user.id, fetched ?? (await import('./identicon.js')).identicon(user.id, p.cfg.identiconSize));
}

/** putContent(): bytes the caller holds, checked and resized like a fetched picture; a bad image is a 400. */
async function putContent(p: Parts, userId: string, image: Buffer): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await prepare(p, image);
  } catch (err) {
    throw new AuthError('invalid_avatar', 'invalid avatar image', { cause: err });
  }
  return save(p, userId, bytes);
}

/** Header check, pixel cap, then a resize in the pool when larger than the limit. */
async function prepare({ cfg, pool }: Parts, bytes: Buffer): Promise<Buffer> {
  const header = readHeader(bytes);
  if (!header) throw new InvalidImage('not an image');
  if (header.width * header.height > cfg.maxPixels)
    throw new InvalidImage(`too many pixels (${header.width}x${header.height})`);
  const limit = cfg.resizeLimit;
  if (limit <= 0 || (header.width <= limit && header.height <= limit)) return bytes; // kept verbatim
  if (header.type === 'image/webp') return bytes; // jimp has no WebP decoder: served as it came
  try {
    return await pool.resize(bytes, limit);
  } catch (err) {
    throw new InvalidImage(`cannot decode: ${(err as Error).message}`);
  }
}

async function save(p: Parts, userId: string, bytes: Buffer): Promise<string> {
  const s = await p.store();
  try {
    return p.cfg.base + (await s.put(userId, bytes));
  } catch (err) {
    p.cfg.log.error(`avatar store failed for ${avatarId(userId)}: ${(err as Error).message}`, {
      code: 'avatar_store_failed',
      userId,
    });
    // A store whose backend is away (PostgreSQL down) is an outage, 503; anything else a fault, 500.
    const code = storeUnavailable(err) ? 'avatar_store_unavailable' : 'avatar_store_failed';
    throw new AuthError(code, "can't save avatar", { cause: err });
  }
}

/** Fetch + prepare; undefined (logged) on any failure, so the caller falls back to an identicon. */
async function fetchPicture(p: Parts, user: User, headers: Record<string, string>): Promise<Buffer | undefined> {
  const { FetchError, safeFetch } = await import('./fetch.js');
  try {
    const fetch = () => safeFetch(user.picture, headers, p.cfg.limits);
    const tracing = p.cfg.tracing;
    const bytes = tracing.on
      ? await tracing.client({ method: 'GET', url: user.picture, what: 'avatar' }, fetch)
      : await fetch();
    return await prepare(p, bytes);
  } catch (err) {
    const why = err instanceof FetchError || err instanceof InvalidImage ? err.message : 'unexpected error';
    p.cfg.log.warn(`avatar for ${user.id} from ${redact(user.picture)} not used (${why}); identicon instead`);
    return undefined;
  }
}

/** The resize pool of a storing proxy, its module loaded and the pool made at the first resize. */
function lazyPool(workers: number | undefined) {
  let pool: ResizePool | undefined;
  let loading: Promise<ResizePool> | undefined;
  return {
    get pending(): number {
      return pool?.pending ?? 0;
    },
    async resize(bytes: Buffer, limit: number): Promise<Buffer> {
      loading ??= import('./pool.js').then((m) => (pool = new m.ResizePool(workers)));
      return (await loading).resize(bytes, limit);
    },
    async close(): Promise<void> {
      await (await loading)?.close();
    },
  };
}
type LazyPool = ReturnType<typeof lazyPool>;

function passThrough(routePath: string): AvatarProxyImpl {
  return {
    routePath,
    pendingResizes: 0,
    async start() {},
    put: (user) => Promise.resolve(user.picture),
    putContent: () => Promise.resolve(''),
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
