/** authkoa's public API. Nothing is implemented here; this file only chooses what is exported. */
export { authKoa, type AuthKoa } from './service.js';
export type {
  AuthKoaOptions,
  BasicAuthChecker,
  BasicAuthResult,
  ClaimsUpdater,
  Duration,
  ErrorHandler,
  PostAuthHook,
  PreAuthHook,
  RefreshCache,
  SecretReader,
  UserUpdater,
  Validator,
} from './options.js';
export { getUserInfo, mustGetUserInfo, type AuthMiddleware } from './middleware.js';
export { TokenService, randomId, type Claims, type Handshake, type RequestToken, type TokenSource } from './token.js';
export {
  boolAttr,
  hashId,
  isAdmin,
  isPaidSub,
  providerUserId,
  setAdmin,
  setBoolAttr,
  setSliceAttr,
  setStrAttr,
  sha1,
  sliceAttr,
  strAttr,
  type User,
} from './user.js';
export { AuthError, type ErrorBody } from './errors.js';
export { registerProvider, type Provider, type ProviderDeps, type ProviderModule, type ProviderOptions, type ProviderEntry } from './registry.js';
export type { CompletedLogin } from './login.js';
export type { AvatarProxy, AvatarProxyOptions } from './avatar.js';
export type { AvatarTuning } from './options.js';
export {
  openStore,
  parseStoreUri,
  migrate,
  prune,
  type PruneOptions,
  type PruneResult,
  avatarId,
  isAvatarId,
  type AvatarStore,
  type AvatarEntry,
  type StoredAvatar,
  type MigrateResult,
  type MigrateOptions,
} from './stores/index.js';
export { funcLogger, noopLogger, stdLogger, type Logger, type LogFunc } from './logger.js';
export type { DirectProviderOptions } from './providers/index.js';
export {
  emailSender,
  isEmailAddress,
  type EmailSender,
  type EmailSenderOptions,
  type Sender,
  type SenderFunc,
  type VerifiedProviderOptions,
  type VerifiedRateLimit,
} from './providers/index.js';
export {
  runDevOAuthServer,
  startDevOAuthServer,
  type DevOAuthServer,
  type DevOAuthServerOptions,
  type DevProviderOptions,
  type MappedUser,
  type OAuth2ProviderOptions,
  type OIDCProviderOptions,
  type SocialProviderOptions,
} from './providers/index.js';
export type { OAuthToken } from './providers/oauth2.js';
export {
  startOAuth2Server,
  type AppleProviderOptions,
  type LoginPage,
  type LoginPageHandler,
  type OAuth2Server,
  type OAuth2ServerClient,
  type OAuth2ServerOptions,
  type ServerChecker,
  type ServerProviderOptions,
  type ServerUser,
} from './providers/index.js';
export { memoryUsedTokenStore, type MemoryUsedTokenStoreOptions, type UsedTokenStore } from './state.js';
export {
  createStateStore,
  LmdbStateStore,
  memoryStateStore,
  MongoStateStore,
  openStateStore,
  type StateEntry,
  type StateStore,
  type StateStoreOptions,
} from './state/index.js';
export type { TelegramProviderOptions, TelegramWebhookOptions } from './providers/telegram.js';
