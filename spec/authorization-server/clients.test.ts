/**
 * The authorization server's clients from the options: their checks at start-up (a TypeError naming the option),
 * what the directory makes of them, the token endpoint's client authentication (the Basic header as oauth4webapi,
 * a standard client, sends it) and the redirect URI match.
 */
import test from 'ava';
import * as oauth from 'oauth4webapi';
import { readClientOptions } from '../../lib/authorization-server/clients/index.js';
import { setup } from './helpers.js';

const CLIENTS = [
  {
    id: 'web-app',
    secret: 'a-long-enough-secret-for-the-tests',
    name: 'Web App',
    redirectURIs: ['https://app.example/cb'],
    grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
    scopes: ['read', 'write'],
    resources: ['https://api.example/'],
    trusted: true,
  },
  { id: 'cli', redirectURIs: ['http://127.0.0.1/callback', 'com.example.cli:/oauth'] },
];

const refused = (name: string, input: unknown, message: RegExp) =>
  test(`options refused: ${name}`, (t) => {
    const err = t.throws(() => readClientOptions(input), { instanceOf: TypeError });
    t.regex(err.message, message);
  });

const client = (extra: Record<string, unknown>) => ({ clients: [{ id: 'a', redirectURIs: ['https://a/cb'] }, extra] });
refused(
  'plain http redirect URI on a public host, named by its index',
  client({ id: 'b', redirectURIs: ['http://b.example/cb'] }),
  /^authKoa: authorizationServer\.clients\[1\]\.redirectURIs: "http:\/\/b\.example\/cb" is plain http.*allowHttpRedirects/,
);
refused(
  'a redirect URI with a fragment',
  client({ id: 'b', redirectURIs: ['https://b/cb#x'] }),
  /clients\[1\]\.redirectURIs: .* has a fragment/,
);
refused(
  'a javascript: redirect URI',
  client({ id: 'b', redirectURIs: ['javascript:alert(1)'] }),
  /clients\[1\]\.redirectURIs: .* has the scheme "javascript:"/,
);
refused('no redirect URI with the code grant', client({ id: 'b', redirectURIs: [] }), /clients\[1\]\.redirectURIs/);
refused('a missing id', client({ redirectURIs: ['https://b/cb'] }), /clients\[1\]\.id must be a non-empty string/);
refused(
  'an id listed twice',
  client({ id: 'a', redirectURIs: ['https://b/cb'] }),
  /clients\[1\]\.id "a" is listed twice/,
);
refused(
  'a misspelled field, with the name meant',
  client({ id: 'b', redirectUris: ['https://b/cb'] }),
  /clients\[1\]: unknown option "redirectUris" \(did you mean "redirectURIs"\?\)/,
);
refused(
  'client_credentials without a secret',
  client({ id: 'b', redirectURIs: ['https://b/cb'], grantTypes: ['client_credentials'] }),
  /clients\[1\]\.grantTypes: client_credentials needs a secret/,
);
refused(
  'an unknown grant type',
  client({ id: 'b', redirectURIs: ['https://b/cb'], grantTypes: ['password'] }),
  /clients\[1\]\.grantTypes must be/,
);
refused('a scope with a space', client({ id: 'b', redirectURIs: ['https://b/cb'], scopes: ['a b'] }), /\.scopes/);
refused('a relative resource', client({ id: 'b', redirectURIs: ['https://b/cb'], resources: ['/api'] }), /resources/);
refused('trusted not a boolean', client({ id: 'b', redirectURIs: ['https://b/cb'], trusted: 'yes' }), /trusted/);
refused('registration: a word other than open', { registration: 'closed' }, /registration must be 'open' or/);
refused(
  'registration without its token (an unset variable must not open it)',
  { registration: { initialAccessToken: undefined } },
  /registration must be .*initialAccessToken/,
);
refused('registration with a short token', { registration: { initialAccessToken: 'short' } }, /initialAccessToken/);
refused('clientMetadataDocuments: a string', { clientMetadataDocuments: 'yes' }, /clientMetadataDocuments must be/);
refused('clientMetadataDocuments.timeout: a bad duration', { clientMetadataDocuments: { timeout: 'soon' } }, /timeout/);
refused('allowPrivate: not a boolean', { allowPrivate: 1 }, /authorizationServer\.allowPrivate must be a boolean/);
refused('registrationLimits.maxClients: 0', { registrationLimits: { maxClients: 0 } }, /maxClients must be an integer/);
refused('clients: not an array', { clients: {} }, /authorizationServer\.clients must be an array/);

