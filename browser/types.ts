/**
 * Public types of the `$.RestClient` plugin. Nothing here runs; the declarations are what
 * TypeScript users of `authkoa/browser` see.
 */

/** An id of one level of the resource chain; inserted into the path URL-encoded. */
export type Id = string | number;

/** Anything a verb accepts: ids first, then an optional data object, then an optional params object. */
export type VerbArg = Id | object;

/** The minimal XHR surface a `done` callback receives (jQuery's jqXHR satisfies it). */
export interface XhrLike {
  readonly status: number;
  readonly statusText?: string;
  readonly responseText?: string;
  getResponseHeader?(name: string): string | null;
}

/** The deferred a verb returns: jQuery's jqXHR, or whatever a custom `request` returns. */
export interface RestPromise<T = unknown> extends PromiseLike<T> {
  /** Called with (data, textStatus, xhr) once the request succeeds (or at once on a cache hit). */
  done(...callbacks: Array<(data: T, textStatus: string, xhr: XhrLike) => void>): this;
  /** Called with (xhr, textStatus, errorThrown) when the request fails. */
  fail(...callbacks: Array<(xhr: XhrLike, textStatus: string, errorThrown: unknown) => void>): this;
  /** Called when the request settles either way. */
  always(...callbacks: Array<(dataOrXhr: T | XhrLike, textStatus: string, xhrOrError: unknown) => void>): this;
}

/** The options object handed to jQuery's ajax (or to a custom `request`). */
export interface AjaxSettings {
  url?: string;
  type?: string;
  headers?: Record<string, string>;
  data?: unknown;
  dataType?: string;
  contentType?: string | false;
  [setting: string]: unknown;
}

/** The slice of jQuery the plugin uses; both jQuery 3.x and 4.x satisfy it. */
export interface JQueryLike {
  // `object`, not AjaxSettings: @types/jquery's $.ajax takes its own settings type, which this one does not fit
  // (a method's parameter is compared both ways, and theirs is an object). What it returns is read as a RestPromise.
  ajax(settings: object): unknown;
  param(data: object): string;
  RestClient?: RestClientConstructor;
}

/**
 * Performs one request: `request(resource, ajaxSettings)`; must return a deferred with `done`. Typed `unknown`:
 * whatever it returns is handed back as the verb's RestPromise unchecked.
 */
export type RequestFn = (resource: ResourceBase, settings: AjaxSettings) => unknown;

/** Verb name to HTTP method; `null` (or `''`) removes an inherited verb. */
export type VerbMap = Record<string, string | null>;

/** Options of a client, resource or verb. Every key is inherited by children except `url` and `isSingle`. */
export interface RestOptions {
  /** Seconds a successful response of a cachable method is reused; 0 (default) stores nothing. */
  cache?: number;
  /** Methods whose responses may be cached (after method override). Default `['GET']`. */
  cachableMethods?: string[];
  /** Verb functions created on each child resource. Default `{create:'POST', read:'GET', update:'PUT', destroy:'DELETE'}`. */
  verbs?: VerbMap;
  /** Path segment of this resource or verb; default its name. Not inherited. */
  url?: string;
  /** Send non-GET/HEAD data as a JSON body with `Content-Type: application/json`. Default false. */
  stringifyData?: boolean;
  /** Remove the final slash of the path (before any query string). Default false. */
  stripTrailingSlash?: boolean;
  /** With `password`, adds `Authorization: Basic base64(username:password)`. Default null. */
  username?: string | null;
  /** With `username`, adds `Authorization: Basic base64(username:password)`. Default null. */
  password?: string | null;
  /** jQuery ajax settings merged under the plugin's own (url, type, headers, data). Default `{dataType:'json'}`. */
  ajax?: AjaxSettings;
  /** Send every non-GET/HEAD request as POST with `X-HTTP-Method-Override: <method>`. Default false. */
  methodOverride?: boolean;
  /** Performs the request instead of `$.ajax`. */
  request?: RequestFn;
  /** A singleton resource: no id segment of its own. Default false. Not inherited. */
  isSingle?: boolean;
  /** When false, non-cachable requests leave the cache alone. Default true. */
  autoClearCache?: boolean;
}

