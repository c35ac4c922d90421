import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import { isAvatarId, storeUnavailable, type AvatarStore } from './stores/types.js';
import { sniffImage } from './image.js';

const MAX_AGE = 'max-age=604800';

/**
 * Answers `GET|HEAD <routePath>/<id>.image` from a store, with authkoa's statuses (bad id 400, unknown
 * 404; the original answered 403 and 400). Only a validated id reaches the store. The Content-Type is
 * sniffed from the stored bytes, never trusted from anywhere else; bytes that are not an allowed image
 * get 415. Failures are thrown: the service writes them as JSON and logs the store's (5xx) with their cause.
 */
export async function serveAvatar(
  ctx: Context,
  routePath: string,
  store: (() => Promise<AvatarStore>) | undefined,
): Promise<void> {
  ctx.set('Content-Disposition', 'inline; filename="avatar"');
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
    ctx.set('Allow', 'GET, HEAD');
    throw new AuthError('method_not_allowed', 'method not allowed');
  }
  if (!store) throw new AuthError('avatar_disabled', 'avatar proxy is disabled');
  // Exactly one segment after the prefix: `<prefix>/../x/<id>.image` is refused, not looked up by its last part.
  const id = ctx.path.slice(routePath.length + 1);
  if (!isAvatarId(id)) throw new AuthError('invalid_avatar_id', "can't load avatar");
  const found = await read(store, id);
  if (!found) throw new AuthError('avatar_not_found', "can't load avatar");
  // An empty body is the original no-op store's answer; there is nothing to sniff.
  const type = found.data.length === 0 ? 'image/*' : sniffImage(found.data);
  if (!type) throw new AuthError('invalid_avatar_content', 'invalid avatar content');
  const etag = `"${found.etag}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', MAX_AGE);
  if (etagMatches(ctx.get('If-None-Match'), etag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = type;
  ctx.body = found.data;
  ctx.length = found.data.length;
}

async function read(store: () => Promise<AvatarStore>, id: string) {
  try {
    return await (await store()).get(id);
  } catch (err) {
    if (err instanceof AuthError) throw err;
    // A backend that is away (a PostgreSQL store marks such errors) is an outage: 503, not a fault.
    const code = storeUnavailable(err) ? 'avatar_store_unavailable' : 'avatar_store_failed';
    throw new AuthError(code, "can't load avatar", { cause: err });
  }
}

/** If-None-Match against a quoted ETag: `*`, a comma list, weak `W/"…"` forms all match. */
export function etagMatches(header: string, etag: string): boolean {
  const value = header.trim();
  if (value === '') return false;
  if (value === '*') return true;
  return value.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
