import test from 'ava';
import { extensibleCopy } from '../../lib/util/extensible-copy.js';

test('extensibleCopy: the own fields of a spread, in their order, a __proto__ key kept as a field; the original untouched', (t) => {
  const parsed = JSON.parse('{"b":1,"__proto__":{"polluted":true},"a":{"n":2}}') as Record<string, unknown>;
  const copy = extensibleCopy(parsed);
  t.not(copy, parsed);
  t.deepEqual(Object.keys(copy), ['b', '__proto__', 'a'], 'the same own fields, in the same order, as { ...parsed }');
  t.deepEqual(Object.keys(copy), Object.keys({ ...parsed }));
  t.is(Object.getPrototypeOf(copy), Object.prototype, 'a __proto__ field does not set the prototype');
  t.is((copy as { polluted?: unknown }).polluted, undefined);
  t.is(copy.a, parsed.a, 'shallow: nested values are shared, as with a spread');
  copy.c = 3;
  t.false('c' in parsed, 'a field added to the copy is not added to the original');
});
