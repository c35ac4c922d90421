import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { AuthError, featureError } from '../errors.js';
import type { AuthEventBus } from '../events/bus.js';
import { crossSite } from '../http/origin.js';
import { writeJSON } from '../http/respond.js';
import type { Logger } from '../logger.js';
import type { IdentifiedLogin } from '../session/login.js';
import type { StateStore } from '../state/types.js';
import type { User } from '../user.js';
import type { ServiceKey } from '../util/service-key.js';
import type { Feature, FeatureContext, FeatureModule, FullLogin } from './contract.js';
import type { FeatureCredentials } from '../session/feature-credentials.js';
import type { FeatureHooks } from './hooks.js';
import { checkProviderNames } from './plan.js';

/** What every feature's context is made of: the instance's shared parts. */
export interface FeatureParts {
  url: string;
  origin: string;
  authRoutePath: string;
  logger: Logger;
  clock: () => number;
  stateStore: StateStore;
  session: (ctx: Context) => Promise<FullLogin>;
  events: AuthEventBus;
  /** The core's session hooks (features/hooks.ts): each feature's are added as it is created. */
  hooks: FeatureHooks;
  /** The core's feature credentials (session/feature-credentials.ts): each feature's is added as it is created. */
  credentials: FeatureCredentials;
}

/** A path item map of one feature's OpenAPI part, as the document merges it. */
export type FeaturePaths = Record<string, Record<string, Record<string, unknown>>>;

/** What the configured features add to the OpenAPI document: paths, schemas, schemes, error codes. */
export interface FeatureDocs {
  paths: FeaturePaths;
  schemas: Record<string, unknown>;
  securitySchemes: Record<string, unknown>;
  /** Their own codes, each with its status: added to the `ErrorCode` enum. */
  errors: Record<string, number>;
  /** What their tags stand for, by tag name. */
  tags: Record<string, string>;
  /** The schemes of their credentials (FeatureOpenAPI.credentialSchemes). */
  credentialSchemes: string[];
  /** What they answer at every provider's login and callback (FeatureOpenAPI.loginAnswers). */
  loginAnswers: Record<string, Record<string, unknown>>;
}

/**
 * The configured features of one instance, in order (the application's, then the built-in ones):
 * created at start-up, their routes mounted under their prefixes, their gates run at every login, their
 * session hooks handed to the core (FeatureHooks), their OpenAPI parts merged, closed with the instance.
 * The service loops over this; it names no feature.
 */
export class FeatureSet {
  readonly #modules: readonly FeatureModule[];
  readonly #parts: FeatureParts;
  readonly #made = new Map<string, Feature>();

  constructor(modules: readonly FeatureModule[], parts: FeatureParts) {
    this.#modules = modules;
    this.#parts = parts;
  }

  /** The event types the features declare: the instance's bus takes them. */
  static eventTypes(modules: readonly FeatureModule[]): string[] {
    return modules.flatMap((m) => [...(m.events ?? [])]);
  }

