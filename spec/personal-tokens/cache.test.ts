/** The per-process cache of verified personal tokens: bounded, least recently used out first, believed for ttlMs. */
import test from 'ava';
import { tokenCache } from '../../lib/personal-tokens/cache.js';
import type { PersonalToken } from '../../lib/personal-tokens/store.js';

const T0 = 1_800_000_000_000;
const token = (id: string, over: Partial<PersonalToken> = {}): PersonalToken => ({
  id,
  userId: 'u1',
  user: { id: 'u1', name: 'Ann', picture: '' },
  name: id,
  scopes: [],
  created: T0,
  hash: `h-${id}`,
  ...over,
});

test('an entry is believed for ttlMs, then the store is asked again (undefined)', (t) => {
  const cache = tokenCache({ ttlMs: 30_000 });
  cache.set('h-a', token('a'), T0);
  t.is(cache.get('h-a', T0 + 29_999)?.id, 'a');
  t.is(cache.get('h-a', T0 + 30_000), undefined);
  t.is(cache.size, 0, 'the stale entry went');
});

test('an unknown token is cached as null, so a flood of made-up tokens reads the store once per ttl', (t) => {
  const cache = tokenCache({ ttlMs: 30_000 });
  t.is(cache.get('h-x', T0), undefined);
  cache.set('h-x', null, T0);
  t.is(cache.get('h-x', T0 + 1), null);
});

test("a token's own expiry ends its entry before the ttl", (t) => {
  const cache = tokenCache({ ttlMs: 30_000 });
  cache.set('h-a', token('a', { expires: T0 + 5000 }), T0);
  t.is(cache.get('h-a', T0 + 4999)?.id, 'a');
  t.is(cache.get('h-a', T0 + 5000), undefined);
});

test('at maxEntries the least recently used goes first; forget drops one at once', (t) => {
  const cache = tokenCache({ ttlMs: 60_000, maxEntries: 2 });
  cache.set('h-a', token('a'), T0);
  cache.set('h-b', token('b'), T0);
  t.is(cache.get('h-a', T0)?.id, 'a', 'a is now the most recently used');
  cache.set('h-c', token('c'), T0);
  t.is(cache.size, 2);
  t.is(cache.get('h-b', T0), undefined, 'b went');
  t.is(cache.get('h-a', T0)?.id, 'a');
  cache.forget('h-a');
  t.is(cache.get('h-a', T0), undefined);
});

test('ttlMs 0 caches nothing; bad options name themselves', (t) => {
  const cache = tokenCache({ ttlMs: 0 });
  cache.set('h-a', token('a'), T0);
  t.is(cache.get('h-a', T0), undefined);
  t.throws(() => tokenCache({ ttlMs: 1, maxEntries: 0 }), { message: /maxEntries/ });
  t.throws(() => tokenCache({ ttlMs: -1 }), { message: /ttlMs/ });
});
