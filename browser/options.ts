/**
 * Option defaults, validation and inheritance. Every level (client, resource, verb) gets a
 * fresh resolved object: the parent's values, then the level's own on top, deep-merged into
 * copies so that nothing given to one resource ever reaches another one or the defaults.
 */
import { RestClientError } from './errors.js';
import type { AjaxSettings, JQueryLike, RequestFn, ResolvedOptions, RestOptions } from './types.js';

/** The option keys the plugin knows; anything else is rejected. */
export const OPTION_KEYS: readonly (keyof RestOptions)[] = [
  'cache',
  'cachableMethods',
  'verbs',
  'url',
  'stringifyData',
  'stripTrailingSlash',
  'username',
  'password',
  'ajax',
  'methodOverride',
  'request',
  'isSingle',
  'autoClearCache',
];

const KNOWN = new Set<string>(OPTION_KEYS);

/** True for `{}`-style objects (not arrays, dates, class instances). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Deep copy of plain objects and arrays; other values are shared. */
export function clone<T>(value: T): T {
  if (Array.isArray(value)) return value.map(clone) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = clone(value[key]);
    return out as T;
  }
  return value;
}

/** Merges `source` into a copy of `target`: plain objects recursively, everything else replaced. */
export function merge<T extends Record<string, unknown>>(target: T, source: Record<string, unknown>): T {
  const out: Record<string, unknown> = clone(target);
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (value === undefined) continue;
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? merge(out[key], value) : clone(value);
  }
  return out as T;
}

/** The built-in defaults; `request` calls the given jQuery's ajax. */
export function builtInDefaults($: JQueryLike): Required<RestOptions> {
  const request: RequestFn = (_resource, settings) => $.ajax(settings);
  return {
    cache: 0,
    cachableMethods: ['GET'],
    verbs: { create: 'POST', read: 'GET', update: 'PUT', destroy: 'DELETE' },
    url: '',
    stringifyData: false,
    stripTrailingSlash: false,
    username: null,
    password: null,
    ajax: { dataType: 'json' },
    methodOverride: false,
    request,
    isSingle: false,
    autoClearCache: true,
  };
}

function fail(text: string): never {
  throw new RestClientError('invalid_option', text);
}

/** Throws on unknown keys and on values of the wrong type; returns the options or `{}`. */
export function validate(options: unknown): RestOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) fail('options must be a plain object');
  const opts = options as Record<string, unknown>;
  for (const key of Object.keys(opts)) {
    if (!KNOWN.has(key)) throw new RestClientError('unknown_option', `Unknown option: '${key}'`);
    const value = opts[key];
    if (value === undefined) continue;
    switch (key) {
      case 'cache':
        if (typeof value !== 'number' || !(value >= 0)) fail(`'cache' must be a number of seconds >= 0`);
        break;
      case 'cachableMethods':
        if (!Array.isArray(value) || !value.every((m) => typeof m === 'string'))
          fail(`'cachableMethods' must be an array of strings`);
        break;
      case 'verbs':
        if (!isPlainObject(value) || !Object.values(value).every((m) => m === null || typeof m === 'string'))
          fail(`'verbs' must be an object of verb name to HTTP method`);
        break;
      case 'url':
        if (typeof value !== 'string') throw new RestClientError('invalid_url', `'url' must be a string`);
        break;
      case 'username':
      case 'password':
        if (value !== null && typeof value !== 'string') fail(`'${key}' must be a string`);
        break;
      case 'ajax':
        if (!isPlainObject(value)) fail(`'ajax' must be a plain object`);
        break;
      case 'request':
        if (typeof value !== 'function') fail(`'request' must be a function`);
        break;
      default:
        if (typeof value !== 'boolean') fail(`'${key}' must be a boolean`);
    }
  }
  return opts;
}

/** Normalises a verb map: upper-case methods, `delete` becomes `destroy`, null/'' removes a verb. */
function mergeVerbs(parent: Record<string, string>, own: Record<string, string | null>): Record<string, string> {
  const out = { ...parent };
  for (const [rawName, method] of Object.entries(own)) {
    const name = rawName === 'delete' ? 'destroy' : rawName;
    if (method === null || method === '') delete out[name];
    else out[name] = method.toUpperCase();
  }
  return out;
}

/**
 * Resolves one level's options: everything from `parent` except `url` and `isSingle`, then the
 * level's own (already validated) options on top. Neither argument is modified.
 */
export function resolve(parent: ResolvedOptions, own: RestOptions): ResolvedOptions {
  return {
    cache: own.cache ?? parent.cache,
    cachableMethods: (own.cachableMethods ?? parent.cachableMethods).map((m) => m.toUpperCase()),
    verbs: mergeVerbs(parent.verbs, own.verbs ?? {}),
    url: own.url ?? '',
    stringifyData: own.stringifyData ?? parent.stringifyData,
    stripTrailingSlash: own.stripTrailingSlash ?? parent.stripTrailingSlash,
    username: own.username !== undefined ? own.username : parent.username,
    password: own.password !== undefined ? own.password : parent.password,
    ajax: own.ajax ? merge(parent.ajax, own.ajax) : clone<AjaxSettings>(parent.ajax),
    methodOverride: own.methodOverride ?? parent.methodOverride,
    request: own.request ?? parent.request,
    isSingle: own.isSingle ?? false,
    autoClearCache: own.autoClearCache ?? parent.autoClearCache,
  };
}

/** Resolves the root's options from the defaults (built-in merged with user-changed `$.RestClient.defaults`). */
export function resolveRoot(defaults: Required<RestOptions>, own: RestOptions): ResolvedOptions {
  const base: ResolvedOptions = {
    ...defaults,
    verbs: mergeVerbs({}, defaults.verbs),
    cachableMethods: [...defaults.cachableMethods],
    ajax: clone(defaults.ajax),
  };
  return resolve(base, own);
}
