/**
 * authkoa's public API: what an application writes against and the interfaces a plug-in implements.
 * Nothing is implemented here, and importing it loads Koa-level code only: provider kinds and store
 * backends load when a configuration names them. Concrete stores, state stores and the development
 * servers live behind subpath exports (`authkoa/stores` and `/file`, `/lmdb`, `/gridfs`; `authkoa/state`
 * and `/lmdb`, `/mongodb`, `/redis`; `authkoa/dev`; `authkoa/server`).
 * Implementation classes stay out: a plug-in gets their narrow interface (`KindTokens`, not the token
 * service). spec/package/exports.test.ts lists every name, so a change here is made on purpose.
 */
export { authKoa } from './service.js';
export type { AuthKoa, ProviderInfo } from './instance.js';
export { sessionsAdmin, type SessionRecord, type SessionsAdmin, type SessionsAdminOptions } from './sessions/admin.js';
export type { KeyInput, PublicJwk, SigningAlg, SigningOptions } from './session/signing.js';
export type {
  AuthKoaOptions,
  AvatarTuning,
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
} from './options/types.js';
export { getUserInfo, mustGetUserInfo, type AuthMiddleware } from './middleware.js';
export type { Claims, Handshake, RequestToken, TokenSource } from './session/claims.js';
export {
  boolAttr,
  isAdmin,
  isPaidSub,
  providerUserId,
  setAdmin,
  setBoolAttr,
  setSliceAttr,
  setStrAttr,
  sliceAttr,
  strAttr,
  type RequestAuth,
  type User,
} from './user.js';
export {
  AuthError,
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  type FeatureErrorCode,
  type FeatureErrorCodes,
} from './errors.js';
export type {
  Feature,
  FeatureContext,
  CredentialUser,
  CredentialsRevokedReason,
  FeatureCredential,
  FeatureModule,
  FeatureOpenAPI,
  FullLogin,
  LoginAttempt,
  LoginGate,
  LoginIdentity,
  LoginStart,
} from './features/contract.js';
export { provide, serviceKey, type Provision, type ServiceKey } from './util/service-key.js';
export {
  registerProvider,
  registerStateStore,
  registerStore,
  type KindTokens,
  type Provider,
  type ProviderCapabilities,
  type ProviderCapability,
  type ProviderDeps,
  type ProviderDepsWith,
  type ProviderEntry,
  type ProviderModule,
  type ProviderOptions,
  type StateStoreOpener,
  type StoreOpener,
} from './registry.js';
// The pure helpers of a provider kind (what ProviderDeps does not carry).
export { randomId, readCookie, readParams, sessionFlag, sessionOnly } from './providers/kit.js';
export type { CompletedLogin } from './session/login.js';
export type { StorePolicy } from './util/store-policy.js';
export type { SecondFactor } from './providers/core/provider.js';
export type { MfaOptions } from './mfa/options.js';
// The `mfa.store` contract an application's own store implements (docs/mfa.md#a-factor-store-of-your-own).
export type { FactorStore, UserFactors } from './mfa/store.js';
// The second factor's admin API, as `auth.mfa` and `authctl mfa` use it over a store; its events' types.
export { mfaAdmin, type FactorStatus, type MfaAdmin, type RemovedFactors } from './mfa/admin.js';
export type { MfaChangedEvent, MfaFailedEvent } from './mfa/events.js';
// The OAuth 2.1 authorization server's admin API (`auth.authorizationServer`, `authctl oauth`) and what it answers.
export type { AuthorizationServerAdmin, ConnectedApp } from './authorization-server/admin.js';
export type { OAuthClient } from './authorization-server/clients/types.js';
// Accounts (the `accounts` option and the `password` kind): the store contract an application's own users table
// implements, the admin API (`auth.accounts`), the options and the events' types. See docs/accounts.md.
export type { Account, AccountStore, AccountUpdate, StoredAccount } from './accounts/store.js';
export type { AccountsOptions } from './accounts/options.js';
export type { AccountsAdminAPI } from './accounts/service.js';
export type { AccountView, NewAccount } from './accounts/admin.js';
export { AccountError } from './accounts/errors.js';
export type { PasswordProviderOptions } from './accounts/password/options.js';
export type { MessageTemplate, MessageTemplates } from './accounts/password/messages.js';
export type { ScryptParams } from './accounts/password-hash.js';
export type {
  AccountConfirmedEvent,
  AccountDeletedEvent,
  EmailChangedEvent,
  PasswordChangedEvent,
  PasswordResetEvent,
  SignupEvent,
} from './accounts/events.js';
// Personal access tokens (the `tokens` option): its options, the admin API (`auth.tokens.list/revoke`), a token as
// listed, the events' types. See docs/accounts.md#personal-access-tokens.
export type { PersonalTokensOptions } from './personal-tokens/options.js';
export type { PersonalTokensAdmin } from './personal-tokens/service.js';
export type { NewPersonalToken, PersonalTokenView } from './personal-tokens/views.js';
export type { TokenCreatedEvent, TokenRevokedEvent } from './personal-tokens/events.js';
export type { WebhookFailedEvent, WebhookDisabledEvent } from './webhooks/events.js';
export type { WebhookEndpointOptions } from './webhooks/options.js';
export type { WebhooksAdmin, DeadLetter } from './webhooks/service.js';
export type { SsfDeliveryFailedEvent } from './ssf/events.js';
export type { SsfOptions, SsfReceiverOptions, SsfPushReceiverOptions, SsfPollReceiverOptions } from './ssf/options.js';
export type { SsfAdmin, SsfDeadLetter } from './ssf/service.js';
export type { AvatarProxy, AvatarPutOptions } from './avatar/proxy.js';
// From their own modules: stores/index.ts would load migrate() and prune() too.
export { openStore } from './avatar/stores/open.js';
export type { AvatarEntry, AvatarStore, StoredAvatar } from './avatar/stores/types.js';
export type { LimitKey, StateEntry, StateStore, StateStoreOptions } from './state/types.js';
export type { Limiter } from './state/limiter.js';
export type { UsedTokenStore } from './state/used-tokens.js';
export type { Logger, LogFunc } from './logger.js';
export { AUTH_EVENT_TYPES } from './events/types.js';
export type {
  AuthEvent,
  AuthEventBase,
  AuthEventListener,
  AnyAuthEventListener,
  AuthEventMap,
  AuthEventType,
  ClientFields,
  LockoutEvent,
  LoginEvent,
  LoginFailedEvent,
  LogoutEvent,
  PasskeyAddedEvent,
  PasskeyRemovedEvent,
  RefreshEvent,
  SessionRevokedEvent,
} from './events/types.js';
export type { AuditOption, AuditStream } from './events/options.js';
export type { OpenAPIDocument } from './openapi/document.js';
export { emailSender, isEmailAddress, type EmailSender, type EmailSenderOptions } from './providers/verified/email.js';
export type { MessageInfo, Sender, SenderFunc } from './providers/verified/sender.js';
// Option types of the built-in kinds: types only, so no provider module loads with them. entries.js also
// enters them into ProviderKinds, which types `providers`.
export type { ProviderKinds, SocialName } from './providers/core/entries.js';
export type { DirectProviderOptions } from './providers/direct.js';
export type { VerifiedProviderOptions, VerifiedRateLimit } from './providers/verified.js';
export type { SocialProviderOptions } from './providers/social.js';
export type { MappedUser, OAuth2ProviderOptions } from './providers/oauth2.js';
export type { OAuthToken } from './providers/oauth2/flow.js';
export type { OIDCProviderOptions } from './providers/oidc.js';
export type { DevProviderOptions } from './providers/dev.js';
export type { ServerProviderOptions } from './providers/server.js';
export type { LoginPage, LoginPageHandler, ServerChecker, ServerUser } from './providers/oauth2-server/local.js';
export type { ClaimsFunction, StandardClaims } from './providers/oauth2-server/claims.js';
export type { AppleProviderOptions } from './providers/apple.js';
export type { TelegramProviderOptions, TelegramWebhookOptions } from './providers/telegram.js';
export type { PasskeyProviderOptions } from './providers/passkey.js';
