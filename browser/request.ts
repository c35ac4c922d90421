/**
 * What one verb call does: sort the arguments into ids, data and params, build the final
 * ajax settings, consult the cache, and hand the settings to the `request` option.
 */
import { argumentError, idCountError } from './errors.js';
import { clone, isPlainObject, merge } from './options.js';
import { buildPath, finishUrl, idRange, pathOf, type Level } from './url.js';
import { cacheKey, type ResponseCache } from './cache.js';
import type { AjaxSettings, Id, JQueryLike, ResolvedOptions, ResourceBase, RestPromise } from './types.js';

/** The arguments of a verb call, sorted. */
export interface CallArgs {
  ids: Id[];
  data?: object;
  params?: object;
}

/** Everything a verb needs to know about where it sits. */
export interface VerbContext {
  readonly $: JQueryLike;
  readonly base: string;
  readonly levels: readonly Level[];
  readonly cache: ResponseCache;
  readonly resource: ResourceBase;
  readonly method: string;
  /** The custom verb's url segment; undefined for verbs from the `verbs` option. */
  readonly segment: string | undefined;
  readonly opts: ResolvedOptions;
}

function isId(arg: unknown): arg is Id {
  return typeof arg === 'string' || (typeof arg === 'number' && Number.isFinite(arg));
}

function isDataObject(arg: unknown): arg is object {
  return (
    typeof arg === 'object' && arg !== null && !Array.isArray(arg) && !(arg instanceof Date) && !(arg instanceof RegExp)
  );
}

/**
 * Sorts verb arguments: strings and finite numbers are ids (in order), the first object is
 * data, the second params. Anything else, or a third object, throws "Invalid argument".
 */
export function sortArgs(args: readonly unknown[]): CallArgs {
  const out: CallArgs = { ids: [] };
  for (const arg of args) {
    if (isId(arg)) out.ids.push(arg);
    else if (isDataObject(arg) && out.data === undefined) out.data = arg;
    else if (isDataObject(arg) && out.params === undefined) out.params = arg;
    else throw argumentError(arg);
  }
  return out;
}

/** base64 of the UTF-8 bytes of `text` (so non-Latin-1 credentials work too). */
export function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const BODYLESS = new Set(['GET', 'HEAD']);

/** Builds the final ajax settings of a call. Throws (before anything is sent) on bad arguments. */
export function buildSettings(ctx: VerbContext, args: readonly unknown[]): AjaxSettings {
  const { opts, $ } = ctx;
  const call = sortArgs(args);
  const { min, max } = idRange(ctx.levels);
  if (call.ids.length < min || call.ids.length > max) throw idCountError(min, max, call.ids.length);

  const settings: AjaxSettings = clone(opts.ajax);
  const configured = settings.data;
  delete settings.data;

  // Call data extends ajax.data of the options; without call data, ajax.data is sent alone.
  let data: unknown = configured;
  if (call.data !== undefined) {
    data = isPlainObject(configured) && isPlainObject(call.data) ? merge(configured, call.data) : call.data;
  }

  const method = ctx.method;
  const headers: Record<string, string> = { ...(settings.headers ?? {}) };
  let query = call.params ? $.param(call.params) : '';

  if (BODYLESS.has(method)) {
    // GET and HEAD have no body: data joins params in the query string (data wins on equal keys).
    if (isPlainObject(data)) query = $.param(merge((call.params ?? {}) as Record<string, unknown>, data));
    else if (data !== undefined) settings.data = data;
  } else if (data !== undefined) {
    if (opts.stringifyData) {
      settings.data = JSON.stringify(data);
      settings.contentType = 'application/json';
    } else {
      settings.data = data;
    }
  }

  if (opts.username && opts.password) headers['Authorization'] = `Basic ${base64(`${opts.username}:${opts.password}`)}`;

  let type = method;
  if (opts.methodOverride && !BODYLESS.has(method)) {
    headers['X-HTTP-Method-Override'] = method;
    type = 'POST';
  }

  const path = buildPath(ctx.base, ctx.levels, call.ids, ctx.segment);
  settings.url = finishUrl(path, query, opts.stripTrailingSlash);
  settings.type = type;
  settings.headers = headers;
  return settings;
}

function onSuccess(result: unknown, store: () => void): void {
  const r = result as { done?: unknown; then?: unknown } | null | undefined;
  if (r && typeof r.done === 'function') (r as RestPromise).done(store);
  else if (r && typeof r.then === 'function') (r as PromiseLike<unknown>).then(store, () => undefined);
}

/** Runs one verb call: settings, cache lookup or auto-clear, then `request`. */
export function perform(ctx: VerbContext, args: readonly unknown[]): RestPromise {
  const { opts, cache } = ctx;
  const settings = buildSettings(ctx, args);
  const url = settings.url!;
  const cachable = opts.cache > 0 && opts.cachableMethods.includes(settings.type!);

  if (cachable) {
    const key = cacheKey(settings);
    const hit = cache.get(key, opts.cache);
    if (hit) return hit;
    const result = opts.request(ctx.resource, settings) as RestPromise;
    onSuccess(result, () => cache.put(key, url, result));
    return result;
  }
  if (opts.autoClearCache && !opts.cachableMethods.includes(settings.type!)) cache.clearUnder(pathOf(url));
  // Whatever `request` returned (a jqXHR, or a custom request's deferred or promise) is the verb's promise.
  return opts.request(ctx.resource, settings) as RestPromise;
}
