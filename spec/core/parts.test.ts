import test from 'ava';
import { safeEqual } from '../../lib/util/safe-equal.js';
import { readCookie } from '../../lib/session/transport.js';

test('readCookie finds one cookie by exact name, wherever it stands in the header', (t) => {
  t.is(readCookie('JWT=a; XSRF-TOKEN=b', 'JWT'), 'a');
  t.is(readCookie('XSRF-TOKEN=b;JWT=a', 'JWT'), 'a');
  t.is(readCookie('JWTX=1; XJWT=2; JWT=3', 'JWT'), '3', 'no prefix or suffix matches');
  t.is(readCookie('x=JWT=1; JWT=ok ', 'JWT'), 'ok', 'a value containing the name is not a match');
  t.is(readCookie('a=1', 'JWT'), '');
  t.is(readCookie('', 'JWT'), '');
  t.is(readCookie('JWT=', 'JWT'), '');
  t.is(
    readCookie('JWT=first; JWT=second', 'JWT'),
    'first',
    'the first of duplicates, as browsers order the most specific first',
  );
});

test('safeEqual: equal strings only, any length or content', (t) => {
  t.true(safeEqual('', ''));
  t.true(safeEqual('a'.repeat(40), 'a'.repeat(40)));
  t.false(safeEqual('a'.repeat(40), 'a'.repeat(39) + 'b'));
  t.false(safeEqual('abc', 'abcd'));
  t.false(safeEqual('é', 'e'));
  t.true(safeEqual('日本', '日本'));
});
