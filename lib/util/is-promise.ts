/**
 * True for a promise: the hot path's synchronous-or-async results branch on it instead of awaiting a value already
 * there.
 */
export function isPromise<T>(v: T | Promise<T>): v is Promise<T> {
  return v instanceof Promise;
}
