import test from 'ava';
import { hashId } from '../../lib/user.js';
import {
  boolAttr,
  providerUserId,
  setBoolAttr,
  setSliceAttr,
  setStrAttr,
  sliceAttr,
  strAttr,
  type User,
} from '../../lib/index.js';
import { goString, sha1 } from '../../lib/user.js';

// Ids as the original system hashed them (its HashID): the hex SHA-1 of the raw id, so user ids and
// avatar ids stay the same for users moving over from it.
const vectors: Array<[string, string]> = [
  ['myid', '6e34471f84557e1713012d64a7477c71bfdac631'],
  ['', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
  ['blah blah', '135a1e01bae742c4a576b20fd41a683f6483ca43'],
  ['1234567890', '01b307acba4f54f55aafc33bb06bbbf6ca803e9a'],
  ['dev_direct', '38773b45e3a477434abb6d08668358a2b0ddd2f5'],
  ['xyz@gmail.com', '84714ea398a960df03e2619d1b850dfac25f585e'],
  ['gid:1345027', 'd4dc5da9a1e6bbd5d77920e4ea2ca91707e59083'],
];

for (const [input, hash] of vectors) {
  test(`hashId(${JSON.stringify(input)}) is the original's SHA-1 id`, (t) => {
    t.is(hashId(input), hash);
  });
}

test('a value that already is a 40-hex digest passes through unchanged, in any case', (t) => {
  t.is(hashId('6e34471f84557e1713012d64a7477c71bfdac631'), '6e34471f84557e1713012d64a7477c71bfdac631');
  t.is(hashId('6E34471F84557E1713012D64A7477C71BFDAC631'), '6E34471F84557E1713012D64A7477C71BFDAC631');
  t.is(hashId('6e34471f84557e1713012d64a7477c71bfdac63'), sha1('6e34471f84557e1713012d64a7477c71bfdac63'));
});

test('provider ids are <provider>_<sha1>, e.g. github login lll', (t) => {
  t.is(providerUserId('github', 'lll'), 'github_e80b2d2608711cbb3312db7c4727a46fbad9601a');
  t.is(providerUserId('direct', 'dev_direct'), 'direct_38773b45e3a477434abb6d08668358a2b0ddd2f5');
});

test('numeric provider ids format as Go %v does', (t) => {
  t.is(goString(1345027), '1.345027e+06');
  t.is(goString(123456789), '1.23456789e+08');
  t.is(goString(1000000), '1e+06');
  t.is(goString(999999), '999999');
  t.is(goString(27385), '27385');
  t.is(goString(0.5), '0.5');
  t.is(goString(0.0001), '0.0001');
  t.is(goString(0.00001), '1e-05');
  t.is(goString(-2500000), '-2.5e+06');
  t.is(goString(1e21), '1e+21');
  t.is(goString(null), '');
  t.is(goString('abc'), 'abc');
  t.is(goString(true), 'true');
  t.is(`gid:${goString(1345027)}`, 'gid:1.345027e+06');
});

test('typed attribute helpers return zero values for missing or mistyped keys', (t) => {
  const u: User = { name: 'n', id: 'i', picture: '' };
  t.false(boolAttr(u, 'x'));
  t.is(strAttr(u, 'x'), '');
  t.deepEqual(sliceAttr(u, 'x'), []);
  setBoolAttr(u, 'b', true);
  setStrAttr(u, 's', 'v');
  setSliceAttr(u, 'l', ['a', 'b']);
  t.true(boolAttr(u, 'b'));
  t.is(strAttr(u, 's'), 'v');
  t.deepEqual(sliceAttr(u, 'l'), ['a', 'b']);
  t.false(boolAttr(u, 's'));
  t.is(strAttr(u, 'b'), '');
  t.deepEqual(sliceAttr(u, 's'), []);
  t.deepEqual(u.attrs, { b: true, s: 'v', l: ['a', 'b'] });
});
