/** The `tokens` option: refused at authKoa() naming the option, a misspelling with the closest name. */
import test from 'ava';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';

const BASE = {
  secret: 'tokens-options-secret-0123456789abcdef',
  url: 'http://localhost:8080',
  allowVolatileStores: true,
  logger: { info: () => {}, warn: () => {}, error: () => {} },
  accounts: { store: 'memory://' },
  providers: [{ kind: 'password', name: 'local', sender: () => undefined }],
} as unknown as AuthKoaOptions;

const refused = (tokens: unknown, over: Partial<AuthKoaOptions> = {}) =>
  (() => authKoa({ ...BASE, ...over, tokens } as AuthKoaOptions)) as () => unknown;

test('each bad value names its option', (t) => {
  const cases: Array<[unknown, RegExp]> = [
    ['yes', /tokens must be true or an object/],
    [{ prefx: 'abc' }, /"tokens\.prefx".*prefix/],
    [{ prefix: 'A_B' }, /tokens\.prefix must be 2 to 10 lower-case letters/],
    [{ revocationDelay: 'soon' }, /tokens\.revocationDelay/],
    [{ maxPerUser: 0 }, /tokens\.maxPerUser must be a positive integer/],
    [{ cacheSize: 1.5 }, /tokens\.cacheSize must be a positive integer/],
    [{ maxLifetime: -1 }, /tokens\.maxLifetime/],
    [{ scopes: ['read all'] }, /tokens\.scopes must be an array of scope names/],
    [{ fresh: 'x' }, /tokens\.fresh/],
    [{ failedLookups: true }, /tokens\.failedLookups must be false or \{ limit, window \}/],
    [{ failedLookups: { limit: 0 } }, /tokens\.failedLookups\.limit must be a positive integer/],
    [{ failedLookups: { limit: 2.5 } }, /tokens\.failedLookups\.limit must be a positive integer/],
    [{ failedLookups: { window: 'a while' } }, /tokens\.failedLookups\.window must be a positive number/],
    [{ failedLookups: { limt: 5 } }, /tokens\.failedLookups takes limit and window, not "limt"/],
  ];
  for (const [value, message] of cases)
    t.throws(refused(value), { instanceOf: TypeError, message }, JSON.stringify(value));
});

test('tokens needs accounts: a token belongs to an account', (t) => {
  t.throws(refused(true, { accounts: undefined }), { instanceOf: TypeError, message: /tokens needs accounts/ });
});

test('a memory state store is refused for the tokens unless allowVolatileStores: they would die with the process', (t) => {
  for (const stateStore of [undefined, 'memory', 'memory://']) {
    const durableAccounts = { allowVolatileStores: false, accounts: { store: 'lmdb:///tmp/authkoa-none' }, stateStore };
    t.throws(refused(true, durableAccounts as Partial<AuthKoaOptions>), {
      instanceOf: TypeError,
      message: /stateStore \(where tokens keeps its hashes\) is a memory store, which forgets every personal token/,
    });
  }
});

test('true and an object both turn it on; false leaves it off', async (t) => {
  for (const tokens of [true, { prefix: 'acme', scopes: ['read'] }]) {
    const auth = authKoa({ ...BASE, tokens } as AuthKoaOptions);
    await auth.ready;
    t.true(auth.features.list().includes('tokens'));
    await auth.close();
  }
  const off = authKoa({ ...BASE, tokens: false } as AuthKoaOptions);
  await off.ready;
  t.false(off.features.list().includes('tokens'));
  await off.close();
});
