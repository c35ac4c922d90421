/**
 * A shallow copy of `obj` without `key`: what `const { [key]: _, ...rest } = obj` gives (own enumerable
 * properties, symbols included), without a variable that is never read.
 */
export function omit<T extends object, K extends keyof T>(obj: T, key: K): Omit<T, K> {
  const rest = { ...obj };
  delete rest[key];
  return rest;
}
