/**
 * The bodies authkoa's routes answer, as the OpenAPI document (`auth.openapi()`) describes them.
 * Written by `npm run client-types` (scripts/client-types.ts) from lib/openapi/components.ts: do not edit.
 */

export type ErrorCode = "bad_request" | "bad_address" | "bad_user" | "missing_code" | "unknown_provider" | "not_found" | "method_not_allowed" | "body_too_large" | "unsupported_media_type" | "invalid_avatar" | "invalid_avatar_id" | "invalid_avatar_content" | "avatar_not_found" | "avatar_disabled" | "request_not_found" | "request_expired" | "request_not_verified" | "no_token" | "no_user" | "token_invalid" | "token_expired" | "token_not_valid_yet" | "xsrf_mismatch" | "aud_rejected" | "user_blocked" | "provider_not_allowed" | "refresh_failed" | "session_expired" | "session_revoked" | "basic_auth_failed" | "not_admin" | "role_denied" | "webhook_unauthorized" | "full_login_required" | "insufficient_scope" | "bad_credentials" | "aud_not_allowed" | "access_denied" | "state_mismatch" | "invalid_handshake" | "invalid_id_token" | "issuer_mismatch" | "foreign_user_id" | "bad_user_info" | "origin_mismatch" | "confirmation_invalid" | "confirmation_expired" | "confirmation_used" | "rate_limited" | "challenge_invalid" | "passkey_invalid" | "passkey_unknown" | "passkey_exists" | "invalid_code" | "reauth_required" | "internal_error" | "checker_failed" | "secret_unavailable" | "avatar_store_failed" | "avatar_store_unavailable" | "state_store_unavailable" | "not_started" | "keys_unavailable" | "provider_error" | "provider_unavailable" | "provider_timeout" | "exchange_failed" | "userinfo_failed" | "bad_provider_response" | "response_too_large" | "sender_failed" | "invalid_email" | "weak_password" | "signup_disabled" | "email_taken" | "account_changed" | "account_not_found" | "breach_check_unavailable" | "identity_in_use" | "account_exists" | "last_login_method" | "identity_is_account" | "link_not_found" | "link_ambiguous" | "token_not_allowed" | "too_many_tokens" | "invalid_scope" | "mfa_session_invalid" | "mfa_session_expired" | "enrollment_required" | "factor_not_enrolled" | "totp_not_pending";

export interface AccountLink {
  /** the identity: what `DELETE /links/{identity}` unlinks it by */
  id: string;
  provider: string;
  name?: string;
  email?: string;
  linked: string;
  /** the account's own identity: it cannot be unlinked */
  primary: boolean;
  [key: string]: unknown;
}

export interface PersonalToken {
  /** public: what DELETE names */
  id: string;
  name: string;
  scopes: string[];
  created: string;
  /** to the minute; null when never used */
  lastUsed: string | null;
  /** null: it does not expire */
  expires: string | null;
  [key: string]: unknown;
}

export interface NewPersonalToken {
  /** public: what DELETE names */
  id: string;
  name: string;
  scopes: string[];
  created: string;
  /** to the minute; null when never used */
  lastUsed: string | null;
  /** null: it does not expire */
  expires: string | null;
  /** the secret, `akp_…`: shown once */
  token: string;
  [key: string]: unknown;
}

export interface PersonalTokenRequest {
  name: string;
  scopes?: string[];
  expiresIn?: number | string;
}

/** The session user's second factors: TOTP on or off, the recovery codes left, the passkeys they have. */
export interface MfaFactors {
  totp: boolean;
  recoveryCodesLeft: number;
  passkeys: number;
}

/** A new authenticator-app key, not on until confirmed with a code it shows. */
export interface TotpSetup {
  /** the key in base32, to type into an app by hand */
  secret: string;
  /** the `otpauth://totp/…` URI the QR code holds */
  otpauthUrl: string;
  /** the QR code as a data URL, for an `<img src>` */
  qr: string;
}

/** TOTP turned on: the recovery codes, and the user when it finished a login that had to enrol (the session is set). */
export interface TotpConfirmed {
  /** shown once: each works once */
  recoveryCodes: string[];
  user?: User;
}

/** New recovery codes, replacing the old ones. */
export interface RecoveryCodes {
  /** shown once: each works once */
  recoveryCodes: string[];
}

export interface OAuthError {
  error: string;
  error_description?: string;
  [key: string]: unknown;
}

