import type { Logger } from '../logger.js';
import type { AuthenticationConfig } from '../session/authenticator.js';
import type { LoginConfig } from '../session/login.js';
import type { TokenConfig } from '../session/token-service.js';
import type { TransportConfig } from '../session/transport.js';
import type { MiddlewareConfig } from '../middleware.js';
import type { RoutesConfig } from '../routes.js';
import type { ProviderEntry } from '../providers/core/provider.js';
import type { StateStore, StateTarget } from '../state/types.js';
import type { ThrottlePolicy } from '../state/throttle.js';
import type { AvatarStore, StoreTarget } from '../avatar/stores/types.js';
import type { AvatarTuning } from './types.js';
import type { FeatureModule } from '../features/contract.js';
import type { EventsConfig } from '../events/options.js';

/**
 * The options once checked, every default filled in: one flat object, read by each module through the
 * slice it declares itself (TokenConfig in the token service, TransportConfig in the transport, and so
 * on). The service holds the whole and hands each module the same object typed as its slice, so a
 * request reads its options from one object, as it did before there were slices.
 */
export type ResolvedOptions = TokenConfig &
  TransportConfig &
  LoginConfig &
  AuthenticationConfig &
  MiddlewareConfig &
  RoutesConfig &
  AvatarConfig &
  StateConfig &
  EventsConfig &
  ServiceConfig;

/** The avatar options, which the service turns into its avatar proxy's options. */
export interface AvatarConfig {
  /** The store URI parsed (parseStoreUri), the AvatarStore given, or none. */
  avatarStore: StoreTarget | AvatarStore | undefined;
  avatarRoutePath: string;
  avatarResizeLimit: number;
  avatarAllowPrivate: boolean;
  avatarProxyOptions: AvatarTuning;
}

/** Where login state and the failed-login counters live. */
export interface StateConfig {
  /** The state store URI parsed (`memory://` by default; see parseStateUri) or the StateStore object given. */
  stateStore: StateTarget | StateStore;
  /** undefined when throttling is off. */
  loginThrottle: ThrottlePolicy | undefined;
  /** How long start-up waits for each configured store, in ms (`storeCheckTimeout`). */
  storeCheckTimeoutMs: number;
  /** A store that cannot be reached at start-up is reported instead of rejecting `auth.ready`. */
  startWithStoresDown: boolean;
  /** A memory store may hold second factors and passkeys. */
  allowVolatileStores: boolean;
}

/** What the service reads itself: the providers to build, and what it hands them in ProviderDeps. */
export interface ServiceConfig {
  /** The public base URL, without a trailing slash. */
  url: string;
  providers: ProviderEntry[];
  keepHashedIds: boolean;
  /** A passkey or second factor added or removed ends the user's other sessions. */
  endOtherSessionsOnFactorChange: boolean;
  /** At most this many sessions per user in the session list: a login past it ends the oldest. */
  maxSessionsPerUser: number;
  /** The options of the built-in features, each checked by its reader (core/features.ts), by option name. */
  featureOptions: Readonly<Record<string, unknown>>;
  /**
   * The application's features (`features`), each checked on its own; as a set with the built-in ones in
   * core/features.ts.
   */
  features: FeatureModule[];
  logger: Logger;
  clock: () => number;
}
