import type { Context } from 'koa';
import type { AvatarProxy } from './avatar.js';
import type { Logger } from './logger.js';
import type { ResolvedOptions } from './options.js';
import type { TokenService } from './token.js';
import type { CompletedLogin } from './login.js';

/** What the router calls. Providers never parse the path: the router resolves them by name. */
export interface Provider {
  readonly name: string;
  /** The kind that made it ('oauth2', 'direct', …); shown by `/auth/list?details=1`. */
  readonly kind?: string;
  login(ctx: Context): Promise<void>;
  callback?(ctx: Context): Promise<void>;
  logout(ctx: Context): Promise<void>;
  /** Extra routes `/auth/<name>/<action>` (GET and POST), e.g. Telegram's `webhook`; login, callback and logout stay reserved. */
  readonly actions?: Readonly<Record<string, (ctx: Context) => Promise<void>>>;
  /** Stops background work (servers, pollers) when the service closes. */
  close?(): Promise<void>;
}

/** Everything a provider may use; providers reach tokens and avatars only through this. */
export interface ProviderDeps {
  readonly options: ResolvedOptions;
  readonly tokenService: TokenService;
  readonly avatarProxy: AvatarProxy;
  readonly logger: Logger;
  /** Public base URL, no trailing slash. */
  readonly url: string;
  /** Issues the session for an identified user: avatar, hooks, cookies, then a redirect or the User JSON. */
  completeLogin(ctx: Context, login: CompletedLogin): Promise<void>;
  /** `<url>` + the request's full path with its last segment replaced by `callback` (any mount prefix works). */
  callbackURL(ctx: Context): string;
  /** The absolute URL to redirect to after login when `from` passes the redirect policy, else undefined. */
  safeRedirect(from: string | undefined): string | undefined;
  /** The `session`/`sess` flag of a login request: any value but "0" asks for session-only cookies. */
  sessionOnly(ctx: Context): boolean;
  /** Parses a JSON or form body (or the query for GET) capped at `limit` bytes; 413/400 AuthErrors. */
  readParams(ctx: Context, limit?: number): Promise<Record<string, string>>;
}

/** How a kind of provider is made. Register third-party kinds with registerProvider(). */
export interface ProviderModule<O extends ProviderOptions = ProviderOptions> {
  readonly kind: string;
  create(opts: O, deps: ProviderDeps): Provider;
}

/** An entry of `opts.providers` that is not a ready Provider: a kind with its options, or a built-in name. */
export interface ProviderOptions {
  kind?: string;
  name?: string;
  [option: string]: unknown;
}

export type ProviderEntry = Provider | ProviderOptions;

const modules = new Map<string, ProviderModule<any>>();

/** Adds a provider kind. Kinds are code, shared by every authKoa() instance; providers are not. */
export function registerProvider<O extends ProviderOptions>(module: ProviderModule<O>): void {
  if (!module || typeof module.kind !== 'string' || !module.kind || typeof module.create !== 'function') {
    throw new TypeError('registerProvider() requires { kind: string, create(opts, deps) }');
  }
  if (modules.has(module.kind)) throw new TypeError(`registerProvider(): kind "${module.kind}" is already registered`);
  modules.set(module.kind, module);
}

/** Names a provider may take: safe in a URL path segment and not one of the service's own routes. */
const NAME = /^[A-Za-z0-9._~-]{1,64}$/;
const RESERVED = new Set(['list', 'user', 'status', 'logout']);

/** Built-in names and the kind each resolves to; filled by providers/index.ts. */
export const builtinNames = new Map<string, { kind: string; preset?: string }>();

function isProvider(entry: ProviderEntry): entry is Provider {
  return typeof (entry as Provider).login === 'function';
}

/** The providers of one service, in registration order, resolved by name. */
export class ProviderRegistry {
  private readonly byName = new Map<string, Provider>();

  constructor(entries: readonly ProviderEntry[], deps: ProviderDeps) {
    entries.forEach((entry, i) => {
      const at = `providers[${i}]`;
      if (!entry || typeof entry !== 'object') throw new TypeError(`authKoa: ${at} must be an object`);
      const provider = isProvider(entry) ? checkReady(entry, at) : this.build(entry, at, deps);
      const name = provider.name;
      if (!NAME.test(name) || RESERVED.has(name)) {
        throw new TypeError(`authKoa: ${at}.name "${name}" is not allowed: use letters, digits, '.', '_', '~' or '-', and none of list, user, status, logout`);
      }
      if (this.byName.has(name)) throw new TypeError(`authKoa: ${at}.name "${name}" is used by another provider`);
      this.byName.set(name, provider);
    });
  }

  private build(entry: ProviderOptions, at: string, deps: ProviderDeps): Provider {
    const builtin = typeof entry.name === 'string' ? builtinNames.get(entry.name.toLowerCase()) : undefined;
    let kind = entry.kind;
    let opts: ProviderOptions = entry;
    if (kind === undefined) {
      if (typeof entry.name !== 'string') throw new TypeError(`authKoa: ${at} needs a kind, or the name of a built-in provider`);
      if (!builtin) {
        throw new TypeError(`authKoa: ${at}.name "${entry.name}" is not a built-in provider (known: ${[...builtinNames.keys()].join(', ')}); give a kind for custom ones`);
      }
      kind = builtin.kind;
      opts = { ...entry, name: entry.name.toLowerCase(), ...(builtin.preset ? { preset: builtin.preset } : {}) };
    } else if (builtin && builtin.kind !== kind) {
      throw new TypeError(`authKoa: ${at}.name "${entry.name}" is the name of a built-in provider; a ${kind} provider needs another name`);
    }
    if (typeof kind !== 'string') throw new TypeError(`authKoa: ${at}.kind must be a string`);
    const module = modules.get(kind);
    if (!module) throw new TypeError(`authKoa: ${at}.kind "${kind}" is not a known provider kind (known: ${[...modules.keys()].join(', ')})`);
    try {
      return checkReady(module.create({ ...opts, kind }, deps), at);
    } catch (err) {
      if (err instanceof TypeError && err.message.startsWith('authKoa:')) throw err;
      throw new TypeError(`authKoa: ${at} (${kind}): ${(err as Error).message}`, { cause: err });
    }
  }

  /** The provider registered under `name`, if any. */
  get(name: string): Provider | undefined {
    return this.byName.get(name);
  }

  /** True when a provider of this name is configured (tokens of removed providers are refused). */
  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** All providers in registration order. */
  list(): Provider[] {
    return [...this.byName.values()];
  }
}

function checkReady(p: Provider, at: string): Provider {
  if (typeof p.name !== 'string') throw new TypeError(`authKoa: ${at}.name must be a string`);
  if (typeof p.login !== 'function' || typeof p.logout !== 'function') {
    throw new TypeError(`authKoa: ${at} must implement login(ctx) and logout(ctx)`);
  }
  return p;
}
