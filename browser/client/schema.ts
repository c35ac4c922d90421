/**
 * The bodies authkoa's routes answer, as the OpenAPI document (`auth.openapi()`) describes them.
 * Written by `npm run client-types` (scripts/client-types.ts) from lib/openapi/components.ts: do not edit.
 */

export type ErrorCode = "bad_request" | "bad_address" | "bad_user" | "missing_code" | "unknown_provider" | "not_found" | "method_not_allowed" | "body_too_large" | "unsupported_media_type" | "invalid_avatar" | "invalid_avatar_id" | "invalid_avatar_content" | "avatar_not_found" | "avatar_disabled" | "request_not_found" | "request_expired" | "request_not_verified" | "no_token" | "no_user" | "token_invalid" | "token_expired" | "token_not_valid_yet" | "xsrf_mismatch" | "aud_rejected" | "user_blocked" | "provider_not_allowed" | "refresh_failed" | "session_expired" | "session_revoked" | "basic_auth_failed" | "not_admin" | "role_denied" | "webhook_unauthorized" | "bad_credentials" | "access_denied" | "state_mismatch" | "invalid_handshake" | "invalid_id_token" | "issuer_mismatch" | "bad_user_info" | "origin_mismatch" | "confirmation_invalid" | "confirmation_expired" | "confirmation_used" | "rate_limited" | "challenge_invalid" | "passkey_invalid" | "passkey_unknown" | "passkey_exists" | "invalid_code" | "reauth_required" | "mfa_session_invalid" | "mfa_session_expired" | "factor_not_enrolled" | "totp_not_pending" | "internal_error" | "checker_failed" | "secret_unavailable" | "avatar_store_failed" | "state_store_unavailable" | "not_started" | "keys_unavailable" | "provider_error" | "provider_unavailable" | "provider_timeout" | "exchange_failed" | "userinfo_failed" | "bad_provider_response" | "response_too_large" | "sender_failed";

/** Every error authkoa answers: a message for people and a code for programs. */
export interface ErrorBody {
  error: string;
  code: ErrorCode;
}

export interface User {
  name: string;
  /** `<provider>_<sha1 hex>` for most providers */
  id: string;
  /** the proxied avatar URL, or "" */
  picture: string;
  aud?: string;
  ip?: string;
  email?: string;
  role?: string;
  attrs?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A first factor passed and a second step is due (docs/mfa.md): not an error. */
export interface MfaRequired {
  mfa_required: true;
  enroll_required?: boolean;
  factors: string[];
  [key: string]: unknown;
}

export type ProviderList = string[] | Array<{
  name: string;
  kind: string;
}>;

export interface Status {
  status: "logged in" | "not logged in";
  user?: string;
}

export interface KeySet {
  keys: Array<Record<string, unknown>>;
  [key: string]: unknown;
}

export interface Session {
  sid: string;
  current: boolean;
  provider: string;
  device: string;
  created: string;
  lastSeen: string;
}
