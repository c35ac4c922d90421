/**
 * The personal tokens' own error codes, each with its one status: the feature's `errors`, added to the OpenAPI
 * document's `ErrorCode` enum when `tokens` is set. `insufficient_scope` is the core's: `scope()` is core
 * middleware.
 */
export const TOKEN_ERRORS = {
  /** A personal token at a route that manages factors, sessions, links, tokens or credentials. */
  token_not_allowed: 403,
  /** The user already holds `maxPerUser` live tokens. */
  too_many_tokens: 409,
  /** A scope the configuration does not list, or not a scope name. */
  invalid_scope: 400,
} as const;

declare module '../errors.js' {
  interface FeatureErrorCodes {
    token_not_allowed: true;
    too_many_tokens: true;
    invalid_scope: true;
  }
}
