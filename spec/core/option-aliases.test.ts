/** Option names brought from other libraries fail start-up pointing at ours, not at a near-miss by spelling. */
import test from 'ava';
import { authKoa } from '../../lib/index.js';
import { unknownOption } from '../../lib/util/options.js';

const base = {
  secret: 'option-aliases-secret-0123456789abcdef',
  url: 'http://127.0.0.1:1',
  logger: () => {},
  providers: [{ kind: 'direct' as const, name: 'local', checker: () => true }],
};

test("a provider entry with another library's names rejects ready naming ours (cid, csecret, scopes, …)", async (t) => {
  const github = { name: 'github', cid: 'id', csecret: 's' };
  const cases: Array<[Record<string, unknown>, string]> = [
    // Edit distance alone suggested "client" here, and nothing for client_secret.
    [
      { name: 'github', clientId: 'id', csecret: 's' },
      'providers[0] (social): unknown option "clientId" (did you mean "cid"?)',
    ],
    [
      { name: 'github', client_id: 'id', csecret: 's' },
      'providers[0] (social): unknown option "client_id" (did you mean "cid"?)',
    ],
    [
      { name: 'github', clientID: 'id', csecret: 's' },
      'providers[0] (social): unknown option "clientID" (did you mean "cid"?)',
    ],
    [
      { name: 'github', cid: 'id', clientSecret: 's' },
      'providers[0] (social): unknown option "clientSecret" (did you mean "csecret"?)',
    ],
    [
      { name: 'github', cid: 'id', client_secret: 's' },
      'providers[0] (social): unknown option "client_secret" (did you mean "csecret"?)',
    ],
    [{ ...github, scope: 'user' }, 'providers[0] (social): unknown option "scope" (did you mean "scopes"?)'],
    [
      { ...github, callbackURL: 'http://127.0.0.1:1/cb' },
      'providers[0] (social): unknown option "callbackURL" (callback URLs are made from the top-level url option: <url>/auth/<provider name>/callback)',
    ],
    [
      { ...github, redirect_uri: 'http://127.0.0.1:1/cb' },
      'providers[0] (social): unknown option "redirect_uri" (callback URLs are made from the top-level url option: <url>/auth/<provider name>/callback)',
    ],
    [
      { kind: 'oidc', name: 'corp', cid: 'c', issuerUrl: 'http://127.0.0.1:1' },
      'providers[0] (oidc): unknown option "issuerUrl" (did you mean "issuer"?)',
    ],
    [
      { kind: 'oauth2', name: 'corp', cid: 'c', tokenURL: 'http://127.0.0.1:1/t' },
      'providers[0] (oauth2): unknown option "tokenURL" (did you mean "endpoint"?)',
    ],
    // Apple's own option is clientId: client_id points there, not at cid, which apple does not take.
    [
      { kind: 'apple', client_id: 'com.example', teamId: 'T', keyId: 'K' },
      'providers[0] (apple): unknown option "client_id" (did you mean "clientId"?)',
    ],
    [
      { kind: 'direct', name: 'local', verify: () => true },
      'providers[0] (direct): unknown option "verify" (did you mean "checker"?)',
    ],
    [
      { kind: 'telegram', botToken: '1:abc' },
      'providers[0] (telegram): unknown option "botToken" (did you mean "token"?)',
    ],
  ];
  for (const [entry, message] of cases) {
    const auth = authKoa({ ...base, providers: [entry as never] });
    await t.throwsAsync(auth.ready, { instanceOf: TypeError, message: `authKoa: ${message}` }, message);
    await auth.close();
  }
});

test("a top-level option under another library's name is a TypeError from authKoa() naming ours", (t) => {
  const cases: Array<[string, string]> = [
    ['expiresIn', 'unknown option "expiresIn" (did you mean "tokenDuration"?)'],
    ['maxAge', 'unknown option "maxAge" (did you mean "cookieDuration"?)'],
    ['jwtSecret', 'unknown option "jwtSecret" (did you mean "secret"?)'],
    ['cookieName', 'unknown option "cookieName" (did you mean "jwtCookieName"?)'],
    [
      'redirectUri',
      'unknown option "redirectUri" (callback URLs are made from the top-level url option: <url>/auth/<provider name>/callback)',
    ],
  ];
  for (const [key, message] of cases) {
    t.throws(
      () => authKoa({ ...base, [key]: 1 } as never),
      { instanceOf: TypeError, message: `authKoa: ${message}` },
      key,
    );
  }
});

test('the local OAuth2 server entry takes redirectURIs, so redirectUri points there; typos still go by distance', (t) => {
  t.is(
    unknownOption('redirectUri', ['kind', 'url', 'redirectURIs']),
    'unknown option "redirectUri" (did you mean "redirectURIs"?)',
  );
  t.is(
    unknownOption('tokenDuraton', ['tokenDuration', 'secret']),
    'unknown option "tokenDuraton" (did you mean "tokenDuration"?)',
  );
  // Names of Object.prototype are not aliases.
  t.is(unknownOption('constructor', ['secret']), 'unknown option "constructor"');
});
