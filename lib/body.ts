import type { Context } from 'koa';
import { AuthError } from './errors.js';

/** Largest request body authkoa reads (direct login, form posts): 1 MiB, as the original. */
export const BODY_LIMIT = 1024 * 1024;

/**
 * Reads the parameters of a login request as flat strings: the query for GET, a JSON object or a
 * urlencoded form for POST. Only string values are kept (nested values and arrays are dropped), into a
 * null-prototype object, so `__proto__` and friends are plain keys that change nothing.
 * A body parser the application installed earlier is honoured. Over `limit` → 413; unparsable → 400.
 */
export async function readParams(ctx: Context, limit = BODY_LIMIT): Promise<Record<string, string>> {
  const out: Record<string, string> = Object.create(null);
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
  const raw = await readRaw(ctx, limit);
  if (raw.length === 0) return out;
  if (type === 'application/json' || type.endsWith('+json')) {
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new AuthError(400, 'bad_request', 'failed to parse request body');
    }
    if (!json || typeof json !== 'object' || Array.isArray(json)) throw new AuthError(400, 'bad_request', 'request body must be a JSON object');
    copy(json);
  } else if (type === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) out[k] = v;
  } else {
    throw new AuthError(400, 'bad_request', 'request body must be JSON or a urlencoded form');
  }
  return out;
}

async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) {
    ctx.req.resume(); // drain, so the 413 reaches the client instead of a reset connection
    throw new AuthError(413, 'body_too_large', 'request body is too large');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.resume();
      throw new AuthError(413, 'body_too_large', 'request body is too large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