export interface OAuthTokens {
  /** a JWT, `typ` at+jwt (RFC 9068) */
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token?: string;
  /** with `openid`: an id_token (OpenID Connect Core §2) */
  id_token?: string;
  [key: string]: unknown;
}

export interface UserInfo {
  sub: string;
  [key: string]: unknown;
}

export interface ConnectedApp {
  clientId: string;
  clientName: string;
  scopes: string[];
  resources: string[];
  firstUsed: string;
  lastUsed: string;
  [key: string]: unknown;
}

/** Every error authkoa answers: a message for people and a code for programs. */
export interface ErrorBody {
  error: string;
  code: ErrorCode;
}

/** The user of a session: what /auth/user and every login answer (lib/user.ts). */
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
}

/** A first factor passed and a second step is due (docs/mfa.md): not an error. */
export interface MfaRequired {
  mfa_required: true;
  enroll_required?: boolean;
  factors: Array<"totp" | "recovery" | "passkey">;
}

export type ProviderList = string[] | Array<{
  name: string;
  kind: string;
}>;

export interface Status {
  status: "logged in" | "not logged in";
  user?: string;
}

/** The public keys session tokens are signed with (RFC 7517), the current one first. */
export interface KeySet {
  keys: PublicJwk[];
  [key: string]: unknown;
}

/** One public key as a JWK: its type's own members (`crv` and `x`, `y` or `n` and `e`) beside these. */
export interface PublicJwk {
  kty: "OKP" | "EC" | "RSA";
  /** the RFC 7638 thumbprint of the key, as the tokens name it in their header */
  kid: string;
  alg: "EdDSA" | "ES256" | "RS256";
  use: "sig";
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
  [key: string]: unknown;
}

/** One of the user's sessions (one per login, per browser), as the sessions list shows it. */
export interface Session {
  /** the session id (the token's `sid`), what ending one takes */
  sid: string;
  /** the session of the browser making the request */
  current: boolean;
  /** the provider the session logged in with */
  provider: string;
  /** a short label of the browser and system at the last refresh: "Chrome on macOS", "curl", "Unknown device" */
  device: string;
  /** when the session began (ISO 8601) */
  created: string;
  /** when it was last refreshed (ISO 8601) */
  lastSeen: string;
}

/** What `navigator.credentials.create()` takes, as JSON: a new passkey for the session user. */
export interface PasskeyCreationOptions {
  challenge: string;
  rp: {
    name: string;
    id?: string;
  };
  user: {
    id: string;
    name: string;
    displayName: string;
  };
  pubKeyCredParams: Array<{
    alg: number;
    type: "public-key";
  }>;
  timeout?: number;
  excludeCredentials?: Array<{
    id: string;
    type: "public-key";
    transports?: string[];
  }>;
  authenticatorSelection?: {
    authenticatorAttachment?: string;
    residentKey?: "required" | "preferred" | "discouraged";
    requireResidentKey?: boolean;
    userVerification?: "required" | "preferred" | "discouraged";
  };
  hints?: string[];
  attestation?: "none" | "indirect" | "direct" | "enterprise";
  attestationFormats?: string[];
  extensions?: Record<string, unknown>;
}

/** What `navigator.credentials.get()` takes, as JSON: a challenge for a passkey of the site (a login) or of one user (a second step). */
export interface PasskeyRequestOptions {
  challenge: string;
  timeout?: number;
  rpId?: string;
  allowCredentials?: Array<{
    id: string;
    type: "public-key";
    transports?: string[];
  }>;
  userVerification?: "required" | "preferred" | "discouraged";
  hints?: string[];
  extensions?: Record<string, unknown>;
}

/** A WebAuthn credential's JSON (a browser's `PublicKeyCredential.toJSON()`): what register, login and the second step read. */
export interface PasskeyCredential {
  id: string;
  rawId: string;
  type: "public-key";
  response: Record<string, unknown>;
  clientExtensionResults?: Record<string, unknown>;
  authenticatorAttachment?: string;
  [key: string]: unknown;
}

/** One of the user's passkeys as the list shows it: no key, no counter. */
export interface Passkey {
  id: string;
  /** Where it was added, from that request's User-Agent ("Chrome on macOS"); else "Unknown device". */
  device: string;
  createdAt: string;
  lastUsedAt: string | null;
  deviceType: "singleDevice" | "multiDevice";
  backedUp: boolean;
  transports: string[];
}
