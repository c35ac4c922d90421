/**
 * Every code an authkoa error carries, each with its one HTTP status (jose's habit: callers branch on
 * codes, never on message text). An AuthError takes its status from here, never from the place that
 * throws it. docs/tokens.md's error table gives each code's status and meaning, and a test keeps the two
 * equal; the order is that of the OpenAPI document's `ErrorCode` enum and the generated client types.
 */
export const ERROR_STATUS = {
  // Requests authkoa cannot use
  bad_request: 400,
  bad_address: 400,
  bad_user: 400,
  missing_code: 400,
  unknown_provider: 400,
  not_found: 404,
  method_not_allowed: 405,
  body_too_large: 413,
  unsupported_media_type: 415,
  invalid_avatar: 400,
  invalid_avatar_id: 400,
  invalid_avatar_content: 415,
  avatar_not_found: 404,
  avatar_disabled: 404,
  request_not_found: 404,
  request_expired: 404,
  request_not_verified: 404,
  // Tokens and the route middleware
  no_token: 401,
  no_user: 401,
  token_invalid: 401,
  token_expired: 401,
  token_not_valid_yet: 401,
  xsrf_mismatch: 401,
  aud_rejected: 401,
  user_blocked: 401,
  provider_not_allowed: 401,
  refresh_failed: 401,
  session_expired: 401,
  session_revoked: 401,
  basic_auth_failed: 401,
  not_admin: 403,
  role_denied: 403,
  webhook_unauthorized: 401,
  full_login_required: 403,
  insufficient_scope: 403,
  // Logins refused
  bad_credentials: 403,
  aud_not_allowed: 403,
  access_denied: 403,
  state_mismatch: 403,
  invalid_handshake: 403,
  invalid_id_token: 403,
  issuer_mismatch: 403,
  foreign_user_id: 403,
  bad_user_info: 502,
  origin_mismatch: 403,
  confirmation_invalid: 403,
  confirmation_expired: 403,
  confirmation_used: 403,
  rate_limited: 429,
  // Passkeys
  challenge_invalid: 400,
  passkey_invalid: 401,
  passkey_unknown: 401,
  passkey_exists: 409,
  // The second factor and step-up (the second factor's own codes are its feature's: lib/mfa/errors.ts)
  invalid_code: 403,
  reauth_required: 401,
  // authkoa's own failures
  internal_error: 500,
  checker_failed: 500,
  secret_unavailable: 500,
  avatar_store_failed: 500,
  avatar_store_unavailable: 503,
  state_store_unavailable: 503,
  not_started: 503,
  keys_unavailable: 503,
  // A provider or a sender failed
  provider_error: 502,
  provider_unavailable: 503,
  provider_timeout: 503,
  exchange_failed: 502,
  userinfo_failed: 503,
  bad_provider_response: 502,
  response_too_large: 502,
  sender_failed: 502,
} as const satisfies Record<string, number>;

/** One of ERROR_CODES. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The codes of features outside the package (docs/features.md), by declaration merging: a feature's
 * package declares `interface FeatureErrorCodes { terms_required: true }` in `declare module 'authkoa'`,
 * and `AuthError.code` then includes it. Empty here: a feature's codes are its own, the built-in second
 * factor's too (lib/mfa/errors.ts), and they come with the feature.
 */
// Empty by design: a feature adds its codes by declaration merging.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface FeatureErrorCodes {}

/** A code a feature declared (FeatureErrorCodes). */
export type FeatureErrorCode = Extract<keyof FeatureErrorCodes, string>;

/** Whether `code` is one of authkoa's own (ERROR_STATUS), not a feature's. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}

/** Every code, in the order of ERROR_STATUS. */
export const ERROR_CODES: readonly ErrorCode[] = Object.freeze(Object.keys(ERROR_STATUS) as ErrorCode[]);

/**
 * The one error type every authkoa route, middleware and verifier (`authkoa/verify`) throws. `code` is
 * a stable machine-readable identifier callers branch on, `status` its HTTP status from ERROR_STATUS,
 * `message` a short human text that never carries secrets.
 */
export class AuthError extends Error {
  readonly status: number;
  readonly code: ErrorCode | FeatureErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    // A caller in plain JavaScript may still pass the former (status, code, message): name the argument.
    if (!Object.hasOwn(ERROR_STATUS, code)) {
      throw new TypeError(`AuthError: code must be one of ERROR_CODES (got ${JSON.stringify(code)})`);
    }
    super(message, options);
    this.name = 'AuthError';
    this.status = ERROR_STATUS[code];
    this.code = code;
  }
}

/**
 * An AuthError with a feature's own code, at the status the feature declared for it: what a feature's
 * `context.error()` makes. The feature's table is checked at start-up (features/plan.ts), so here the
 * code and status are taken as they are.
 */
export function featureError(code: string, status: number, message: string, options?: { cause?: unknown }): AuthError {
  const err = new AuthError('internal_error', message, options);
  // The one place an AuthError's code and status are not ERROR_STATUS's: set once, before anyone sees it.
  return Object.assign(err, { code: code as FeatureErrorCode, status });
}

/** Shape of every error body authkoa writes. */
export interface ErrorBody {
  error: string;
  code: ErrorCode | FeatureErrorCode;
}

/** The code an exposable client error of Koa or http-errors becomes, by its status; any other 4xx is bad_request. */
const EXPOSED: Partial<Record<number, ErrorCode>> = {
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'body_too_large',
  415: 'unsupported_media_type',
};

/** Normalises anything thrown into an AuthError; unknown errors become an opaque 500. */
export function toAuthError(err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  const status = (err as { status?: unknown; expose?: unknown } | null)?.status;
  // Koa/http-errors mark client errors as exposable (e.g. a 413 from a body reader).
  if (typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: boolean }).expose) {
    return new AuthError(EXPOSED[status] ?? 'bad_request', String((err as Error).message));
  }
  return new AuthError('internal_error', 'internal error', { cause: err });
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
