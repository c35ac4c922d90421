/** A misspelled option fails start-up, naming it and the option that was probably meant. */
import test from 'ava';
import { authKoa, registerProvider } from '../../lib/index.js';
import { closest } from '../../lib/util/options.js';

const base = {
  secret: 'strict-options-secret-0123456789abcdef',
  url: 'http://127.0.0.1:1',
  logger: () => {},
  providers: [{ kind: 'direct' as const, name: 'local', checker: () => true }],
};

test('an unknown top-level option is a TypeError from authKoa() naming it and its closest known name', (t) => {
  const cases: Array<[string, string]> = [
    ['tokenDuraton', 'unknown option "tokenDuraton" (did you mean "tokenDuration"?)'],
    ['stateStor', 'unknown option "stateStor" (did you mean "stateStore"?)'],
    ['adminPasword', 'unknown option "adminPasword" (did you mean "adminPasswd"?)'],
    ['Audiences', 'unknown option "Audiences" (did you mean "audiences"?)'],
    ['cookieDurtaion', 'unknown option "cookieDurtaion" (did you mean "cookieDuration"?)'],
    ['somethingElse', 'unknown option "somethingElse"'],
  ];
  for (const [key, message] of cases) {
    t.throws(
      () => authKoa({ ...base, [key]: 1 } as never),
      { instanceOf: TypeError, message: `authKoa: ${message}` },
      key,
    );
  }
});

test('an unknown option of a built-in kind rejects ready, naming the entry, the option and its closest name', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [
      { kind: 'direct', name: 'local', checker: () => true, userIdFn: () => 'x' },
      'providers[0] (direct): unknown option "userIdFn" (did you mean "userIdFunc"?)',
    ],
    [
      { name: 'github', cid: 'id', csecret: 's', scope: ['user'] },
      'providers[0] (social): unknown option "scope" (did you mean "scopes"?)',
    ],
    [
      { kind: 'verified', name: 'email', sender: async () => {}, templat: '{{.Token}}' },
      'providers[0] (verified): unknown option "templat" (did you mean "template"?)',
    ],
    [
      {
        kind: 'oauth2',
        name: 'corp',
        cid: 'c',
        endpoint: { authURL: 'http://127.0.0.1:1/a', tokenURL: 'http://127.0.0.1:1/t' },
        infoURL: 'http://127.0.0.1:1/i',
        mapUser: () => ({ id: 'x' }),
        infoUrl: 'x',
      },
      'providers[0] (oauth2): unknown option "infoUrl" (did you mean "infoURL"?)',
    ],
    [
      { kind: 'telegram', token: '1:abc', pollTimout: 5 },
      'providers[0] (telegram): unknown option "pollTimout" (did you mean "pollTimeout"?)',
    ],
  ];
  for (const [entry, message] of cases) {
    const auth = authKoa({ ...base, providers: [entry as never] });
    await t.throwsAsync(auth.ready, { instanceOf: TypeError, message: `authKoa: ${message}` }, message);
    await auth.close();
  }
});

test('the documented option shapes of each built-in kind pass the check', async (t) => {
  const auth = authKoa({
    ...base,
    providers: [
      { name: 'github', cid: 'id', csecret: 's', numericId: true, scopes: ['read:user'], timeout: 5000, pkce: true },
      { name: 'microsoft', client: { cid: 'id', csecret: 's' }, tenant: 'common' },
      {
        kind: 'oauth2',
        name: 'corp',
        client: { cid: 'c', csecret: 's' },
        endpoint: { authURL: 'http://127.0.0.1:1/a', tokenURL: 'http://127.0.0.1:1/t' },
        infoURL: 'http://127.0.0.1:1/i',
        mapUser: () => ({ id: 'x', name: 'x', picture: '' }),
        scopes: ['openid'],
      },
      { kind: 'direct', name: 'local', checker: () => true, userIdFunc: (u: string) => u },
    ],
  });
  t.teardown(() => auth.close());
  await t.notThrowsAsync(auth.ready);
});

test('a third-party kind without an options list is not checked; with one, it is', async (t) => {
  registerProvider({
    kind: 'loose-kind',
    create: (o) => ({ name: String(o.name), async login() {}, async logout() {} }),
  });
  registerProvider({
    kind: 'strict-kind',
    options: ['kind', 'name', 'colour'],
    create: (o) => ({ name: String(o.name), async login() {}, async logout() {} }),
  });
  const loose = authKoa({
    ...base,
    providers: [{ kind: 'loose-kind', name: 'l', anything: 1 } as import('../../lib/index.js').ProviderEntry],
  });
  t.teardown(() => loose.close());
  await t.notThrowsAsync(loose.ready);
  const strict = authKoa({
    ...base,
    providers: [{ kind: 'strict-kind', name: 's', color: 'red' } as import('../../lib/index.js').ProviderEntry],
  });
  t.teardown(() => strict.close());
  await t.throwsAsync(strict.ready, {
    message: 'authKoa: providers[0] (strict-kind): unknown option "color" (did you mean "colour"?)',
  });
});

