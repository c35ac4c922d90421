/**
 * A provider as the router sees it, and what an entry of `opts.providers` may be (the built-in kinds' options:
 * entries.ts).
 */
import type { Context } from 'koa';
import type { Claims } from '../../session/claims.js';

/** What the router calls. Providers never parse the path: the router resolves them by name. */
export interface Provider {
  readonly name: string;
  /** The kind that made it ('oauth2', 'direct', …); shown by `/auth/list?details=1`. */
  readonly kind?: string;
  login(ctx: Context): Promise<void>;
  callback?(ctx: Context): Promise<void>;
  logout(ctx: Context): Promise<void>;
  /**
   * Extra routes `/auth/<name>/<action>` (GET and POST; DELETE too, which only actions receive), e.g.
   * Telegram's `webhook`. A key may have two segments (`register/options`); `*` takes any other single
   * segment (its handler reads `ctx.params.action`). login, callback and logout stay reserved.
   */
  readonly actions?: Readonly<Record<string, (ctx: Context) => Promise<void>>>;
  /**
   * The routes (`login`, `callback`, `logout` or an action name) that take a POST from another site.
   * Every other POST or DELETE to this provider that a browser says comes from another site is refused
   * with 403 `origin_mismatch` by the router (login CSRF), so a provider lists here only a route that is
   * cross-site by protocol and guarded otherwise: Apple's form_post callback, checked by `state`.
   */
  readonly crossSite?: readonly string[];
  /**
   * The account of `userId` was deleted (the accounts feature): remove what this provider keeps for that
   * user (their passkeys). A failure is logged and the deletion stands.
   */
  forgetUser?(userId: string): Promise<void>;
  /**
   * How many ways in the provider keeps for `userId` by itself (their passkeys; 1 for an account with a password):
   * account linking refuses to unlink the last way in to an account. Without it, an identity of the provider is one.
   */
  waysIn?(userId: string): Promise<number>;
  /**
   * A session one of its logins started was issued (after the second step, when there was one): its claims
   * (`sid`, the final `user`, which a feature's `identify` may have changed) and the longest it may last
   * (`maxSessionAge`, undefined when refreshes may keep it going). The `oidc` kind records the provider's
   * session here for back-channel logout. A failure is logged and the login goes on.
   */
  sessionStarted?(ctx: Context, claims: Claims, maxAgeMs: number | undefined): Promise<void>;
  /** Stops background work (servers, pollers) when the service closes. */
  close?(): Promise<void>;
  /** Set when the kind can also be the second step of a login (the passkey kind): the `mfa` routes call it. */
  readonly secondFactor?: SecondFactor;
  /**
   * How its routes read and answer, for the OpenAPI description (`auth.openapi()`): OpenAPI operation
   * objects by route (`login`, `callback`, an action name) and lower-case method. A route or method it
   * leaves out is described generically; the 4XX/5XX error answers are added to every operation.
   */
  readonly routeDocs?: RouteDocs;
}

/** OpenAPI operation objects (plain JSON; schemas may `$ref` `#/components/schemas/…`) by route and method. */
export type RouteDocs = Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, unknown>>>>>>;

/**
 * A provider's credentials used as a second factor after another login: what `/auth/mfa/<factor>/options`
 * and `/auth/mfa/<factor>` call, for the user whose first factor passed.
 */
export interface SecondFactor {
  /** Its name in the `factors` a login answers and in the routes: `passkey`. */
  readonly factor: string;
  /** The RFC 8176 `amr` value a pass adds to the session: `hwk`. */
  readonly amr: string;
  /** How many credentials of this factor the user has (0: it is not offered). */
  count(userId: string): Promise<number>;
  /**
   * The challenge for the user's credentials, sent to the page as JSON; undefined when the user has none (the
   * second factor then answers its own `factor_not_enrolled`).
   */
  options(ctx: Context, userId: string): Promise<unknown>;
  /** Checks the answer in the request body for the user: resolves when it passes, else throws an AuthError. */
  verify(ctx: Context, userId: string): Promise<void>;
}

/**
 * A kind's options as its module receives them (ProviderModule.create): whatever the entry held, checked by
 * nothing but the module's own `options` list. What an application may write is ProviderEntry.
 */
export interface ProviderOptions {
  kind?: string;
  name?: string;
  [option: string]: unknown;
}

/**
 * The options each provider kind takes, by kind: what makes `opts.providers` typed. The built-in kinds
 * are filled in by entries.ts. A kind added with registerProvider() declares its own here, with a literal
 * `kind`, and its entries are then checked as the built-in ones are:
 *
 *     declare module 'authkoa' {
 *       interface ProviderKinds { 'api-key': ApiKeyOptions }   // ApiKeyOptions has kind: 'api-key'
 *     }
 *
 * There is no catch-all member: it would take `{ kind: 'direct', checkr }` as some unknown kind's
 * options, and a misspelled option of a built-in kind would no longer be an error.
 */
// Empty by design: entries.ts and plug-ins add the kinds by declaration merging.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ProviderKinds {}

/**
 * An entry of `opts.providers`: a ready Provider, or the options of a kind in ProviderKinds (told apart by `kind`, or
 * by a built-in `name`).
 */
export type ProviderEntry = Provider | ProviderKinds[keyof ProviderKinds];
