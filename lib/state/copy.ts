/**
 * Copies of the JSON data the in-process stores keep and hand out (the memory store's values, the memory
 * broadcast's messages), so that no caller shares an object with another: the common flat record by spread,
 * anything else by structuredClone, which took 1–2 µs even for a record of two numbers.
 */

/** A plain object whose fields are all primitives: copied by spread, which leaves nothing shared. */
export function isFlatRecord(value: object): value is Record<string, unknown> {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const k in value) {
    const f = (value as Record<string, unknown>)[k];
    if (f !== null && typeof f === 'object') return false;
  }
  return true;
}

/**
 * A copy of `value` that shares nothing with it: a primitive as it is, a flat record by spread, else structuredClone.
 */
export function copyValue<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  return isFlatRecord(value) ? { ...value } : structuredClone(value);
}
