/**
 * Dynamic Client Registration (RFC 7591) through the directory: off by default, open or behind an initial access
 * token, the metadata rules per application type, the limit per client address, and the registered clients kept in
 * a real state store, so a second directory (another process, over LMDB) finds, authenticates and lists them.
 */
import test from 'ava';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { openStateStore } from '../../lib/state/open.js';
import { tempDir } from '../helpers/temp.js';
import { runDirectoryChild, setup, testClock } from './helpers.js';

const CALLER = { address: '203.0.113.7' };
const WEB = { client_name: 'Tool', redirect_uris: ['https://tool.example/cb'] };
const TOKEN = 'initial-access-token-of-the-tests';

type Registered = Record<string, unknown> & { client_id: string; client_secret?: string };

test('registration is off by default: 403', async (t) => {
  const { directory, state } = await setup({});
  t.deepEqual(await directory.register(WEB, CALLER), {
    status: 403,
    body: { error: 'access_denied', error_description: 'dynamic client registration is not enabled' },
  });
  t.deepEqual(await directory.list(), []);
  t.is(await state.get('as-client-index', 'registered'), undefined);
});

test('open: a confidential web client (RFC 7591’s default method): its secret once, only a hash kept', async (t) => {
  const { directory, state, events, clock } = await setup({ registration: 'open' });
  const answer = await directory.register(WEB, CALLER);
  t.is(answer.status, 201);
  const body = answer.body as Registered;
  t.like(body, {
    client_id_issued_at: Math.floor(clock.now() / 1000),
    client_secret_expires_at: Math.floor(clock.now() / 1000) + 365 * 86_400,
    client_name: 'Tool',
    redirect_uris: ['https://tool.example/cb'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    application_type: 'web',
  });
  t.regex(body.client_secret!, /^[\w-]{43}$/, '256 random bits');
  const stored = JSON.stringify(await state.get('as-client', body.client_id));
  t.false(stored.includes(body.client_secret!), 'the secret is not stored');
  t.like(await directory.find(body.client_id), { source: 'registered', confidential: true, trusted: false });
  const headers = new Headers();
  await oauth.ClientSecretBasic(body.client_secret!)(
    { issuer: 'x' },
    { client_id: body.client_id },
    new URLSearchParams(),
    headers,
  );
  const auth = { authorization: headers.get('authorization')!, form: {} };
  t.like(await directory.authenticate(auth), { client: { id: body.client_id } });
  t.like(await directory.authenticate({ form: { client_id: body.client_id, client_secret: 'guess' } }), {
    error: 'invalid_client',
  });
  t.deepEqual(events, [
    {
      type: 'client_registered',
      data: {
        clientId: body.client_id,
        name: 'Tool',
        redirectURIs: ['https://tool.example/cb'],
        grantTypes: ['authorization_code', 'refresh_token'],
        tokenEndpointAuthMethod: 'client_secret_basic',
        applicationType: 'web',
        address: CALLER.address,
      },
    },
  ]);
  t.false(JSON.stringify(events).includes(body.client_secret!), 'no secret in the event');
});

test('open: a public client (none) gets no secret and authenticates by its client_id', async (t) => {
  const { directory } = await setup({ registration: 'open' });
  const answer = await directory.register({ ...WEB, token_endpoint_auth_method: 'none' }, CALLER);
  t.is(answer.status, 201);
  const body = answer.body as Registered;
  t.false('client_secret' in body);
  t.false('client_secret_expires_at' in body);
  t.like(await directory.authenticate({ form: { client_id: body.client_id } }), { client: { confidential: false } });
});

test('initial access token: missing or wrong is 401; the right one registers', async (t) => {
  const { directory } = await setup({ registration: { initialAccessToken: TOKEN } });
  const missing = await directory.register(WEB, CALLER);
  t.is(missing.status, 401);
  t.deepEqual(missing.body, {
    error: 'invalid_token',
    error_description: 'registration needs the initial access token',
  });
  t.deepEqual(missing.headers, { 'www-authenticate': 'Bearer error="invalid_token"' });
  t.is((await directory.register(WEB, { ...CALLER, bearer: TOKEN + 'x' })).status, 401);
  t.is((await directory.register(WEB, { ...CALLER, bearer: TOKEN.slice(1) })).status, 401);
  t.is((await directory.register(WEB, { ...CALLER, bearer: TOKEN })).status, 201);
  t.is((await directory.list()).length, 1);
});

/** What registering `metadata` answers, openly. */
async function answerTo(metadata: unknown, options: Record<string, unknown> = {}) {
  const { directory } = await setup({ registration: 'open', ...options });
  return directory.register(metadata, CALLER);
}

test('a web client with a plain http redirect URI on a public host: 400 invalid_redirect_uri', async (t) => {
  const answer = await answerTo({ redirect_uris: ['http://tool.example/cb'] });
  t.deepEqual(answer, {
    status: 400,
    body: {
      error: 'invalid_redirect_uri',
      error_description:
        'redirect_uri "http://tool.example/cb" is plain http on a host other than localhost, 127.0.0.1 or [::1]',
    },
  });
  t.is((await answerTo({ redirect_uris: ['http://tool.example/cb'] }, { allowHttpRedirects: true })).status, 201);
  t.is((await answerTo({ redirect_uris: ['http://localhost:3000/cb'] })).status, 201, 'http on localhost');
});

test('a native client: loopback on any port, a private-use scheme; not http on a public host', async (t) => {
  const { directory } = await setup({ registration: 'open' });
  const native = (uris: string[]) =>
    directory.register({ application_type: 'native', token_endpoint_auth_method: 'none', redirect_uris: uris }, CALLER);
  const loopback = await native(['http://127.0.0.1/callback', 'http://[::1]/callback']);
  t.is(loopback.status, 201);
  const client = await directory.find((loopback.body as Registered).client_id);
  if (!client || 'error' in client) return t.fail();
  t.true(directory.redirectAllowed(client, 'http://127.0.0.1:49152/callback'), 'any port');
  t.true(directory.redirectAllowed(client, 'http://[::1]:8000/callback'));
  t.false(directory.redirectAllowed(client, 'http://127.0.0.1:49152/other'));
  const scheme = await native(['com.example.tool:/oauth2redirect']);
  t.is(scheme.status, 201);
  t.like(scheme.body, { application_type: 'native', redirect_uris: ['com.example.tool:/oauth2redirect'] });
  t.like(await native(['http://tool.example/cb']), { status: 400, body: { error: 'invalid_redirect_uri' } });
  t.like(
    await native(['tool:/cb']),
    { status: 400, body: { error: 'invalid_redirect_uri' } },
    'no dot: not private-use',
  );
});

test('a web client may not use a private-use scheme', async (t) => {
  t.like(await answerTo({ redirect_uris: ['com.example.tool:/cb'] }), {
    status: 400,
    body: { error: 'invalid_redirect_uri' },
  });
});

test('metadata refused: invalid_client_metadata', async (t) => {
  for (const metadata of [
    'not an object',
    [WEB],
    { ...WEB, grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' },
    { ...WEB, grant_types: ['implicit'] },
    { ...WEB, response_types: ['token'] },
    { ...WEB, token_endpoint_auth_method: 'private_key_jwt' },
    { ...WEB, application_type: 'desktop' },
    { ...WEB, client_name: 'x'.repeat(201) },
    { ...WEB, scope: 'a "b"' },
  ])
    t.like(
      await answerTo(metadata),
      { status: 400, body: { error: 'invalid_client_metadata' } },
      JSON.stringify(metadata),
    );
  t.like(await answerTo({ client_name: 'no uris' }), { status: 400, body: { error: 'invalid_redirect_uri' } });
});

test('client_credentials only: no redirect URI needed, a secret given', async (t) => {
  const answer = await answerTo({
    grant_types: ['client_credentials'],
    token_endpoint_auth_method: 'client_secret_post',
  });
  t.like(answer, { status: 201, body: { grant_types: ['client_credentials'], response_types: [], redirect_uris: [] } });
  t.truthy((answer.body as Registered).client_secret);
});

test('the limit per client address: 429 with Retry-After, other addresses unaffected, again after the window', async (t) => {
  const { directory, clock } = await setup({
    registration: 'open',
    registrationLimits: { perAddress: 3, window: '1h' },
  });
  for (let i = 0; i < 3; i++) t.is((await directory.register(WEB, CALLER)).status, 201);
  const over = await directory.register(WEB, CALLER);
  t.deepEqual(over, {
    status: 429,
    body: { error: 'too_many_requests', error_description: 'too many registrations from this address' },
    headers: { 'retry-after': '3600' },
  });
  t.is((await directory.register({ nonsense: true }, CALLER)).status, 429, 'counted before the metadata');
  t.is((await directory.register(WEB, { address: '198.51.100.9' })).status, 201);
  clock.advance(3_600_000);
  t.is((await directory.register(WEB, CALLER)).status, 201);
});

test('at registrationLimits.maxClients: 503 until one is revoked', async (t) => {
  const { directory } = await setup({ registration: 'open', registrationLimits: { maxClients: 2 } });
  const ids = [];
  for (let i = 0; i < 2; i++) ids.push(((await directory.register(WEB, CALLER)).body as Registered).client_id);
  t.like(await directory.register(WEB, CALLER), { status: 503, body: { error: 'temporarily_unavailable' } });
  t.true(await directory.revoke(ids[0]!));
  t.is((await directory.register(WEB, CALLER)).status, 201);
});

test('a registration ends after its lifetime: then it is no client, and off the list', async (t) => {
  const { directory, clock } = await setup({ registration: 'open', registrationLimits: { lifetime: '1d' } });
  const { client_id } = (await directory.register(WEB, CALLER)).body as Registered;
  clock.advance(86_400_000 - 1);
  t.like(await directory.find(client_id), { id: client_id });
  clock.advance(1);
  t.is(await directory.find(client_id), undefined);
  t.deepEqual(await directory.list(), []);
});

test('list and revoke: options clients and registered ones; a revoked client is gone', async (t) => {
  const { directory } = await setup({
    registration: 'open',
    clients: [{ id: 'configured', redirectURIs: ['https://c.example/cb'] }],
  });
  const a = ((await directory.register({ ...WEB, client_name: 'A' }, CALLER)).body as Registered).client_id;
  const b = ((await directory.register({ ...WEB, client_name: 'B' }, CALLER)).body as Registered).client_id;
  t.deepEqual(
    (await directory.list()).map((c) => [c.id, c.name, c.source]),
    [
      ['configured', undefined, 'options'],
      [a, 'A', 'registered'],
      [b, 'B', 'registered'],
    ],
  );
  t.true(await directory.revoke(a));
  t.is(await directory.find(a), undefined);
  t.false(await directory.revoke(a), 'already gone');
  t.deepEqual(
    (await directory.list()).map((c) => c.id),
    ['configured', b],
  );
});

test('registrations from two directories at once all land in the index', async (t) => {
  const first = await setup({ registration: 'open', registrationLimits: { perAddress: 100 } });
  const second = await setup({ registration: 'open', registrationLimits: { perAddress: 100 } }, first);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).directory.register(WEB, { address: `10.0.0.${i}` })),
  );
  t.true(answers.every((a) => a.status === 201));
  t.is((await first.directory.list()).length, 20);
});

test('another process over the same state store finds, authenticates and lists a registered client', async (t) => {
  const stateUri = `lmdb://${join(tempDir(t), 'state')}`;
  const clock = testClock(Date.now()); // the child runs on the real clock
  const state = await openStateStore(stateUri, { clock: clock.now });
  const { directory } = await setup({ registration: 'open' }, { state, clock });
  const body = (await directory.register(WEB, CALLER)).body as Registered;
  const revoked = ((await directory.register(WEB, CALLER)).body as Registered).client_id;
  t.true(await directory.revoke(revoked));
  await state.close();
  const basic = `Basic ${Buffer.from(`${body.client_id}:${body.client_secret}`).toString('base64')}`;
  const [found, authenticated, listed, gone] = await runDirectoryChild({
    options: { registration: 'open' },
    stateUri,
    calls: [
      { find: body.client_id },
      { authenticate: { authorization: basic, form: {} } },
      { list: true },
      { find: revoked },
    ],
  });
  t.like(found, { id: body.client_id, source: 'registered', confidential: true, name: 'Tool' });
  t.like(authenticated, { client: { id: body.client_id } });
  t.deepEqual(
    (listed as Array<{ id: string }>).map((c) => c.id),
    [body.client_id],
  );
  t.is(gone, null);
});
