/**
 * Fast Node unit tests of the plugin's pure parts (URL building, argument sorting, option
 * resolution, cache keys), plus compile-time checks of the published types. The browser
 * suites are the ones that exercise the plugin for real.
 */
import test from 'ava';
import fc from 'fast-check';
import { buildPath, finishUrl, idRange, isUnder, join, template, type Level } from '../../browser/url.js';
import { sortArgs, base64 } from '../../browser/request.js';
import { builtInDefaults, resolve, resolveRoot, validate } from '../../browser/options.js';
import { cacheKey, ResponseCache } from '../../browser/cache.js';
import type { JQueryLike, RestClientConstructor } from '../../browser/index.js';

const L = (segment: string, single = false): Level => ({ segment, single });

test('join inserts exactly one slash between base and segment, and keeps an empty base relative', (t) => {
  t.is(join('/api', 'foo'), '/api/foo/');
  t.is(join('/api/', 'foo'), '/api/foo/');
  t.is(join('', 'foo'), 'foo/');
  t.is(join('http://h:1/v1', 'foo'), 'http://h:1/v1/foo/');
});

test("idRange: depth n takes n-1 or n ids; singletons and the root take exactly their ancestors' ids", (t) => {
  t.deepEqual(idRange([]), { min: 0, max: 0 });
  t.deepEqual(idRange([L('a')]), { min: 0, max: 1 });
  t.deepEqual(idRange([L('a'), L('b')]), { min: 1, max: 2 });
  t.deepEqual(idRange([L('a'), L('b', true)]), { min: 1, max: 1 });
  t.deepEqual(idRange([L('a'), L('b', true), L('c')]), { min: 1, max: 2 });
  t.deepEqual(idRange([L('me', true)]), { min: 0, max: 0 });
});

test('buildPath places ids after their levels and the custom verb segment last', (t) => {
  const levels = [L('foo'), L('bar', true), L('bazz')];
  t.is(buildPath('/api', levels, [42, 21]), '/api/foo/42/bar/bazz/21/');
  t.is(buildPath('/api', levels, [42]), '/api/foo/42/bar/bazz/');
  t.is(buildPath('/api', [L('foo')], [42], 'bang'), '/api/foo/42/bang/');
  t.is(buildPath('/api', [], [], 'ping'), '/api/ping/');
});

test('template shows :ID_k placeholders, none for singletons', (t) => {
  t.is(template('/api/', [L('foo'), L('bar', true), L('bazz')]), '/api/foo/:ID_1/bar/bazz/:ID_2/');
  t.is(template('/api/', []), '/api/');
});

test('finishUrl strips the trailing slash before the query string and appends the query last', (t) => {
  t.is(finishUrl('/a/b/', '', true), '/a/b');
  t.is(finishUrl('/a/b/', 'q=1', true), '/a/b?q=1');
  t.is(finishUrl('/a/b/', 'q=1', false), '/a/b/?q=1');
  t.is(finishUrl('/', '', true), '/');
});

test('isUnder matches the resource itself, its children and its query variants only', (t) => {
  t.true(isUnder('/api/foo/42/', '/api/foo/42/'));
  t.true(isUnder('/api/foo/42/bar/1/', '/api/foo/42/'));
  t.true(isUnder('/api/foo/42?x=1', '/api/foo/42'));
  t.true(isUnder('/api/foo/42/bar', '/api/foo/42'));
  t.false(isUnder('/api/foo/420', '/api/foo/42'));
  t.false(isUnder('/api/foo/', '/api/foo/42/'));
});

test('any id becomes exactly one path segment that decodes back to the id', (t) => {
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.integer()), (id) => {
      const path = buildPath('/api', [L('foo')], [id]);
      const segments = path.split('/');
      return segments.length === 5 && decodeURIComponent(segments[3]!) === String(id);
    }),
  );
  t.pass();
});

test('sortArgs: ids in order, first object data, second params; anything else is rejected', (t) => {
  t.deepEqual(sortArgs([1, 'b', { a: 1 }, { q: 2 }]), { ids: [1, 'b'], data: { a: 1 }, params: { q: 2 } });
  t.throws(() => sortArgs([{}, {}, {}]), {
    message: /^jquery\.rest: Invalid argument: \[object Object\] \(object\)\./,
  });
  t.throws(() => sortArgs([Infinity]), { message: /Invalid argument: Infinity \(number\)/ });
});

test('base64 encodes the UTF-8 bytes of credentials', (t) => {
  t.is(base64('admin:s3cret'), Buffer.from('admin:s3cret').toString('base64'));
  t.is(base64('jürgen:pä'), Buffer.from('jürgen:pä').toString('base64'));
});

test('resolve copies instead of mutating: parent, own options and defaults stay as they were', (t) => {
  const $ = { ajax: () => undefined, param: () => '' } as JQueryLike;
  const defaults = builtInDefaults($);
  const root = resolveRoot(defaults, {});
  const own = validate({ ajax: { headers: { X: '1' } }, verbs: { patch: 'patch' }, cachableMethods: ['post'] });
  const child = resolve(root, own);
  t.deepEqual(child.ajax, { dataType: 'json', headers: { X: '1' } });
  t.is(child.verbs['patch'], 'PATCH');
  t.deepEqual(child.cachableMethods, ['POST']);
  t.deepEqual(root.ajax, { dataType: 'json' });
  t.false('patch' in root.verbs);
  t.deepEqual(defaults.cachableMethods, ['GET']);
  t.deepEqual(own, { ajax: { headers: { X: '1' } }, verbs: { patch: 'patch' }, cachableMethods: ['post'] });
});

test('cache keys ignore key order and functions; entries expire after ttl seconds', (t) => {
  t.is(
    cacheKey({ url: '/a', type: 'GET', headers: { b: '1', a: '2' } }),
    cacheKey({ headers: { a: '2', b: '1' }, type: 'GET', url: '/a', beforeSend: () => 1 }),
  );
  const cache = new ResponseCache();
  let now = 0;
  cache.now = () => now;
  const result = { done: () => result } as any;
  cache.put('k', '/a/', result);
  now = 1000;
  t.is(cache.get('k', 1), result);
  now = 1001;
  t.is(cache.get('k', 1), undefined);
});

// Compile-time checks of the published types (never run; `npm run typecheck` checks them).
export function typeChecks(RestClient: RestClientConstructor): void {
  const api = new RestClient('/api', { cache: 5 });
  const users = api.add('users');
  users.read(1).done((data, textStatus, xhr) => [data, textStatus.length, xhr.status]);
  users.del(1);
  users.read<{ name: string }>(1).done((user) => user.name.toUpperCase());
  // @ts-expect-error the typed data has no such field
  users.read<{ name: string }>(1).done((user) => user.age);
  const ban = users.addVerb<{ banned: boolean }>('ban', 'PATCH');
  ban(1).done((r) => r.banned);
  users.destroy(1);
  const posts = users.add('posts', { verbs: { patch: 'PATCH', destroy: null } });
  posts.patch(1, 2, { a: 1 });
  posts.read(1);
  // @ts-expect-error destroy was removed, so neither it nor del exist
  posts.del(1);
  // @ts-expect-error delete is never a verb
  users.delete(1);
  // @ts-expect-error the root has no verbs
  api.read();
  // @ts-expect-error unknown options are rejected at compile time too
  api.add('x', { bogus: true });
  new RestClient('/api', { request: (resource, settings) => [resource.name, settings.url] });
}