/** The fully resolved options of one resource or verb. */
export interface ResolvedOptions {
  cache: number;
  cachableMethods: string[];
  verbs: Record<string, string>;
  url: string;
  stringifyData: boolean;
  stripTrailingSlash: boolean;
  username: string | null;
  password: string | null;
  ajax: AjaxSettings;
  methodOverride: boolean;
  request: RequestFn;
  isSingle: boolean;
  autoClearCache: boolean;
}

/** One verb function: `verb([id1], ..., [idN], [data], [params])`. */
export interface Verb<T = unknown> {
  <R = T>(...args: VerbArg[]): RestPromise<R>;
  /** The verb's name on its resource. */
  readonly verbName: string;
  /** The HTTP method it sends (before method override). */
  readonly method: string;
  /** True for verbs added with `addVerb`: their url segment follows the resource path. */
  readonly custom: boolean;
  /** The verb's resolved options. */
  readonly opts: ResolvedOptions;
}

/** The per-client response cache. */
export interface RestCache {
  /** Empties the cache; with a RegExp, removes only entries whose URL matches. */
  clear(pattern?: RegExp): void;
  /** Number of stored entries (expired ones included until replaced or cleared). */
  readonly size: number;
  /** Clock in ms; defaults to `Date.now()`. Replace it to control expiry. */
  now: () => number;
}

/** Members every resource (root included) has. */
export interface ResourceBase {
  /** Name of the resource; `'ROOT'` for the client itself. */
  readonly name: string;
  /** The resource's URL template with `:ID_<k>/` placeholders. */
  readonly url: string;
  /** The resolved options of this resource. */
  readonly opts: ResolvedOptions;
  /** The parent resource; null on the root. */
  readonly parent: ResourceBase | null;
  /** The root client. */
  readonly root: ResourceBase;
  /** The cache shared by every resource of this client. */
  readonly cache: RestCache;
  /** Number of ids a call to this resource's verbs takes at most. */
  readonly idCount: number;
  /** Adds a verb; its url segment (options.url or the name) follows the resource path. */
  addVerb<T = unknown>(name: string, method: string, options?: RestOptions): Verb<T>;
  /** Prints the tree (URL templates and verbs) to the console and returns the printed text. */
  show(): string;
  /** The resource's name. */
  toString(): string;
}

/** Default verbs with their `del` alias. */
export type DefaultVerbs = { create: 'POST'; read: 'GET'; update: 'PUT'; destroy: 'DELETE' };

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type MergeVerbs<P, O extends VerbMap> = Simplify<Omit<P, keyof O> & O>;
type LiveVerbs<V> = { [K in keyof V as V[K] extends null | '' ? never : K extends 'delete' ? 'destroy' : K]: Verb };
type Aliases<V> = 'destroy' extends keyof LiveVerbs<V> ? { del: Verb } : Record<never, never>;

/** A resource with verb map `V` (its verbs are typed as functions). */
export type Resource<V = DefaultVerbs> = ResourceBase & LiveVerbs<V> & Aliases<V> & ResourceAdder<V>;

/** `add` carries the verb map down the tree, so children get typed verbs. */
export interface ResourceAdder<V> {
  /** Adds a child resource under `name` (also stored as property `name`) and returns it. */
  add<O extends VerbMap = Record<never, never>>(
    name: string,
    options?: RestOptions & { verbs?: O },
  ): Resource<MergeVerbs<V, O>>;
}

/** The root client: no verbs of its own, but `add` and `addVerb`. */
export type RestClient<V = DefaultVerbs> = ResourceBase & ResourceAdder<V>;

/** `$.RestClient`. */
export interface RestClientConstructor {
  new <O extends VerbMap = Record<never, never>>(
    base?: string,
    options?: RestOptions & { verbs?: O },
  ): RestClient<MergeVerbs<DefaultVerbs, O>>;
  /** The defaults every new client starts from. Changing them affects clients created afterwards. */
  defaults: RestOptions;
  /** The plugin version. */
  readonly version: string;
}
