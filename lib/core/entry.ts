import type { Context, Middleware, Next } from 'koa';
import type { AvatarProxy } from '../avatar/types.js';
import type { Logger } from '../logger.js';
import type { AuthRoute } from '../routes.js';
import type { PendingAppErrors } from '../http/pending-errors.js';
import { reportError, setDefenceHeaders, writeError } from '../http/respond.js';

/** What the service's entry hands requests to. */
export interface EntryParts {
  /** The auth routes, built once routes.ts (and @koa/router) is loaded, during start-up. */
  routing: Promise<AuthRoute>;
  avatarProxy: AvatarProxy;
  /** Undefined once started; until then a promise a request waits for (rejected with a 503 after a failure). */
  waitForStart: () => Promise<void> | undefined;
  pending: PendingAppErrors;
  /**
   * What the request's events are still being kept by (AuthEventBus.settled: the webhooks' outbox); an auth route
   * answers once it is done.
   */
  settled: (ctx: Context) => Promise<unknown> | undefined;
  /** The features' site-root documents (`/.well-known/<name>`), when any serves one. */
  site?: SiteDocuments;
}

/** The site-root `.well-known` documents of the features (FeatureSet.siteDocuments and .site). */
export interface SiteDocuments {
  readonly names: readonly string[];
  /** Answers the request for document `name`; false when its feature passed it on. */
  serve(ctx: Context, name: string): Promise<boolean>;
}

const WELL_KNOWN = '/.well-known/';

/** The options the entry reads. */
export interface EntryConfig {
  authRoutePath: string;
  avatarRoutePath: string;
  logger: Logger;
}

/** The service's own middleware: the auth routes and the avatar route, every other request passed on. */
export function requestHandler(o: EntryConfig, parts: EntryParts): Middleware {
  const { routing, avatarProxy, waitForStart, pending, settled } = parts;
  const site = parts.site?.names.length ? parts.site : undefined;
  let authRoute: AuthRoute | undefined;
  routing.then((r) => (authRoute = r)).catch(() => undefined); // a failure reaches `ready` and the requests
  const authPrefix = o.authRoutePath;
  const avatarPrefix = o.avatarRoutePath;
  const logger = o.logger;
  // Not `async`: for every request outside its routes it returns next()'s own promise, where an async
  // function would wrap it in one more promise and resolve that with it (two more microtask turns).
  return function authKoaMiddleware(ctx: Context, next: Next) {
    // A store failure the app started with (startWithStoresDown) reaches the app with the first request.
    if (pending.waiting) pending.flush(ctx);
    // Most requests are for neither route: when the raw URL (origin form) starts with neither prefix, its
    // path cannot either, and Koa's URL parsing is spared.
    const url = ctx.req.url ?? '';
    if (
      url.charCodeAt(0) === 47 /* / */ &&
      !url.startsWith(authPrefix) &&
      !url.startsWith(avatarPrefix) &&
      !(site && url.startsWith(WELL_KNOWN))
    )
      return next();
    const path = ctx.path;
    if (under(path, authPrefix)) {
      const waiting = waitForStart();
      const route = authRoute;
      if (route && !waiting) return guarded(ctx, logger, () => route(ctx), settled);
      return guarded(ctx, logger, () => Promise.all([waiting, routing]).then(([, r]) => r(ctx)), settled);
    }
    if (under(path, avatarPrefix)) return guarded(ctx, logger, () => avatarProxy.handle(ctx));
    if (site && path.startsWith(WELL_KNOWN)) {
      const name = path.slice(WELL_KNOWN.length).split('/', 1)[0];
      if (site.names.includes(name)) return siteDocument(ctx, next, name, { site, logger, waitForStart });
    }
    return next();
  };
}

/** A site-root document: its feature's answer once started, or the application's when the feature passes it on. */
async function siteDocument(
  ctx: Context,
  next: Next,
  name: string,
  p: { site: SiteDocuments; logger: Logger; waitForStart: () => Promise<void> | undefined },
): Promise<void> {
  let answered = true;
  await guarded(ctx, p.logger, async () => {
    await p.waitForStart();
    answered = await p.site.serve(ctx, name);
  });
  if (!answered) await next();
}

async function guarded(
  ctx: Context,
  logger: Logger,
  handle: () => Promise<unknown>,
  settled?: EntryParts['settled'],
): Promise<void> {
  setDefenceHeaders(ctx);
  try {
    await handle();
  } catch (err) {
    writeError(ctx, reportError(ctx, err, logger));
  }
  // The events this request told are kept (the webhooks' outbox) before its answer goes out: a process killed
  // after the answer has lost none of them.
  const keeping = settled?.(ctx);
  if (keeping) await keeping;
}

function under(path: string, prefix: string): boolean {
  return path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47); /* / */
}
