import type { Context } from 'koa';
import type { AvatarProxy } from './avatar/types.js';
import type { Provider, ProviderOptions } from './providers/types.js';

export type { Provider, ProviderEntry, ProviderOptions } from './providers/types.js';
import type { Logger } from './logger.js';
import type { CompletedLogin } from './session/login.js';
import { loadWithPackage } from './util/optional.js';
import type { StateStore, StateStoreOptions } from './state/types.js';
import type { AvatarStore } from './stores/types.js';
import type { TokenService } from './session/token-service.js';

/**
 * The package's three plug-in points, each a table of name → lazy loader: provider kinds, avatar-store
 * schemes and state-store schemes. The built-in rows are dynamic imports, so a kind or a backend is
 * loaded the first time a configuration names it and never otherwise; `registerProvider()`,
 * `registerStore()` and `registerStateStore()` add rows for third-party code. Nothing here runs at import.
 */

/**
 * Everything a provider may use: the token service, the avatar saver, the logger, the URL, the clock
 * and the body reader; never the secrets or the other options. Providers reach tokens and avatars only
 * through this.
 */
export interface ProviderDeps {
  readonly tokenService: TokenService;
  readonly avatarProxy: AvatarProxy;
  readonly logger: Logger;
  /** Public base URL, no trailing slash. */
  readonly url: string;
  /** The service's clock, ms since the epoch (the `clock` option; Date.now by default). */
  readonly clock: () => number;
  /** The session cookie's name (a provider's own cookies derive theirs from it) and whether cookies are Secure. */
  readonly cookies: { readonly name: string; readonly secure: boolean };
  /** The absolute URL of `<authRoutePath>/<provider>/<action>`, e.g. for a webhook or a redirect URI. */
  routeURL(provider: string, action: string): string;
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
  /** Validates `opts` (throw a TypeError naming the option) and builds the provider; may be async (start a server, load a package). */
  create(opts: O, deps: ProviderDeps): Provider | Promise<Provider>;
}

/** Opens the avatar store a URI names (the whole URI, scheme included). */
export type StoreOpener = (uri: string) => AvatarStore | Promise<AvatarStore>;
/** Opens the state store a URI names (the whole URI, scheme included). */
export type StateStoreOpener = (uri: string, opts: StateStoreOptions) => StateStore | Promise<StateStore>;

type Loader<T> = () => Promise<T>;

/** One table of names: fixed built-in loaders plus what register*() added. */
export class Registry<T> {
  private readonly added = new Map<string, T>();

  constructor(
    private readonly what: string,
    private readonly call: string,
    private readonly builtins: Readonly<Record<string, Loader<T>>>,
  ) {}

  /** Adds a row; adding the same value again is a no-op (a module imported twice), a different one is an error. */
  add(name: string, value: T): void {
    if (Object.hasOwn(this.builtins, name)) throw new TypeError(`${this.call}: ${this.what} "${name}" is built in and cannot be replaced`);
    const had = this.added.get(name);
    if (had !== undefined && had !== value) throw new TypeError(`${this.call}: ${this.what} "${name}" is already registered with another implementation`);
    this.added.set(name, value);
  }

  has(name: string): boolean {
    return Object.hasOwn(this.builtins, name) || this.added.has(name);
  }

  /** The implementation for `name`, loading a built-in on first use (the module cache keeps it). */
  async load(name: string): Promise<T> {
    const added = this.added.get(name);
    if (added !== undefined) return added;
    const builtin = Object.hasOwn(this.builtins, name) ? this.builtins[name] : undefined;
    if (!builtin) throw new TypeError(`${this.what} "${name}" is not registered`);
    return builtin();
  }

  names(): string[] {
    return [...Object.keys(this.builtins), ...this.added.keys()];
  }
}

/** The built-in provider kinds; each module is imported when a configuration first uses the kind. */
export const providerKinds = new Registry<ProviderModule<any>>('provider kind', 'registerProvider()', {
  direct: () => import('./providers/direct.js').then((m) => m.directProvider),
  verified: () => import('./providers/verified.js').then((m) => m.verifiedProvider),
  social: () => import('./providers/catalog.js').then((m) => m.socialProvider),
  oauth2: () => import('./providers/custom.js').then((m) => m.oauth2Provider),
  oidc: () => import('./providers/oidc.js').then((m) => m.oidcProvider),
  dev: () => import('./providers/dev.js').then((m) => m.devProvider),
  server: () => import('./providers/server-provider.js').then((m) => m.serverProvider),
  apple: () => import('./providers/apple.js').then((m) => m.appleProvider),
  telegram: () => loadWithPackage('node-telegram-bot-api', 'the telegram provider', () => import('./providers/telegram.js')).then((m) => m.telegramProvider),
});