  /** The event types these features declare, in their order: with the core ones, every type the instance emits. */
  eventTypes(): string[] {
    return FeatureSet.eventTypes(this.#modules);
  }

  /** Creates each feature in order, then starts them all; a failure names the feature. */
  async start(): Promise<void> {
    for (const m of this.#modules) {
      const made = await named(m, 'could not be created', () => m.create((m.options ?? {}) as never, this.#context(m)));
      this.#made.set(m.name, made ?? {});
      if (made) this.#parts.hooks.add(m.name, made);
      if (made?.credential) this.#parts.credentials.add(made.credential);
    }
    await Promise.all(
      this.#modules.map((m) => named(m, 'did not start', async () => this.#made.get(m.name)?.start?.())),
    );
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#made.values()].map((f) => f.close?.() ?? Promise.resolve()));
  }

  /**
   * Settles who the login is (each feature's `identify`, in order), then runs every gate in order; true when one
   * answered the request itself (the login goes on elsewhere).
   */
  async gate(ctx: Context, login: IdentifiedLogin): Promise<boolean> {
    for (const m of this.#modules) {
      const identify = this.#made.get(m.name)?.identify;
      if (!identify) continue;
      const who = await identify(ctx, login);
      if (who === true) return true;
      login.user = checkedUser(m, who) ?? login.user;
    }
    for (const m of this.#modules) {
      const gate = this.#made.get(m.name)?.gate;
      if (gate && (await gate(ctx, login))) return true;
    }
    return false;
  }

  /** Tells each feature, in order, that a login through `provider` starts (Feature.loginStarts). */
  async loginStarts(ctx: Context, provider: string): Promise<void> {
    for (const m of this.#modules) await this.#made.get(m.name)?.loginStarts?.(ctx, provider);
  }

  /**
   * Hands the auth router's `<prefix>` and `<prefix>/…` requests to each feature's routes, and each of its
   * `.well-known/<name>` documents, mounted first: the key set's prefix (`/.well-known`) takes the rest.
   */
  mount(router: Router): void {
    for (const m of this.#modules)
      for (const doc of m.wellKnown ?? []) router.all(`/.well-known/${doc}`, this.#handler(m));
    for (const m of this.#modules) {
      if (m.prefix === undefined) continue;
      const handle = this.#handler(m);
      router.all(m.prefix, handle);
      router.all(`${m.prefix}/{*rest}`, handle);
    }
  }

  /** The names of every feature's site documents (FeatureModule.siteWellKnown), for the service's entry. */
  siteDocuments(): string[] {
    return this.#modules.flatMap((m) => [...(m.siteWellKnown ?? [])]);
  }

  /**
   * Hands a site-root `/.well-known/<name>[/…]` request to the feature that serves `<name>`; resolves false when none
   * does or it passed the request on (the application answers it).
   */
  async site(ctx: Context, name: string): Promise<boolean> {
    const m = this.#modules.find((f) => f.siteWellKnown?.includes(name));
    const routes = m && this.#made.get(m.name)?.siteRoutes;
    if (!routes) return false;
    let passed = false;
    await routes(ctx, () => {
      passed = true;
      return Promise.resolve();
    });
    return !passed;
  }

  /** A feature's routes as the auth router calls them: the cross-site rule first; what they leave is a 404. */
  #handler(m: FeatureModule): (ctx: Context, next: Next) => Promise<void> {
    return async (ctx: Context, next: Next) => {
      const routes = this.#made.get(m.name)?.routes;
      if (!routes) {
        await next();
        return;
      }
      // anySite's paths start with the prefix (`/oauth2/token` of `/oauth2`): under authRoutePath as they are.
      const open = m.anySite?.some((p) => ctx.path === `${this.#parts.authRoutePath}${p}`);
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD' && !open && crossSite(ctx, this.#parts.origin)) {
        throw new AuthError('origin_mismatch', 'the request must come from this site');
      }
      // Past the feature's own routes: a 404, not the provider routes that a second segment would reach.
      await routes(ctx, () => Promise.reject(new AuthError('not_found', 'no such auth route')));
    };
  }

  /** Every feature's OpenAPI paths (under authRoutePath) and schemas, and its error codes with their statuses. */
  async openapi(): Promise<FeatureDocs> {
    const paths: FeaturePaths = {};
    const schemas: Record<string, unknown> = {};
    const securitySchemes: Record<string, unknown> = {};
    const errors: Record<string, number> = {};
    const tags: Record<string, string> = {};
    const credentialSchemes: string[] = [];
    const loginAnswers: Record<string, Record<string, unknown>> = {};
    for (const m of this.#modules) {
      const part = await this.#made.get(m.name)?.openapi?.();
      for (const [path, item] of Object.entries(part?.paths ?? {})) paths[this.#parts.authRoutePath + path] = item;
      Object.assign(schemas, part?.schemas);
      Object.assign(securitySchemes, part?.securitySchemes);
      Object.assign(errors, m.errors);
      Object.assign(tags, part?.tags);
      credentialSchemes.push(...(part?.credentialSchemes ?? []));
      Object.assign(loginAnswers, part?.loginAnswers);
    }
    return { paths, schemas, securitySchemes, errors, tags, credentialSchemes, loginAnswers };
  }

  /** A feature's admin API, once started; undefined for a feature not configured or without one. */
  admin(name: string): object | undefined {
    return this.#made.get(name)?.admin;
  }

  /** What a configured feature offers provider kinds under `key` (Feature.provides); undefined when none does. */
  provided<T>(key: ServiceKey<T>): T | undefined {
    for (const made of this.#made.values())
      for (const p of made.provides ?? []) if (p.key === key) return p.service as T;
    return undefined;
  }

  /** A provider named as a feature's prefix could never be reached: a start-up error naming both. */
  checkProviders(providerNames: readonly string[]): void {
    checkProviderNames(this.#modules, providerNames);
    for (const m of this.#modules) this.#made.get(m.name)?.providersReady?.(providerNames);
  }

  /** The names of the configured features, in order. */
  names(): string[] {
    return this.#modules.map((m) => m.name);
  }

  #context(m: FeatureModule): FeatureContext {
    const p = this.#parts;
    const errors = m.errors ?? {};
    const events = new Set(m.events ?? []);
    return {
      url: p.url,
      authRoutePath: p.authRoutePath,
      logger: p.logger,
      clock: p.clock,
      stateStore: p.stateStore,
      session: p.session,
      error(code, message, options) {
        const status = errors[code];
        if (status === undefined)
          throw new TypeError(`feature ${m.name}: error code ${JSON.stringify(code)} is not one of its errors`);
        return featureError(code, status, message, options);
      },
      emit(type, fields, ctx) {
        if (!events.has(type))
          throw new TypeError(`feature ${m.name}: event type ${JSON.stringify(type)} is not one of its events`);
        // Declared at start-up, so the bus takes the type; its fields are the feature's to document.
        p.events.emit(type as never, fields as never, ctx);
      },
      json: (ctx, status, body) => writeJSON(ctx, status, body),
    };
  }
}

/** The user a feature's `identify` resolved, as a session can carry it; a broken one is the feature's fault (500). */
function checkedUser(m: FeatureModule, user: User | undefined): User | undefined {
  if (user === undefined) return undefined;
  if (
    typeof user !== 'object' ||
    user === null ||
    typeof user.id !== 'string' ||
    user.id === '' ||
    typeof user.name !== 'string'
  )
    throw new AuthError('internal_error', `feature "${m.name}": identify() must resolve a user with an id and a name`);
  return { ...user, picture: typeof user.picture === 'string' ? user.picture : '' };
}

/** Runs one feature's step; an error is rethrown naming the feature (a TypeError stays a TypeError). */
async function named<T>(m: FeatureModule, what: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const e = err as Error;
    if (e instanceof Error && !e.message.startsWith('authKoa:'))
      e.message = `authKoa: feature "${m.name}" ${what}: ${e.message}`;
    throw e;
  }
}
