import type { AuthEventBus } from './events/bus.js';
import type { OpenAPIDocument } from './openapi/document.js';
import type { AuthEventListener, AuthEventType } from './events/types.js';
import type { Middleware } from 'koa';
import type { AvatarProxy } from './avatar/types.js';
import type { AuthMiddleware } from './middleware.js';
import type { FactorSummary } from './mfa/factors.js';
import type { Mfa } from './mfa/service.js';
import type { ResolvedOptions } from './options/resolved.js';
import type { ProviderRegistry } from './providers/core/resolve.js';
import type { SessionRecord, SessionRegistry } from './session/devices.js';
import type { TokenService } from './session/token-service.js';

/** What `authKoa()` returns: a Koa middleware serving the auth and avatar routes, plus the tools around it. */
export interface AuthKoa extends Middleware {
  /** auth, admin, trace, rbac(...roles), updateUser. */
  readonly middleware: AuthMiddleware;
  readonly tokenService: TokenService;
  readonly avatarProxy: AvatarProxy;
  readonly providers: ProviderRegistry;
  /** The validated options with defaults filled in. */
  readonly options: ResolvedOptions;
  /**
   * Settles once every configured provider kind and backend is loaded, every configured store answered
   * (within `storeCheckTimeout`) and every provider created. Rejects with the start-up error (a bad
   * provider option, a missing optional package, a store that cannot be reached), naming the option;
   * the instance then closes what it had started (close() waits for it). Await it before listening.
   */
  readonly ready: Promise<void>;
  /**
   * Ends every session of `userId` issued up to now, but the session `except` (a `sid`) when given, in
   * every process sharing the state store: their tokens are refused at their next refresh (within
   * `tokenDuration`), or at once with `strictRevocation`.
   */
  revokeSessions(userId: string, opts?: { except?: string }): Promise<void>;
  /** The user's sessions, one per login (per device), newest first; and ending one of them. See docs/sessions.md. */
  readonly sessions: {
    list(userId: string): Promise<SessionRecord[]>;
    /** False when the user has no session `sid`. */
    revoke(userId: string, sid: string): Promise<boolean>;
  };
  /**
   * The second factor (the `mfa` option), for the application's own admin pages: a user's factors, and
   * their removal after a lost phone (as `authctl mfa reset`). Undefined when `mfa` is not set.
   */
  readonly mfa: { status(userId: string): Promise<FactorSummary>; reset(userId: string): Promise<boolean> } | undefined;
  /**
   * Listens to one type of auth event (docs/events.md): `login`, `login_failed`, `lockout`, `logout`,
   * `refresh`, `session_revoked`, `passkey_added`, `passkey_removed`, `mfa_changed`, `mfa_failed`.
   * Listeners run after the answer is sent; one that throws, rejects or is still running after
   * `eventListenerTimeout` is reported through Koa's `app.emit('error')`. An unknown type is a TypeError.
   */
  on<T extends AuthEventType>(type: T, listener: AuthEventListener<T>): void;
  /** Stops a listener added with on(). */
  off<T extends AuthEventType>(type: T, listener: AuthEventListener<T>): void;
  /**
   * The OpenAPI 3.1 description of the routes this configuration serves (docs/openapi.md), once
   * start-up has built the providers: the core, provider, feature and avatar routes, the error body with
   * every code, the ways a session is carried.
   */
  openapi(): Promise<OpenAPIDocument>;
  /** Stops everything the instance started: provider servers and pollers, the avatar store and its workers, the state store it opened. */
  close(): Promise<void>;
}

/** What the instance's methods are made of. */
export interface InstanceParts {
  middleware: AuthMiddleware;
  tokenService: TokenService;
  avatarProxy: AvatarProxy;
  providers: ProviderRegistry;
  options: ResolvedOptions;
  /** Start-up: the methods that use the state store wait for it. */
  starting: Promise<void>;
  registry: SessionRegistry;
  mfa: Mfa | undefined;
  events: AuthEventBus;
  /** Closes what the instance started. */
  close(): Promise<void>;
}

/** The tools beside the middleware (everything of AuthKoa but the middleware function itself). */
export function instanceApi(p: InstanceParts): Omit<AuthKoa, keyof Middleware | never> & Record<string, unknown> {
  const started = <T>(f: () => Promise<T>) => p.starting.then(f);
  let closed: Promise<void> | undefined;
  return {
    middleware: p.middleware,
    tokenService: p.tokenService,
    avatarProxy: p.avatarProxy,
    providers: p.providers,
    options: p.options,
    // The caller's own promise: left unhandled, a start-up failure stops the process with its message.
    ready: p.starting.then(() => undefined),
    revokeSessions: (userId: string, opts?: { except?: string }) => started(() => p.registry.revokeAll(userId, opts?.except)),
    sessions: {
      list: (userId: string) => started(() => p.registry.list(userId)),
      revoke: (userId: string, sid: string) => started(() => p.registry.revoke(userId, sid)),
    },
    mfa: p.mfa && {
      status: (userId: string) => started(() => p.mfa!.status(userId)),
      reset: (userId: string) => started(() => p.mfa!.reset(userId)),
    },
    on: (type, listener) => p.events.on(type, listener),
    // Loaded when asked for: describing the routes is no part of serving them.
    openapi: () => started(async () => (await import('./openapi/describe.js')).describe(p.options, p.providers.list())),
    off: (type, listener) => p.events.off(type, listener),
    close() {
      closed ??= p.close();
      return closed;
    },
  };
}
