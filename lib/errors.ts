/**
 * Every code an authkoa error carries, in one list (jose's habit: callers branch on codes, never on
 * message text). docs/tokens.md's error table gives each one's status and meaning, and a test keeps the
 * two equal.
 */
export const ERROR_CODES = [
  // Requests authkoa cannot use (400, 404, 405, 413, 415)
  'bad_request', 'bad_address', 'bad_user', 'missing_code', 'unknown_provider', 'not_found', 'method_not_allowed', 'body_too_large', 'unsupported_media_type',
  'invalid_avatar', 'invalid_avatar_id', 'invalid_avatar_content', 'avatar_not_found', 'avatar_disabled',
  'request_not_found', 'request_expired', 'request_not_verified',
  // Tokens and the route middleware (401, 403)
  'no_token', 'no_user', 'token_invalid', 'token_expired', 'token_not_valid_yet', 'xsrf_mismatch', 'aud_rejected', 'user_blocked',
  'provider_not_allowed', 'refresh_failed', 'session_expired', 'session_revoked', 'basic_auth_failed', 'not_admin', 'role_denied', 'webhook_unauthorized',
  'full_login_required',
  // Logins refused (403, 429)
  'bad_credentials', 'access_denied', 'state_mismatch', 'invalid_handshake', 'invalid_id_token', 'issuer_mismatch', 'bad_user_info',
  'origin_mismatch', 'confirmation_invalid', 'confirmation_expired', 'confirmation_used', 'rate_limited',
  // Passkeys (400, 401, 409)
  'challenge_invalid', 'passkey_invalid', 'passkey_unknown', 'passkey_exists',
  // The second factor and step-up (400, 401, 403, 409)
  'invalid_code', 'reauth_required', 'mfa_session_invalid', 'mfa_session_expired', 'factor_not_enrolled', 'totp_not_pending',
  // authkoa's own failures (500, 503)
  'internal_error', 'checker_failed', 'secret_unavailable', 'avatar_store_failed', 'state_store_unavailable', 'not_started', 'keys_unavailable',
  // A provider or a sender failed (502, 503)
  'provider_error', 'provider_unavailable', 'provider_timeout', 'exchange_failed', 'userinfo_failed', 'bad_provider_response',
  'response_too_large', 'sender_failed',
] as const;

/** One of ERROR_CODES. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The one error type every authkoa route and middleware throws. `status` is the HTTP status,
 * `code` a stable machine-readable identifier (documented in docs/tokens.md) callers branch on,
 * `message` a short human text that never carries secrets.
 */
export class AuthError extends Error {
  readonly status: number;
  readonly code: ErrorCode;

  constructor(status: number, code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthError';
    this.status = status;
    this.code = code;
  }
}

/** Shape of every error body authkoa writes. */
export interface ErrorBody {
  error: string;
  code: ErrorCode;
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

/**
 * Koa's convention for an error the application should hear of: `ctx.app.emit('error', err, ctx)`. A
 * listener that throws is the application's to handle: never rethrown into a request or a timer.
 */
export function emitOnApp(ctx: { app?: unknown }, err: Error): void {
  const app = ctx.app as { emit?: (event: string, ...args: unknown[]) => boolean } | undefined;
  if (typeof app?.emit !== 'function') return;
  try {
    app.emit('error', err, ctx);
  } catch {
    // The listener's own failure is the application's to handle; the answer stands.
  }
}
