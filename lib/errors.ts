import type { Context } from 'koa';

/**
 * The one error type every authkoa route and middleware throws. `status` is the HTTP status,
 * `code` a stable machine-readable identifier (documented in docs/tokens.md) callers branch on,
 * `message` a short human text that never carries secrets.
 */
export class AuthError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthError';
    this.status = status;
    this.code = code;
  }
}

/** Shape of every error body authkoa writes. */
export interface ErrorBody {
  error: string;
  code: string;
}

/** Headers every auth and avatar response carries, redirects included (reference §3.1). */
export function setDefenceHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', "default-src 'none'; sandbox; frame-ancestors 'none'");
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/**
 * Writes `{"error","code"}` with the error's status. Anything that is not an AuthError becomes
 * a 500 with a fixed message, so stack traces and library messages never reach a client.
 */
export function writeError(ctx: Context, err: unknown): void {
  const e = toAuthError(err);
  ctx.status = e.status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = JSON.stringify({ error: e.message, code: e.code } satisfies ErrorBody) + '\n';
}

/** Normalises anything thrown into an AuthError; unknown errors become an opaque 500. */
export function toAuthError(err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  const status = (err as { status?: unknown; expose?: unknown } | null)?.status;
  // Koa/http-errors mark client errors as exposable (e.g. a 413 from a body reader).
  if (typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: boolean }).expose) {
    return new AuthError(status, 'bad_request', String((err as Error).message));
  }
  return new AuthError(500, 'internal_error', 'internal error', { cause: err });
}