test('closest(): small edits and case slips, nothing for far-off words', (t) => {
  const known = ['tokenDuration', 'cookieDuration', 'secret', 'url'];
  t.is(closest('secert', known), 'secret');
  t.is(closest('URL', known), 'url');
  t.is(closest('tokenduration', known), 'tokenDuration');
  t.is(closest('password', known), undefined);
  t.is(closest('u', known), 'url');
});

test('a secretReader that answers per audience without audSecrets fails start-up saying what to set', async (t) => {
  const secrets: Record<string, string> = {
    ignore: 'the-default-secret-0123456789abcdef',
    'site-a': 'site-a-secret-0123456789abcdef0123',
    'site-b': 'the-default-secret-0123456789abcdef',
  };
  const { secret: _omit, ...rest } = base;
  const perAudience = authKoa({
    ...rest,
    audiences: ['site-a', 'site-b'],
    secretReader: (aud: string) => secrets[aud] ?? '',
  });
  t.teardown(() => perAudience.close());
  await t.throwsAsync(perAudience.ready, {
    instanceOf: TypeError,
    message: /^authKoa: secretReader gives audience "site-a" another secret than "ignore".*set audSecrets: true/,
  });
  const withAudSecrets = authKoa({
    ...rest,
    audiences: ['site-a', 'site-b'],
    audSecrets: true,
    secretReader: (aud: string) => secrets[aud] ?? '',
  });
  t.teardown(() => withAudSecrets.close());
  await t.notThrowsAsync(withAudSecrets.ready);
  const same = authKoa({ ...rest, secretReader: () => 'one-secret-for-all-0123456789abcdef' });
  t.teardown(() => same.close());
  await t.notThrowsAsync(same.ready, 'one secret for every audience is fine');
  const failing = authKoa({ ...rest, secretReader: () => Promise.reject(new Error('vault not up yet')) });
  t.teardown(() => failing.close());
  await t.notThrowsAsync(failing.ready, 'a reader that fails at start-up is asked again per request');
});

test('a url without its scheme is a TypeError that says which URL to write', (t) => {
  for (const url of ['localhost:8080', '127.0.0.1:8080', 'app.example.com']) {
    t.throws(() => authKoa({ ...base, url }), {
      instanceOf: TypeError,
      message: `authKoa: url needs its scheme: "http://${url}" or https://… (got "${url}")`,
    });
  }
});

test('a secret shorter than 32 bytes is a TypeError that says how to make one and how to rotate out the old one', (t) => {
  for (const secret of ['s3cret', 'a long random string', 'x'.repeat(31), 'é'.repeat(15)]) {
    const err = t.throws(() => authKoa({ ...base, secret }), { instanceOf: TypeError }, secret);
    t.regex(
      err!.message,
      new RegExp(`^authKoa: secret is ${Buffer.byteLength(secret)} bytes; it must be at least 32 bytes`),
      secret,
    );
    t.regex(err!.message, /authctl secret/);
    t.regex(err!.message, /previousSecrets/);
  }
  // Bytes, not characters: 16 two-byte characters are 32 bytes.
  t.notThrows(() => authKoa({ ...base, secret: 'é'.repeat(16) }));
  t.notThrows(() => authKoa({ ...base, secret: 'x'.repeat(32) }));
  // The old, short secret may stay as a previous secret, to verify tokens signed before the change.
  t.notThrows(() => authKoa({ ...base, secret: 'x'.repeat(32), previousSecrets: ['s3cret'] }));
});

test("a secretReader's short secret fails start-up: the reader is asked for 'ignore' and each audience", async (t) => {
  const { secret: _omit, ...rest } = base;
  const long = 'a-reader-secret-0123456789abcdef-0123';
  const cases: Array<[string, Record<string, string>]> = [
    ['ignore', { ignore: 'short' }],
    ['site-b', { ignore: long, 'site-a': long, 'site-b': 'still-too-short-0123456789' }],
  ];
  for (const [aud, secrets] of cases) {
    const auth = authKoa({
      ...rest,
      audiences: ['site-a', 'site-b'],
      audSecrets: true,
      secretReader: (a: string) => secrets[a] ?? long,
    });
    t.teardown(() => auth.close());
    await t.throwsAsync(auth.ready, {
      instanceOf: TypeError,
      message: new RegExp(
        `^authKoa: secretReader gives audience "${aud}" a secret of ${Buffer.byteLength(secrets[aud]!)} bytes; each must be at least 32 bytes`,
      ),
    });
  }
});
