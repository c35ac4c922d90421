/**
 * URL building: pure functions of the resource chain, the ids and the query. The path is
 * `<base>/<seg>/<id>/.../[<verb>/]`, ids are URL-encoded path segments, and the query string
 * always comes last.
 */
import type { Id } from './types.js';

/** One resource level below the root: its path segment and whether it is a singleton. */
export interface Level {
  readonly segment: string;
  readonly single: boolean;
}

/** Appends `segment/` to a path, inserting a slash unless the path is empty or already ends in one. */
export function join(path: string, segment: string): string {
  return (path === '' || path.endsWith('/') ? path : path + '/') + segment + '/';
}

/** How many ids a verb of the resource at the end of `levels` takes: `{min, max}`. */
export function idRange(levels: readonly Level[]): { min: number; max: number } {
  const max = levels.filter((level) => !level.single).length;
  const last = levels[levels.length - 1];
  // A singleton (and the root) has no id of its own to leave out, so it takes exactly max ids.
  const min = !last || last.single ? max : max - 1;
  return { min, max };
}

/** Encodes one id as a single path segment. */
export function encodeId(id: Id): string {
  return encodeURIComponent(String(id));
}

/** The path for a call with `ids` (already checked against idRange), plus the custom verb's segment. */
export function buildPath(base: string, levels: readonly Level[], ids: readonly Id[], verbSegment?: string): string {
  let path = base;
  let next = 0;
  for (const level of levels) {
    path = join(path, level.segment);
    if (!level.single && next < ids.length) path += encodeId(ids[next++]) + '/';
  }
  return verbSegment === undefined ? path : join(path, verbSegment);
}

/** The URL template shown by `show()`: ids as `:ID_<k>` placeholders. */
export function template(base: string, levels: readonly Level[]): string {
  let path = base;
  let k = 0;
  for (const level of levels) {
    path = join(path, level.segment);
    if (!level.single) path += `:ID_${++k}/`;
  }
  return path;
}

/** Removes one trailing slash from a path (never from a bare `/`). */
export function stripSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** The final URL: path (stripped if asked) and then the query string, if any. */
export function finishUrl(path: string, query: string, stripTrailingSlash: boolean): string {
  const finalPath = stripTrailingSlash ? stripSlash(path) : path;
  if (query === '') return finalPath;
  return finalPath + (finalPath.includes('?') ? '&' : '?') + query;
}

/** The path part of a URL (everything before `?`). */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * True when `url` is the resource at `path` or lies beneath it: equal, or continuing with a
 * `/` or `?` right after it. Used by autoClearCache.
 */
export function isUnder(url: string, path: string): boolean {
  if (!url.startsWith(path)) return false;
  if (url.length === path.length || path.endsWith('/')) return true;
  const next = url[path.length];
  return next === '/' || next === '?';
}
