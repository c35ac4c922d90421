import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { AuthError } from '../errors.js';

/** Largest request body authkoa reads (direct login, form posts): 1 MiB, as the original. */
export const BODY_LIMIT = 1024 * 1024;

/**
 * Reads the parameters of a login request as flat strings: the query for GET, a JSON object or a
 * urlencoded form for POST. Only string values are kept (nested values and arrays are dropped), into a
 * null-prototype object, so `__proto__` and friends are plain keys that change nothing.
 * A body parser the application installed earlier is honoured. Over `limit` → 413; unparsable → 400.
 */
export async function readParams(ctx: Context, limit = BODY_LIMIT): Promise<Record<string, string>> {
  const out = Object.create(null) as Record<string, string>;
  const copy = (src: unknown) => {
    if (!src || typeof src !== 'object') return;
    for (const [k, v] of Object.entries(src as Record<string, unknown>)) {
      if (typeof v === 'string') out[k] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    }
  };
  copy(ctx.query);
  if (ctx.method !== 'POST') return out;
  const parsed = (ctx.request as unknown as { body?: unknown }).body;
  if (parsed !== undefined) {
    copy(parsed);
    return out;
  }
  const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  const raw = await readBody(ctx.req, limit);
  if (raw.length === 0) return out;
  if (type === 'application/json' || type.endsWith('+json')) {
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new AuthError('bad_request', 'failed to parse request body');
    }
    if (!json || typeof json !== 'object' || Array.isArray(json))
      throw new AuthError('bad_request', 'request body must be a JSON object');
    copy(json);
  } else if (type === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) out[k] = v;
  } else {
    throw new AuthError('bad_request', 'request body must be JSON or a urlencoded form');
  }
  return out;
}

/**
 * The raw body of a request, refused with 413 `body_too_large` as soon as it declares or streams more
 * than `limit` bytes. What is left unread is drained, so the 413 reaches the client instead of a reset
 * connection. Every body authkoa reads (logins, the local servers' forms, webhooks) comes through here.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () => {
    req.resume();
    return new AuthError('body_too_large', 'request body is too large');
  };
  if (Number(req.headers['content-length'] || 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * A JSON body (an application's body parser honoured), capped at `limit`: 413 over it, 400 when it does
 * not parse. The body must say it is JSON (`application/json` or `…+json`), else 415: a form on another
 * site can post `text/plain` that parses as JSON without a preflight, but never `application/json`.
 */
export async function readJSON(ctx: Context, limit: number): Promise<unknown> {
  const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    ctx.req.resume();
    throw new AuthError('unsupported_media_type', 'the request body must be application/json');
  }
  const parsed = (ctx.request as unknown as { body?: unknown }).body;
  if (parsed !== undefined && typeof parsed === 'object') return parsed;
  const raw = await readBody(ctx.req, limit);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AuthError('bad_request', 'failed to parse request body');
  }
}
