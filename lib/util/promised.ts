/**
 * `run()` as a promise, a throw becoming its rejection: what an async function without an await gave.
 * The result is settled in the same tick (a plain value is not awaited again), so a store's hot path
 * pays nothing for it.
 */
export function promised<T>(run: () => T | PromiseLike<T>): Promise<T> {
  return new Promise<T>((resolve) => resolve(run()));
}

/**
 * A promise rejected with `err`, whatever was thrown (Promise.reject is for Errors; a caught value may be
 * anything).
 */
export function rejected(err: unknown): Promise<never> {
  return promised(() => {
    throw err;
  });
}
