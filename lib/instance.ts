import type { Context, Middleware } from 'koa';
import type { AuthEventBus } from './events/bus.js';
import type { OpenAPIConfig, OpenAPIDocument } from './openapi/document.js';
import {
  AUTH_EVENT_TYPES,
  type AnyAuthEventListener,
  type AuthEventListener,
  type AuthEventType,
} from './events/types.js';
import type { AvatarProxy } from './avatar/types.js';
import type { AuthMiddleware } from './middleware.js';
import type { FeatureSet } from './features/set.js';
import { INSTANCE_JOINS, INSTANCE_SHORTCUTS, type BuiltInAdmins } from './core/features.js';
import type { ResolvedOptions } from './options/resolved.js';
import type { ProviderRegistry } from './providers/core/resolve.js';
import type { TokenService } from './session/token-service.js';
import type { Claims, RequestToken } from './session/claims.js';
import type { PersonalTokenView } from './personal-tokens/views.js';

/** A configured provider as the instance lists it: its name and the kind that made it. */
export interface ProviderInfo {
  readonly name: string;
  /** 'oauth2', 'direct', …; 'custom' for a provider object given as it is. */
  readonly kind: string;
}

/**
 * What `authKoa()` returns: a Koa middleware serving the auth and avatar routes, plus the tools around it.
 * It holds no option, secret or key: logging it (`JSON.stringify`, `util.inspect`) shows only its methods.
 */
export interface AuthKoa extends Middleware, BuiltInAdmins {
  /** auth, admin, trace, rbac(...roles), updateUser, fresh(maxAge). */
  readonly middleware: AuthMiddleware;
  /** Session tokens for the application's own routes (docs/tokens.md). */
  readonly tokens: {
    /**
     * The verified token of a request (query `token`, `X-JWT` header or JWT cookie with its XSRF header),
     * or undefined when it presents none; a bad or expired one rejects with AuthError 401.
     */
    get(ctx: Context): Promise<RequestToken | undefined>;
    /** Signs claims as a session token (exp, iss, iat filled in, the ClaimsUpdater run, the audience checked). */
    create(claims: Claims): Promise<string>;
    /**
     * The personal access tokens of a user (the `tokens` option; docs/accounts.md), without their secrets. Rejects
     * with a TypeError when `tokens` is not set.
     */
    list(userId: string): Promise<PersonalTokenView[]>;
    /**
     * Revokes a user's personal token by its id (false when the user has none by that id): refused at once in this
     * process, within `tokens.revocationDelay` in the others. Rejects with a TypeError when `tokens` is not set.
     */
    revoke(userId: string, id: string): Promise<boolean>;
  };
  /** Pictures the application already holds, stored as the avatar proxy stores fetched ones (docs/avatars.md). */
  readonly avatarProxy: Pick<AvatarProxy, 'put' | 'putContent'>;
  /** The configured providers, filled once `ready` resolves. */
  readonly providers: {
    /** Every provider, in registration order. */
    list(): ProviderInfo[];
    get(name: string): ProviderInfo | undefined;
  };
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
  /**
   * The configured features (docs/features.md), the built-in ones (`sessions`, `jwks`, `mfa` when set)
   * after the application's: their names, and a feature's admin API once `ready` resolved.
   */
  readonly features: {
    list(): string[];
    /** The admin API of the feature `name` (undefined before start-up, or for one without). */
    get<A extends object = Record<string, unknown>>(name: string): A | undefined;
  };
  /**
   * Every event type this instance can emit (docs/events.md), frozen: the core ones (`AUTH_EVENT_TYPES`), then
   * those each configured feature declares (`signup`, `token_created`, `mfa_changed`, `webhook_failed`, an
   * application's feature's own, …), each once. A feature left off is not in it.
   */
  readonly eventTypes: readonly AuthEventType[];
  /**
   * Listens to one type of auth event (docs/events.md): `login`, `login_failed`, `lockout`, `logout`,
   * `refresh`, `session_revoked`, `passkey_added`, `passkey_removed`, and the features' (`eventTypes`).
   * Listeners run after the answer is sent; one that throws, rejects or is still running after
   * `eventListenerTimeout` is reported through Koa's `app.emit('error')`. An unknown type is a TypeError.
   */
  on<T extends AuthEventType>(type: T, listener: AuthEventListener<T>): void;
  /** `'*'`: every event of every type, the features' included; the event's `type` says which it is. */
  on(type: '*', listener: AnyAuthEventListener): void;
  /** Stops a listener added with on(). */
  off<T extends AuthEventType>(type: T, listener: AuthEventListener<T>): void;
  /** Stops a listener added with on('*'). */
  off(type: '*', listener: AnyAuthEventListener): void;
  /**
   * The OpenAPI 3.1 description of the routes this configuration serves (docs/openapi.md), once
   * start-up has built the providers: the core, provider, feature and avatar routes, the error body with
   * every code, the ways a session is carried.
   */
  openapi(): Promise<OpenAPIDocument>;
  /**
   * Stops everything the instance started: provider servers and pollers, the avatar store and its
   * workers, the state store it opened.
   */
  close(): Promise<void>;
}

