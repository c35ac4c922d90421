/**
 * A shallow copy of an object's own enumerable fields, as `{ ...obj }` makes it, for a copy that fields are
 * then added to. V8 (Node 20) gives the result of a lone spread `{ ...obj }` a map that keeps no transitions:
 * every field added to such a copy builds a map of its own, about 2 µs a field, and the next copy does it
 * again. Spread into an object literal that has something before it (here an empty spread), the copy is
 * built field by field on the usual shared maps, and a field added later takes a cached transition. A
 * token's claims copied and then given `exp`, `iss`, `iat` and `iat_ms` (every login): 10–12 µs one way,
 * 0.2–0.35 µs the other. The copy is the same: own fields defined (a `__proto__` key stays a field).
 */
export function extensibleCopy<T extends object>(obj: T): T {
  return { ...{}, ...obj };
}
