/** The authorization server's clients: what the endpoints import (only re-exports). */
export { readClientOptions } from './options.js';
export { clientDirectory } from './directory.js';
export { isRegisteredClientId } from './registry.js';
export { MAX_DOCUMENT_BYTES } from './cimd.js';
export { MAX_DOCUMENT_AGE_MS, HEURISTIC_AGE_MS } from './cache-headers.js';
export type { RegistrationAnswer } from './registration.js';
export type {
  AuthorizationServerClientOptions,
  ClientConfig,
  ClientDirectory,
  ClientDirectoryDeps,
  ClientError,
  ClientOptions,
  GrantType,
  OAuthClient,
  RegistrationLimitOptions,
} from './types.js';
