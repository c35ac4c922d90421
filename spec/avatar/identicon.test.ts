import test from 'ava';
import { identicon } from '../../lib/avatar/identicon.js';
import { dimensions } from './helpers.js';

test('identicon is a PNG of the requested size that decodes', async (t) => {
  const png = identicon('github_1');
  t.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  t.deepEqual(await dimensions(png), [300, 300]);
  t.deepEqual(await dimensions(identicon('github_1', 64)), [64, 64]);
});

test('identicon is deterministic per user id and differs between ids', (t) => {
  t.deepEqual(identicon('dev_user'), identicon('dev_user'));
  const many = new Set(Array.from({ length: 50 }, (_, i) => identicon(`user${i}`).toString('hex')));
  t.true(many.size >= 48);
});

test('identicon rejects absurd sizes', (t) => {
  t.throws(() => identicon('x', 0), { instanceOf: RangeError });
  t.throws(() => identicon('x', 1e6), { instanceOf: RangeError });
});