test('options: the path prefix is the caller’s', (t) => {
  const err = t.throws(() => readClientOptions({ clients: [{}] }, 'as'), { instanceOf: TypeError });
  t.regex(err.message, /^authKoa: as\.clients\[0\]\.id/);
});

test('options: defaults: metadata documents on, registration off, no clients; other members left to others', (t) => {
  const config = readClientOptions({ scopes: ['read'], consent: true });
  t.deepEqual(config.metadataDocuments, { timeoutMs: 5000 });
  t.false(config.registration);
  t.is(config.clients.size, 0);
  t.false(config.allowPrivate);
  t.deepEqual(readClientOptions({ clientMetadataDocuments: false }).metadataDocuments, false);
  t.deepEqual(readClientOptions({ registration: 'open' }).registration, { open: true });
});

test('options: allowHttpRedirects lets a plain http redirect URI on any host through', (t) => {
  const config = readClientOptions({
    allowHttpRedirects: true,
    clients: [{ id: 'dev', redirectURIs: ['http://dev.lan:3000/cb'] }],
  });
  t.deepEqual(config.clients.get('dev')?.client.redirectURIs, ['http://dev.lan:3000/cb']);
});

test('find: an options client with its defaults, a copy each time; an unknown id is undefined', async (t) => {
  const { directory } = await setup({ clients: CLIENTS });
  const cli = await directory.find('cli');
  t.deepEqual(cli, {
    id: 'cli',
    redirectURIs: ['http://127.0.0.1/callback', 'com.example.cli:/oauth'],
    grantTypes: ['authorization_code', 'refresh_token'],
    trusted: false,
    confidential: false,
    source: 'options',
  });
  const web = await directory.find('web-app');
  t.like(web, { confidential: true, trusted: true, name: 'Web App', scopes: ['read', 'write'] });
  t.false('secret' in (web as object), 'no secret is handed out');
  (cli as { redirectURIs: string[] }).redirectURIs.push('https://evil.example/');
  t.is(((await directory.find('cli')) as { redirectURIs: string[] }).redirectURIs.length, 2);
  t.is(await directory.find('nobody'), undefined);
  t.is(await directory.find(''), undefined);
});

/** The Authorization header and form oauth4webapi sends for `auth`. */
async function sent(auth: oauth.ClientAuth, clientId: string) {
  const headers = new Headers();
  const body = new URLSearchParams();
  await auth({ issuer: 'https://as.example' }, { client_id: clientId }, body, headers);
  return { authorization: headers.get('authorization') ?? undefined, form: Object.fromEntries(body) };
}

test('authenticate: client_secret_basic and client_secret_post as oauth4webapi sends them', async (t) => {
  const { directory } = await setup({ clients: CLIENTS });
  const secret = CLIENTS[0]!.secret!;
  const basic = await directory.authenticate(await sent(oauth.ClientSecretBasic(secret), 'web-app'));
  t.like(basic, { client: { id: 'web-app', confidential: true } });
  const post = await directory.authenticate(await sent(oauth.ClientSecretPost(secret), 'web-app'));
  t.like(post, { client: { id: 'web-app' } });
  const wrong = await directory.authenticate(await sent(oauth.ClientSecretBasic(secret + 'x'), 'web-app'));
  t.deepEqual(wrong, { error: 'invalid_client', description: 'client authentication failed' });
  const short = await directory.authenticate(await sent(oauth.ClientSecretPost('a'), 'web-app'));
  t.like(short, { error: 'invalid_client' });
});

