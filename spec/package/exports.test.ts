import test from 'ava';
import { importSource } from '../helpers/source.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The public API, name by name: for every entry of package.json "exports" that has types, the names a
 * program gets at run time and the names only TypeScript sees. Adding, removing or renaming an export
 * fails here until the list below changes with it, so the public surface only moves on purpose (and the
 * change gets its CHANGELOG line). An application or a plug-in (a provider kind, a feature, a store)
 * imports these; what lib/ uses between its own modules is imported from those modules.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));

interface EntryNames {
  /** Values: what `import * as m` holds at run time. */
  runtime: string[];
  /** Declarations with no value: interfaces, type aliases, type-only re-exports. */
  types: string[];
}

/** The avatar stores' entry, also published as `./stores` (its earlier name). */
const AVATAR_STORES: EntryNames = {
  runtime: ['avatarId', 'migrate', 'openStore', 'parseStoreUri', 'prune'],
  types: [
    'AvatarEntry',
    'AvatarStore',
    'MigrateOptions',
    'MigrateResult',
    'PruneOptions',
    'PruneResult',
    'StoreTarget',
    'StoredAvatar',
  ],
};

const EXPECTED: Record<string, EntryNames> = {
  '.': {
    runtime: [
      'AUTH_EVENT_TYPES',
      'AccountError',
      'AuthError',
      'ERROR_CODES',
      'ERROR_STATUS',
      'authKoa',
      'boolAttr',
      'emailSender',
      'getUserInfo',
      'isAdmin',
      'isEmailAddress',
      'isPaidSub',
      'mfaAdmin',
      'mustGetUserInfo',
      'openStore',
      'provide',
      'providerUserId',
      'randomId',
      'readCookie',
      'readParams',
      'registerProvider',
      'registerStateStore',
      'registerStore',
      'serviceKey',
      'sessionFlag',
      'sessionOnly',
      'sessionsAdmin',
      'setAdmin',
      'setBoolAttr',
      'setSliceAttr',
      'setStrAttr',
      'sliceAttr',
      'strAttr',
    ],
    types: [
      'Account',
      'AccountConfirmedEvent',
      'AccountDeletedEvent',
      'AccountStore',
      'AccountUpdate',
      'AccountView',
      'AccountsAdminAPI',
      'AccountsOptions',
      'AnyAuthEventListener',
      'AppleProviderOptions',
      'AuditOption',
      'AuditStream',
      'AuthEvent',
      'AuthEventBase',
      'AuthEventListener',
      'AuthEventMap',
      'AuthEventType',
      'AuthKoa',
      'AuthKoaOptions',
      'AuthMiddleware',
      'AuthorizationServerAdmin',
      'AvatarEntry',
      'AvatarProxy',
      'AvatarPutOptions',
      'AvatarStore',
      'AvatarTuning',
      'BasicAuthChecker',
      'BasicAuthResult',
      'Claims',
      'ClaimsFunction',
      'ClaimsUpdater',
      'ClientFields',
      'CompletedLogin',
      'ConnectedApp',
      'CredentialUser',
      'CredentialsRevokedReason',
      'DeadLetter',
      'DevProviderOptions',
      'DirectProviderOptions',
      'Duration',
      'EmailChangedEvent',
      'EmailSender',
      'EmailSenderOptions',
      'ErrorBody',
      'ErrorCode',
      'ErrorHandler',
      'FactorStatus',
      'FactorStore',
      'Feature',
      'FeatureContext',
      'FeatureCredential',
      'FeatureErrorCode',
      'FeatureErrorCodes',
      'FeatureModule',
      'FeatureOpenAPI',
      'FullLogin',
      'Handshake',
      'KeyInput',
      'KindTokens',
      'LimitKey',
      'Limiter',
      'LockoutEvent',
      'LogFunc',
      'Logger',
      'LoginAttempt',
      'LoginEvent',
      'LoginFailedEvent',
      'LoginGate',
      'LoginIdentity',
      'LoginPage',
      'LoginPageHandler',
      'LoginStart',
      'LogoutEvent',
      'MappedUser',
      'MessageInfo',
      'MessageTemplate',
      'MessageTemplates',
      'MfaAdmin',
      'MfaChangedEvent',
      'MfaFailedEvent',
      'MfaOptions',
      'NewAccount',
      'NewPersonalToken',
      'OAuth2ProviderOptions',
      'OAuthClient',
      'OAuthToken',
      'OIDCProviderOptions',
      'OpenAPIDocument',
      'PasskeyAddedEvent',
      'PasskeyProviderOptions',
      'PasskeyRemovedEvent',
      'PasswordChangedEvent',
      'PasswordProviderOptions',
      'PasswordResetEvent',
      'PersonalTokenView',
      'PersonalTokensAdmin',
      'PersonalTokensOptions',
      'PostAuthHook',
      'PreAuthHook',
      'Provider',
      'ProviderCapabilities',
      'ProviderCapability',
      'ProviderDeps',
      'ProviderDepsWith',
      'ProviderEntry',
      'ProviderInfo',
      'ProviderKinds',
      'ProviderModule',
      'ProviderOptions',
      'Provision',
      'PublicJwk',
      'RefreshCache',
      'RefreshEvent',
      'RemovedFactors',
      'RequestAuth',
      'RequestToken',
      'ScryptParams',
      'SecondFactor',
      'SecretReader',
      'Sender',
      'SenderFunc',
      'ServerChecker',
      'ServerProviderOptions',
      'ServerUser',
      'ServiceKey',
      'SessionRecord',
      'SessionRevokedEvent',
      'SessionsAdmin',
      'SessionsAdminOptions',
      'SigningAlg',
      'SigningOptions',
      'SignupEvent',
      'SocialName',
      'SocialProviderOptions',
      'SsfAdmin',
      'SsfDeadLetter',
      'SsfDeliveryFailedEvent',
      'SsfOptions',
      'SsfPollReceiverOptions',
      'SsfPushReceiverOptions',
      'SsfReceiverOptions',
      'StandardClaims',
      'StateEntry',
      'StateStore',
      'StateStoreOpener',
      'StateStoreOptions',
      'StoreOpener',
      'StorePolicy',
      'StoredAccount',
      'StoredAvatar',
      'TelegramProviderOptions',
      'TelegramWebhookOptions',
      'TokenCreatedEvent',
      'TokenRevokedEvent',
      'TokenSource',
      'UsedTokenStore',
      'User',
      'UserFactors',
      'UserUpdater',
      'Validator',
      'VerifiedProviderOptions',
      'VerifiedRateLimit',
      'WebhookDisabledEvent',
      'WebhookEndpointOptions',
      'WebhookFailedEvent',
      'WebhooksAdmin',
    ],
  },
  './avatar-stores': AVATAR_STORES,
  './avatar-stores/file': {
    runtime: ['FileStore'],
    types: ['FileStoreOptions'],
  },
  './avatar-stores/lmdb': {
    runtime: ['LmdbStore'],
    types: [],
  },
  './avatar-stores/gridfs': {
    runtime: ['GridFsStore'],
    types: [],
  },
  './avatar-stores/postgres': {
    runtime: ['PostgresStore'],
    types: [],
  },
  './stores': AVATAR_STORES,
  './stores/file': {
    runtime: ['FileStore'],
    types: ['FileStoreOptions'],
  },
  './stores/lmdb': {
    runtime: ['LmdbStore'],
    types: [],
  },
  './stores/gridfs': {
    runtime: ['GridFsStore'],
    types: [],
  },
  './stores/postgres': {
    runtime: ['PostgresStore'],
    types: [],
  },
  './state': {
    runtime: [
      'createStateStore',
      'credentialThrottle',
      'memoryStateStore',
      'memoryUsedTokenStore',
      'openStateStore',
      'stateLimiter',
      'throttlePolicy',
    ],
    types: [
      'Attempt',
      'CredentialThrottle',
      'LimitKey',
      'Limiter',
      'LoginThrottleOptions',
      'MemoryUsedTokenStoreOptions',
      'StateEntry',
      'StateStore',
      'StateStoreOptions',
      'ThrottlePolicy',
      'UsedTokenStore',
    ],
  },
  './state/lmdb': {
    runtime: ['LmdbStateStore'],
    types: [],
  },
  './state/mongodb': {
    runtime: ['MongoStateStore'],
    types: [],
  },
  './state/redis': {
    runtime: ['RedisStateStore', 'openRedisStateStore'],
    types: ['RedisStateStoreOptions'],
  },
  './state/postgres': {
    runtime: ['PostgresStateStore', 'openPostgresStateStore'],
    types: ['PostgresStateStoreOptions'],
  },
  './verify': {
    runtime: ['AuthError', 'ERROR_STATUS', 'VerifyError', 'protectedResource', 'verifier'],
    types: [
      'ErrorCode',
      'ProtectedResource',
      'ProtectedResourceAuth',
      'ProtectedResourceEventsOptions',
      'ProtectedResourceOptions',
      'VerifiedClaims',
      'Verifier',
      'VerifierEvent',
      'VerifierEventType',
      'VerifierEventsOptions',
      'VerifierListener',
      'VerifierLogger',
      'VerifierOptions',
    ],
  },
  './dev': {
    runtime: ['devProvider', 'runDevOAuthServer', 'startDevOAuthServer'],
    types: ['DevOAuthServer', 'DevOAuthServerOptions', 'DevProviderOptions'],
  },
  './server': {
    runtime: ['serverProvider', 'startOAuth2Server'],
    types: [
      'ClaimsFunction',
      'IdTokenAlg',
      'LoginPage',
      'LoginPageHandler',
      'OAuth2Server',
      'OAuth2ServerClient',
      'OAuth2ServerOptions',
      'ServerChecker',
      'ServerProviderOptions',
      'ServerUser',
      'StandardClaims',
    ],
  },
  './browser': {
    runtime: [
      'AuthClientError',
      'MfaError',
      'PasskeyError',
      'RestClientError',
      'SessionError',
      'VERSION',
      'confirmTotp',
      'default',
      'disableTotp',
      'endOtherSessions',
      'endSession',
      'listSessions',
      'loginWithPasskey',
      'mfaStatus',
      'newRecoveryCodes',
      'registerPasskey',
      'restClient',
      'setupTotp',
      'verifyMfa',
      'verifyMfaWithPasskey',
    ],
    types: [
      'AjaxSettings',
      'DefaultVerbs',
      'Id',
      'JQueryLike',
      'LoginWithPasskeyOptions',
      'MfaOptions',
      'MfaPending',
      'MfaSummary',
      'MfaUser',
      'PasskeyUser',
      'RegisterPasskeyOptions',
      'RequestFn',
      'ResolvedOptions',
      'Resource',
      'ResourceAdder',
      'ResourceBase',
      'RestCache',
      'RestClient',
      'RestClientConstructor',
      'RestClientErrorCode',
      'RestOptions',
      'RestPromise',
      'SessionInfo',
      'SessionsOptions',
      'TotpSetup',
      'Verb',
      'VerbArg',
      'VerbMap',
      'XhrLike',
    ],
  },
  './client': {
    runtime: ['AuthClientError', 'createAuthClient', 'default'],
    types: [
      'AccountCallOptions',
      'AccountLink',
      'AuthClient',
      'AuthClientOptions',
      'CallOptions',
      'CheckEmail',
      'ClientErrorCode',
      'ConfirmResult',
      'ConnectedApp',
      'ErrorBody',
      'ErrorCode',
      'GrantCallOptions',
      'KeySet',
      'LinkCallOptions',
      'LinkStartOptions',
      'LoginRedirectOptions',
      'LoginResult',
      'Mediation',
      'MfaFactors',
      'MfaRequired',
      'MfaStatus',
      'NewPersonalToken',
      'Passkey',
      'PasskeyCallOptions',
      'PasskeyCreationOptions',
      'PasskeyCredential',
      'PasskeyRequestOptions',
      'PersonalToken',
      'PersonalTokenRequest',
      'ProviderInfo',
      'ProviderList',
      'PublicJwk',
      'RecoveryCodes',
      'Session',
      'SignupInput',
      'Status',
      'TokenCallOptions',
      'TotpConfirmed',
      'TotpSetup',
      'User',
      'WebAuthnDevice',
    ],
  },
};

