/**
 * A backend (a store, a database connection) opened on first use rather than at start-up, and opened
 * again at the next use when opening failed: a database that is down when the app starts is picked up
 * once it is back, and no request waits on a connection attempt that already failed.
 */
// `this: void`: both are closures over the resource's state, meant to be passed around detached.
export interface LazyResource<T> {
  /** The open resource; the first call opens it, a call after a failed open tries again. */
  get(this: void): Promise<T>;
  /** Closes what was opened (when `owned`); a later get() opens it again, unless `final`. Safe to call twice. */
  close(this: void): Promise<void>;
}

export interface LazyOptions {
  /** Turns an open failure into what get() rejects with (and is the place to log it). Default: the failure itself. */
  onError?: (err: unknown) => unknown;
  /** Whether close() closes the resource (false for one the application passed in). Default true. */
  owned?: boolean;
  /** get() after close() rejects (naming `what`) instead of opening again. Default false. */
  final?: boolean;
  /** Named in the error get() rejects with after a final close(). Default 'resource'. */
  what?: string;
}

/** Wraps `open` as a LazyResource. */
export function lazyResource<T extends { close(): Promise<void> }>(
  open: () => T | Promise<T>,
  opts: LazyOptions = {},
): LazyResource<T> {
  let opening: Promise<T> | undefined;
  let closed = false;
  return {
    get() {
      if (closed && opts.final) return Promise.reject(new Error(`${opts.what ?? 'resource'} is closed`));
      opening ??= Promise.resolve()
        .then(open)
        .catch((err: unknown) => {
          opening = undefined; // the next use tries again
          throw opts.onError ? opts.onError(err) : err;
        });
      return opening;
    },
    async close() {
      closed = true;
      const pending = opening;
      opening = undefined;
      const resource = await pending?.catch(() => undefined);
      if (resource && opts.owned !== false) await resource.close();
    },
  };
}
