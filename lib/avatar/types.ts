import type { Tracing } from '../telemetry/types.js';
import type { ConnectionShare } from '../util/connections.js';
import type { Context } from 'koa';
import type { Logger } from '../logger.js';
import type { StorePolicy } from '../util/store-policy.js';
import type { AvatarStore, StoreTarget } from './stores/types.js';
import type { User } from '../user.js';

/**
 * What providers and the service need from the avatar proxy: at login the picture is fetched under
 * SSRF rules, checked, resized once off the main thread, stored, and the user's picture becomes
 * `<url><routePath>/<sha1>.image`; any failure yields a deterministic identicon instead.
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
  /** Public base URL of the application; proxied pictures start with it. */
  url: string;
  /** Route prefix of the avatar route, e.g. `/avatar`. */
  routePath: string;
  /** Longer side of stored avatars in px; 0 keeps the fetched bytes as they are. */
  resizeLimit: number;
  /** Let avatar fetches reach loopback, private and link-local addresses (tests, intranets). */
  allowPrivate: boolean;
  logger: Logger;
  /** Private addresses avatar fetches may reach anyway: exact IPs or CIDRs (an intranet picture host). */
  allowAddresses?: readonly string[];
  /**
   * Store URI (path, file://, lmdb://, bolt://, mongodb://), its parsed target, or an AvatarStore; none = pass-through.
   */
  store?: string | StoreTarget | AvatarStore;
  /** The instance's connections: a store on the state store's database URI shares its pool. */
  connections?: ConnectionShare;
  /** Picture fetches as client spans, when the instance has OpenTelemetry. */
  tracing?: Tracing;
  /** How start-up checks a store named by URI (storeCheckTimeout, startWithStoresDown). Default: strict. */
  policy?: StorePolicy;
  /** Whole picture fetch, redirects included, in ms (default 10 000). */
  fetchTimeout?: number;
  /** Largest picture body accepted, in bytes (default 10 MiB). */
  maxBytes?: number;
  /** Largest picture accepted, in pixels, read from the header before decoding (default 16 777 216). */
  maxPixels?: number;
  /** Redirects followed per fetch (default 5). */
  maxRedirects?: number;
  /** Extra attempts after a transport error (default 2), `retryDelay` ms apart (default 1000). */
  fetchRetries?: number;
  retryDelay?: number;
  /** Worker threads for decoding and resizing (default: cores − 1, at least 1, at most 2). */
  workers?: number;
  /** Identicon side in px (default: the resize limit, capped at 300; 300 when the limit is 0). */
  identiconSize?: number;
}