/** "./dist/lib/state/index.d.ts" → "lib/state/index.ts": the source the built entry comes from. */
function sourceOf(typesPath: string): string {
  return typesPath.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts');
}

function publicEntries(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types?: string }>;
  };
  const entries = new Map<string, string>();
  for (const [name, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'object' && target.types) entries.set(name, sourceOf(target.types));
  }
  return entries;
}

/** Every name each source file exports, as the TypeScript compiler resolves them (re-exports followed). */
function declaredNames(files: string[]): Map<string, string[]> {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram({ rootNames: files.map((f) => join(root, f)), options });
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  for (const file of files) {
    const source = program.getSourceFile(join(root, file));
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${file}: not a module the compiler found`);
    names.set(
      file,
      checker
        .getExportsOfModule(module)
        .map((s) => s.name)
        .sort(),
    );
  }
  return names;
}

const entries = publicEntries();
const declared = declaredNames([...new Set(entries.values())]);

for (const [entry, file] of entries) {
  test(`${entry} (${file}) exports exactly the listed names`, async (t) => {
    const mod = await importSource<Record<string, unknown>>(join(root, file));
    const runtime = Object.keys(mod).sort();
    const all = declared.get(file) ?? [];
    const types = all.filter((name) => !runtime.includes(name));
    t.deepEqual({ runtime, types }, EXPECTED[entry], `update EXPECTED['${entry}'] only for a deliberate API change`);
  });
}

test('every entry with types is listed, and every listed entry exists', (t) => {
  t.deepEqual(Object.keys(EXPECTED).sort(), [...entries.keys()].sort());
});