/** What the instance's methods are made of: the service's own parts, never handed to the application. */
export interface InstanceParts {
  middleware: AuthMiddleware;
  tokenService: TokenService;
  avatarProxy: AvatarProxy;
  providers: ProviderRegistry;
  options: ResolvedOptions;
  /** Start-up: the methods that use the state store wait for it. */
  starting: Promise<void>;
  /** Ends a user's sessions (auth.revokeSessions): the tombstones, the features told, the event. */
  endSessions: (userId: string, keep: string | undefined) => Promise<void>;
  /** The configured features; their admin APIs once started. */
  features: FeatureSet;
  events: AuthEventBus;
  /** Closes what the instance started. */
  close(): Promise<void>;
}

/**
 * Where the instance keeps its parts: a symbol property, not enumerable, whose value is a function, so
 * neither JSON.stringify nor util.inspect (even with showHidden and getters) reaches them. For the
 * package's own tests and benchmarks (internalsOf); index.ts does not export it.
 */
const PARTS = Symbol('authkoa.instance');

/**
 * The tools beside the middleware (everything of AuthKoa but the middleware function itself), made of
 * closures over the parts: the returned object holds functions and the `ready` promise only.
 */
export function instanceApi(p: InstanceParts): Omit<AuthKoa, keyof Middleware> {
  const started = <T>(f: () => Promise<T>) => p.starting.then(f);
  let closed: Promise<void> | undefined;
  const info = (name: string): ProviderInfo | undefined => {
    const provider = p.providers.get(name);
    return provider && Object.freeze({ name: provider.name, kind: provider.kind ?? 'custom' });
  };
  return {
    middleware: p.middleware,
    tokens: {
      get: (ctx) => p.tokenService.get(ctx),
      create: (claims) => p.tokenService.create(claims),
      ...(joined('tokens', p.features, started) as Pick<AuthKoa['tokens'], 'list' | 'revoke'>),
    },
    avatarProxy: {
      put: (user, options) => p.avatarProxy.put(user, options),
      putContent: (userId, image) => p.avatarProxy.putContent(userId, image),
    },
    providers: { list: () => p.providers.list().map((x) => info(x.name)!), get: info },
    // The caller's own promise: left unhandled, a start-up failure stops the process with its message.
    ready: p.starting.then(() => undefined),
    revokeSessions: (userId, opts) => started(() => p.endSessions(userId, opts?.except)),
    ...builtInAdmins(p.features, started),
    features: {
      list: () => p.features.names(),
      get: <A extends object>(name: string) => p.features.admin(name) as A | undefined,
    },
    eventTypes: eventTypesOf(p.features),
    // One implementation for both overloads: the bus tells '*' from a type.
    on: (type: AuthEventType | '*', listener: AnyAuthEventListener) => p.events.on(type as '*', listener),
    off: (type: AuthEventType | '*', listener: AnyAuthEventListener) => p.events.off(type as '*', listener),
    // Loaded when asked for: describing the routes is no part of serving them.
    openapi: () =>
      started(async () =>
        (await import('./openapi/describe.js')).describe(
          openApiConfig(p.options),
          p.providers.list(),
          await p.features.openapi(),
        ),
      ),
    close() {
      closed ??= p.close();
      return closed;
    },
  };
}