test('authenticate: a Basic id with form-urlencoded characters is decoded (RFC 6749 §2.3.1)', async (t) => {
  const secret = 'p@ss:word+with/odd chars';
  const { directory } = await setup({ clients: [{ id: 'odd:id+é', secret, redirectURIs: ['https://a/cb'] }] });
  const result = await directory.authenticate(await sent(oauth.ClientSecretBasic(secret), 'odd:id+é'));
  t.like(result, { client: { id: 'odd:id+é' } });
});

test('authenticate: refusals are invalid_client', async (t) => {
  const { directory } = await setup({ clients: CLIENTS });
  const secret = CLIENTS[0]!.secret!;
  const basic = (await sent(oauth.ClientSecretBasic(secret), 'web-app')).authorization;
  const cases: Array<[string, { authorization?: string; form: Record<string, string> }]> = [
    ['two methods at once', { authorization: basic, form: { client_secret: secret } }],
    ['a form client_id other than the Basic one', { authorization: basic, form: { client_id: 'cli' } }],
    ['a confidential client without its secret', { form: { client_id: 'web-app' } }],
    ['a public client sending a secret', { form: { client_id: 'cli', client_secret: 'anything' } }],
    ['an unknown client', { form: { client_id: 'nobody', client_secret: 'x' } }],
    ['no client at all', { form: {} }],
    ['a malformed Basic header', { authorization: 'Basic !!!', form: {} }],
    ['Basic without a colon', { authorization: `Basic ${Buffer.from('web-app').toString('base64')}`, form: {} }],
  ];
  for (const [name, req] of cases) t.like(await directory.authenticate(req), { error: 'invalid_client' }, name);
});

test('authenticate: a public client by its client_id alone', async (t) => {
  const { directory } = await setup({ clients: CLIENTS });
  t.like(await directory.authenticate(await sent(oauth.None(), 'cli')), { client: { id: 'cli', confidential: false } });
  t.like(await directory.authenticate({ form: { client_id: 'cli', client_secret: '' } }), { client: { id: 'cli' } });
});

test('redirectAllowed: exact strings; a loopback http URI on any port (RFC 8252 §7.3), nothing else', async (t) => {
  const { directory } = await setup({
    clients: [
      { id: 'c', redirectURIs: ['https://app.example/cb?x=1', 'http://127.0.0.1/callback', 'http://localhost:8080/'] },
    ],
  });
  const c = (await directory.find('c'))!;
  if ('error' in c) return t.fail();
  const allowed = (uri: string) => directory.redirectAllowed(c, uri);
  t.true(allowed('https://app.example/cb?x=1'));
  t.false(allowed('https://app.example/cb?x=2'), 'another query');
  t.false(allowed('https://app.example/cb'), 'no query');
  t.false(allowed('https://app.example:8443/cb?x=1'), 'a port on a public host');
  t.false(allowed('https://APP.example/cb?x=1'), 'a differently written host: strings are compared');
  t.true(allowed('http://127.0.0.1:51234/callback'), 'loopback, another port');
  t.true(allowed('http://127.0.0.1/callback'));
  t.false(allowed('http://127.0.0.1:51234/callback/other'), 'loopback, another path');
  t.false(allowed('http://127.0.0.2:51234/callback'), 'another loopback address');
  t.true(allowed('http://localhost:9999/'));
  t.false(allowed('https://127.0.0.1:51234/callback'), 'https is not the registered http');
  t.false(allowed('http://127.0.0.1:51234@evil.example/callback'), 'user info is not a port');
});

test('list: the options clients; revoke of one is a TypeError (they live in the options)', async (t) => {
  const { directory } = await setup({ clients: CLIENTS });
  t.deepEqual(
    (await directory.list()).map((c) => [c.id, c.source]),
    [
      ['web-app', 'options'],
      ['cli', 'options'],
    ],
  );
  await t.throwsAsync(() => directory.revoke('cli'), {
    instanceOf: TypeError,
    message: /authorizationServer\.clients/,
  });
  t.false(await directory.revoke('nobody'));
});
