import { parseDuration, type Duration } from '../util/duration.js';

/**
 * Readers of one option each, of the shapes authKoa() options take. Each returns the value with its
 * default, or throws a TypeError naming the option: `authKoa: <option> <what it must be>`.
 */

/** The options object as the readers see it. */
export type RawOptions = Record<string, unknown>;

export const fail = (option: string, must: string): never => {
  throw new TypeError(`authKoa: ${option} ${must}`);
};

export function optionalString(o: RawOptions, key: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') fail(key, 'must be a non-empty string');
  return v as string;
}

/** A function, or an object with `method` (called as that object's method); undefined or null is none. */
export function optionalFunction<F>(o: RawOptions, key: string, method?: string): F | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'function') return v as F;
  if (method && typeof v === 'object' && typeof (v as Record<string, unknown>)[method] === 'function') {
    const obj = v as Record<string, (...a: unknown[]) => unknown>;
    return ((...args: unknown[]) => obj[method](...args)) as F;
  }
  return fail(key, method ? `must be a function or an object with a ${method}() method` : 'must be a function');
}

/** A Duration in milliseconds. */
export function duration(o: RawOptions, key: string, dflt: number | undefined): number | undefined {
  const v = o[key] ?? dflt;
  if (v === undefined) return undefined;
  try {
    return parseDuration(v as Duration, key);
  } catch (err) {
    return fail(key, (err as Error).message.slice(key.length + 1));
  }
}

/** A route prefix, without its trailing slashes. */
export function routePath(o: RawOptions, key: string, dflt: string): string {
  const v = o[key] ?? dflt;
  if (typeof v !== 'string' || !/^\/[A-Za-z0-9._~\-/]*$/.test(v) || v.includes('//')) {
    fail(key, `must be a path starting with '/' (got ${JSON.stringify(v)})`);
  }
  const p = (v as string).replace(/\/+$/, '');
  return p === '' ? fail(key, 'must not be the root path') : p;
}

export function plainObject(o: RawOptions, key: string): Record<string, unknown> {
  const v = o[key];
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(key, 'must be an object');
  return v as Record<string, unknown>;
}

export function positiveInteger(o: RawOptions, key: string, dflt: number): number {
  const v = o[key] ?? dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
    fail(key, `must be a whole number, 1 or more (got ${JSON.stringify(v)})`);
  return v as number;
}

export function bool(o: RawOptions, key: string, dflt: boolean): boolean {
  const v = o[key];
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') fail(key, 'must be a boolean');
  return v as boolean;
}

export function stringList(o: RawOptions, key: string): string[] | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) fail(key, 'must be an array of strings');
  return v as string[];
}

const TOKEN_CHARS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/; // RFC 7230 token: valid cookie and header names

export function cookieName(o: RawOptions, key: string, dflt: string): string {
  const v = optionalString(o, key) ?? dflt;
  return TOKEN_CHARS.test(v) ? v : fail(key, 'must be a valid cookie name');
}

/** A header name, lower case (as node keys `req.headers`). */
export function headerName(o: RawOptions, key: string, dflt: string): string {
  const v = optionalString(o, key) ?? dflt;
  return TOKEN_CHARS.test(v) ? v.toLowerCase() : fail(key, 'must be a valid header name');
}