/**
 * The instance's shortcuts to the built-in features' admin APIs (core/features.ts: `auth.sessions`, `auth.mfa`), each
 * call after start-up; undefined for a feature the options leave off.
 */
function builtInAdmins(features: FeatureSet, started: <T>(f: () => Promise<T>) => Promise<T>): BuiltInAdmins {
  type Admin = Record<string, unknown>;
  const shortcut = (feature: string, methods: readonly string[]) => {
    const api: Admin = {};
    for (const method of methods) {
      // `clients.list`: the method `list` of the admin's member `clients`, offered as the shortcut's `clients.list`.
      const path = method.split('.');
      const name = path.pop()!;
      let into = api;
      for (const step of path) into = (into[step] ??= {}) as Admin;
      into[name] = (...args: unknown[]) =>
        started(async () => {
          const owner = path.reduce((o, step) => o[step] as Admin, features.admin(feature) as Admin);
          return (owner[name] as (...a: unknown[]) => Promise<unknown>).apply(owner, args);
        });
    }
    return api;
  };
  const entries = INSTANCE_SHORTCUTS.map(({ member, feature, methods }) => [
    member,
    features.names().includes(feature) ? shortcut(feature, methods) : undefined,
  ]);
  return Object.fromEntries(entries) as BuiltInAdmins;
}

/** Every type the instance can emit: the core ones, then the configured features' (each once), frozen. */
function eventTypesOf(features: FeatureSet): readonly AuthEventType[] {
  return Object.freeze([...new Set([...AUTH_EVENT_TYPES, ...features.eventTypes()])] as AuthEventType[]);
}

/** What the options turn on in the OpenAPI document: names and switches, never a secret. */
function openApiConfig(o: ResolvedOptions): OpenAPIConfig {
  return {
    url: o.url,
    authRoutePath: o.authRoutePath,
    avatarRoutePath: o.avatarRoutePath,
    jwtCookieName: o.jwtCookieName,
    xsrfHeaderName: o.xsrfHeaderName,
    jwtHeaderName: o.jwtHeaderName,
    jwtQueryName: o.jwtQueryName,
    basic: o.basicAuthChecker !== undefined || o.adminPasswd !== undefined,
    avatars: o.avatarStore !== undefined,
  };
}

/**
 * The methods built-ins add to the instance's member `member` (core/features.ts: `auth.tokens.list`), each call after
 * start-up; a TypeError naming the option when the feature is off.
 */
function joined(member: string, features: FeatureSet, started: <T>(f: () => Promise<T>) => Promise<T>): object {
  type Admin = Record<string, (...args: unknown[]) => Promise<unknown>>;
  const methods = INSTANCE_JOINS.filter((j) => j.member === member).flatMap((j) =>
    j.methods.map((method) => {
      const call = (...args: unknown[]) =>
        started(async () => {
          const admin = features.admin(j.feature) as Admin | undefined;
          if (!admin) throw new TypeError(`auth.${member}.${method} needs the \`${j.option}\` option`);
          return admin[method](...args);
        });
      return [method, call] as const;
    }),
  );
  return Object.fromEntries(methods);
}

/** The Koa middleware with the instance's tools on it, and its parts kept where only internalsOf() finds them. */
export function makeInstance(service: Middleware, parts: InstanceParts): AuthKoa {
  const auth: AuthKoa = Object.assign(service, instanceApi(parts));
  Object.defineProperty(auth, PARTS, { value: () => parts, enumerable: false });
  return auth;
}

/**
 * The parts of an instance (its resolved options, token service, provider registry, …), for the package's
 * own tests and benchmarks. Not part of the public API: index.ts does not export it.
 * @internal
 */
export function internalsOf(auth: AuthKoa): InstanceParts {
  const get = (auth as unknown as Record<typeof PARTS, (() => InstanceParts) | undefined>)[PARTS];
  if (!get) throw new TypeError('internalsOf: not an authKoa() instance');
  return get();
}
