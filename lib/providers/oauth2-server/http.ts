import type { Context } from 'koa';
import { readBody } from '../../http/body.js';

/**
 * Request and response plumbing of the local servers: forms and client credentials for both, Koa answers
 * for the local OAuth2 server (local.ts).
 */

/** Query parameters as single values; undefined when one is repeated (RFC 6749 §3.1). */
export function singleParams(p: URLSearchParams): Record<string, string> | undefined {
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of p) {
    if (k in out) return undefined;
    out[k] = v;
  }
  return out;
}

/** The first value of each field, in a null-prototype record (`__proto__` is a plain key). */
export function firstValues(p: URLSearchParams): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of p) out[k] ??= v;
  return out;
}

/** A urlencoded form body (capped at `limit`), first value of each field; any other type reads as empty. */
export async function readForm(ctx: Context, limit: number): Promise<Record<string, string>> {
  return firstValues(await readFormParams(ctx, limit));
}

/** A urlencoded form body (capped at `limit`) with every value; any other type reads as empty. */
export async function readFormParams(ctx: Context, limit: number): Promise<URLSearchParams> {
  const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  const raw = await readBody(ctx.req, limit);
  return new URLSearchParams(type === 'application/x-www-form-urlencoded' ? raw.toString('utf8') : '');
}

/** The `user:password` text of an HTTP Basic header, undecoded. */
export function basicText(header: string): string | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(header);
  return m ? Buffer.from(m[1], 'base64').toString('utf8') : undefined;
}

/** Client credentials from HTTP Basic; both parts are form-urlencoded (RFC 6749 §2.3.1). */
export function basicCredentials(header: string): { id: string; secret: string } | undefined {
  const decoded = basicText(header);
  if (decoded === undefined) return undefined;
  const i = decoded.indexOf(':');
  if (i < 0) return undefined;
  return { id: formDecoded(decoded.slice(0, i)), secret: formDecoded(decoded.slice(i + 1)) };
}

/** A form-urlencoded part of a Basic header; broken %-escapes are kept as sent (the id then matches no client). */
export function formDecoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** `to` with `params` added to its query (undefined ones left out). */
export function withParams(to: string, params: Record<string, string | undefined>): string {
  const target = new URL(to);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) target.searchParams.set(k, v);
  return target.href;
}

/** A 302 to `to` with `params` added to its query. */
export function redirect(ctx: Context, to: string, params: Record<string, string | undefined>): void {
  ctx.status = 302;
  ctx.redirect(withParams(to, params));
}

/** A plain-text answer. */
export function text(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = body + '\n';
}

/** A JSON answer (the token endpoint's and its OAuth2 errors). */
export function json(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body) + '\n';
}