/** Catalog rows of the `social` kind (providers/catalog.ts; a test keeps the two lists equal), `x` an alias. */
const SOCIAL_NAMES = ['google', 'github', 'facebook', 'yandex', 'battlenet', 'microsoft', 'patreon', 'discord', 'twitter'];

/** Built-in names and the kind each resolves to, so `{ name: 'github', cid, csecret }` needs no kind. */
export const builtinNames: ReadonlyMap<string, { kind: string; preset?: string }> = new Map([
  ...SOCIAL_NAMES.map((n) => [n, { kind: 'social', preset: n }] as const),
  ['x', { kind: 'social', preset: 'twitter' }],
  ['dev', { kind: 'dev' }],
  ['apple', { kind: 'apple' }],
]);

const gridfs = () => loadWithPackage('mongodb', 'avatarStore mongodb://', () => import('./stores/gridfs.js')).then((m) => m.openGridFsStore);

/** Avatar-store schemes; a URI without a scheme is a `file` path. */
export const storeSchemes = new Registry<StoreOpener>('avatar store scheme', 'registerStore()', {
  file: () => import('./stores/fs.js').then((m) => m.openFileStore),
  lmdb: () => import('./stores/lmdb.js').then((m) => m.openLmdbStore),
  bolt: () => import('./stores/lmdb.js').then((m) => m.openLmdbStore),
  mongodb: gridfs,
  'mongodb+srv': gridfs,
});

const mongoState = () => loadWithPackage('mongodb', 'stateStore mongodb://', () => import('./state/mongo.js')).then((m) => m.openMongoStateStore);

/** State-store schemes. */
export const stateSchemes = new Registry<StateStoreOpener>('state store scheme', 'registerStateStore()', {
  memory: () => import('./state/memory.js').then((m) => m.openMemoryStateStore),
  lmdb: () => import('./state/lmdb.js').then((m) => m.openLmdbStateStore),
  mongodb: mongoState,
  'mongodb+srv': mongoState,
});

/** `scheme://rest` split, the scheme lower-cased as the registries key it; a text without `scheme://` (a plain path) has none. */
export function splitUri(uri: string): { scheme: string | undefined; rest: string } {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(uri);
  return m ? { scheme: m[1]!.toLowerCase(), rest: uri.slice(m[0].length) } : { scheme: undefined, rest: uri };
}

/** A URI scheme as the registries key it: letters, digits, `+`, `.` and `-`, starting with a letter, lower case. */
const SCHEME_NAME = /^[a-z][a-z0-9+.-]*$/;

function schemeName(call: string, scheme: unknown): string {
  if (typeof scheme !== 'string' || !SCHEME_NAME.test(scheme.toLowerCase())) {
    throw new TypeError(`${call} requires a URI scheme such as "s3" (letters, digits, '+', '.', '-'), without "://"`);
  }
  return scheme.toLowerCase();
}

/**
 * Adds a provider kind: `{ kind, create(opts, deps) }`. Kinds are code, shared by every authKoa()
 * instance in the process; providers are not. Registering the same module again is harmless.
 */
export function registerProvider<O extends ProviderOptions>(module: ProviderModule<O>): void {
  if (!module || typeof module.kind !== 'string' || !module.kind || typeof module.create !== 'function') {
    throw new TypeError('registerProvider() requires { kind: string, create(opts, deps) }');
  }
  providerKinds.add(module.kind, module);
}

/**
 * Adds an avatar-store scheme: `registerStore('s3', (uri) => new S3Store(uri))` makes
 * `avatarStore: 's3://bucket/prefix'` (and `authctl avatars … --require`) open one.
 */
export function registerStore(scheme: string, open: StoreOpener): void {
  const name = schemeName('registerStore()', scheme);
  if (typeof open !== 'function') throw new TypeError('registerStore() requires an open(uri) function');
  storeSchemes.add(name, open);
}

/** Adds a state-store scheme: `registerStateStore('etcd', (uri, { clock }) => …)` makes `stateStore: 'etcd://…'` open one. */
export function registerStateStore(scheme: string, open: StateStoreOpener): void {
  const name = schemeName('registerStateStore()', scheme);
  if (typeof open !== 'function') throw new TypeError('registerStateStore() requires an open(uri, options) function');
  stateSchemes.add(name, open);
}
