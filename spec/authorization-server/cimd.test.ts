/**
 * Client ID Metadata Documents, fetched over real https from a server on 127.0.0.1 whose certificate a throwaway CA
 * issued: the directory is given that CA as its `ca` (the tests' injection), except in the child-process tests,
 * where NODE_EXTRA_CA_CERTS is the only way it is trusted, as in an application. The server counts its requests,
 * so "no fetch" and "refused before any request" are what reached it.
 */
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { localCA } from '../helpers/tls.js';
import { tempDir } from '../helpers/temp.js';
import { documentFor, json, runDirectoryChild, setup, startDocumentServer, type DocumentServer } from './helpers.js';

let server: DocumentServer;
test.before(async () => {
  server = await startDocumentServer();
});
test.after.always(() => server?.close());

let n = 0;
/** A fresh path on the server serving `doc(url)` with `headers`; resolves to its URL (the client_id). */
function serveDocument(
  doc: (url: string) => unknown = (url) => documentFor(url),
  headers: Record<string, string> = {},
): { url: string; path: string } {
  const path = `/clients/${++n}.json`;
  const url = server.origin + path;
  server.route(path, json(doc(url), headers));
  return { url, path };
}

/** On by default; loopback is a private address, so the tests' server needs allowPrivate. */
const ON = { allowPrivate: true };

test('a metadata document makes a public client named by its host; a second find is a cache hit: no fetch', async (t) => {
  const { url, path } = serveDocument();
  const { directory } = await setup(ON);
  const client = await directory.find(url);
  t.deepEqual(client, {
    id: url,
    name: 'Example Tool',
    host: '127.0.0.1',
    redirectURIs: ['https://tool.example/callback'],
    grantTypes: ['authorization_code', 'refresh_token'],
    trusted: false,
    confidential: false,
    source: 'metadata-document',
  });
  t.is(server.count(path), 1);
  t.deepEqual(await directory.find(url), client);
  t.is(server.count(path), 1, 'the cache hit made no request');
});

test('the cache is in the state store: another directory over it makes no fetch; list() leaves it out', async (t) => {
  const { url, path } = serveDocument();
  const first = await setup(ON);
  await first.directory.find(url);
  const second = await setup(ON, { state: first.state, clock: first.clock });
  t.like(await second.directory.find(url), { id: url });
  t.is(server.count(path), 1);
  t.deepEqual(await second.directory.list(), []);
});

test('Cache-Control max-age is honoured, by the injected clock', async (t) => {
  const { url, path } = serveDocument(undefined, { 'cache-control': 'max-age=60' });
  const { directory, clock } = await setup(ON);
  await directory.find(url);
  clock.advance(59_000);
  await directory.find(url);
  t.is(server.count(path), 1, 'fresh at 59 s');
  clock.advance(2_000);
  await directory.find(url);
  t.is(server.count(path), 2, 'stale at 61 s: fetched again');
});

test('a document is kept at most a day, whatever its headers say', async (t) => {
  const { url, path } = serveDocument(undefined, { 'cache-control': 'max-age=31536000' });
  const { directory, clock } = await setup(ON);
  await directory.find(url);
  clock.advance(24 * 3_600_000 - 1_000);
  await directory.find(url);
  t.is(server.count(path), 1, 'kept for a day');
  clock.advance(2_000);
  await directory.find(url);
  t.is(server.count(path), 2, 'a day and a second: fetched again');
});

test('Expires less Date when there is no max-age; five minutes when there are no caching headers', async (t) => {
  const date = new Date(Date.UTC(2025, 0, 1, 12)).toUTCString();
  const expires = new Date(Date.UTC(2025, 0, 1, 12, 2)).toUTCString();
  const { url: dated, path: datedPath } = serveDocument(undefined, { date, expires });
  const { url: bare, path: barePath } = serveDocument();
  const { directory, clock } = await setup(ON);
  await Promise.all([directory.find(dated), directory.find(bare)]);
  clock.advance(119_000);
  await Promise.all([directory.find(dated), directory.find(bare)]);
  t.deepEqual([server.count(datedPath), server.count(barePath)], [1, 1]);
  clock.advance(2_000);
  await Promise.all([directory.find(dated), directory.find(bare)]);
  t.deepEqual([server.count(datedPath), server.count(barePath)], [2, 1], 'Expires passed at 2 min');
  clock.advance(5 * 60_000 - 121_000 + 1_000);
  await directory.find(bare);
  t.is(server.count(barePath), 2, 'the heuristic five minutes passed');
});

test('Cache-Control no-store: every find fetches', async (t) => {
  const { url, path } = serveDocument(undefined, { 'cache-control': 'no-store' });
  const { directory } = await setup(ON);
  await directory.find(url);
  await directory.find(url);
  t.is(server.count(path), 2);
});

test('finds of one URL at once share one fetch', async (t) => {
  const { url, path } = serveDocument();
  const { directory } = await setup(ON);
  const found = await Promise.all([directory.find(url), directory.find(url), directory.find(url)]);
  t.true(found.every((c) => c !== undefined && 'id' in c && c.id === url));
  t.is(server.count(path), 1);
});

test('client_id mismatch: a document naming another client_id is invalid_client_metadata', async (t) => {
  const { url } = serveDocument((u) => documentFor(u.replace('.json', '-other.json')));
  const { directory, logs } = await setup(ON);
  t.deepEqual(await directory.find(url), {
    error: 'invalid_client_metadata',
    description: "the client metadata document's client_id is not its URL",
  });
  t.regex(logs.join('\n'), /client metadata document was refused .*"host":"127\.0\.0\.1"/);
});

test('redirect URI mismatch: only the document’s redirect_uris, as exact strings', async (t) => {
  const { url } = serveDocument();
  const { directory } = await setup(ON);
  const client = await directory.find(url);
  if (!client || 'error' in client) return t.fail();
  t.true(directory.redirectAllowed(client, 'https://tool.example/callback'));
  t.false(directory.redirectAllowed(client, 'https://tool.example/callback/'));
  t.false(directory.redirectAllowed(client, 'https://evil.example/callback'));
});

test('a document with a plain http redirect URI on a public host is invalid_client_metadata', async (t) => {
  const { url } = serveDocument((u) => documentFor(u, { redirect_uris: ['http://tool.example/cb'] }));
  const { directory } = await setup(ON);
  t.deepEqual(await directory.find(url), {
    error: 'invalid_client_metadata',
    description:
      'redirect_uri "http://tool.example/cb" is plain http on a host other than localhost, 127.0.0.1 or [::1]',
  });
});

test('token_endpoint_auth_method other than none, or a client_secret: invalid_client_metadata', async (t) => {
  const { directory } = await setup(ON);
  for (const extra of [
    { token_endpoint_auth_method: 'client_secret_basic' },
    { token_endpoint_auth_method: 'private_key_jwt' },
    { client_secret: 'shh' },
    { grant_types: ['client_credentials'] },
  ]) {
    const { url } = serveDocument((u) => documentFor(u, extra));
    t.like(await directory.find(url), { error: 'invalid_client_metadata' }, JSON.stringify(extra));
  }
  const { url } = serveDocument((u) => {
    const { token_endpoint_auth_method: _, ...doc } = documentFor(u);
    return doc;
  });
  t.like(await directory.find(url), { id: url }, 'an absent method is none');
});

test('SSRF: a private address is refused without allowPrivate, before any request', async (t) => {
  const { url, path } = serveDocument();
  const { directory } = await setup({});
  t.deepEqual(await directory.find(url), {
    error: 'invalid_client',
    description: 'the client metadata document could not be fetched: address not allowed',
  });
  const byName = url.replace('127.0.0.1', 'localhost');
  t.like(await directory.find(byName), { error: 'invalid_client' });
  t.like(await directory.find('https://169.254.169.254/latest/meta-data'), { error: 'invalid_client' });
  t.is(server.count(path), 0, 'nothing reached the server');
});

test('SSRF: a redirect is not followed', async (t) => {
  const { url: target, path: targetPath } = serveDocument();
  const path = `/clients/moved-${++n}.json`;
  server.route(path, (_req, res) => res.writeHead(302, { location: target }).end());
  const { directory } = await setup(ON);
  t.deepEqual(await directory.find(server.origin + path), {
    error: 'invalid_client',
    description: "the client metadata document's URL answered 302 (redirects are not followed)",
  });
  t.is(server.count(path), 1);
  t.is(server.count(targetPath), 0, 'the redirect’s target was not asked');
});

test('SSRF: a document over 5 KiB is refused, declared or streamed', async (t) => {
  const { directory } = await setup(ON);
  const { url } = serveDocument((u) => documentFor(u, { padding: 'x'.repeat(5200) }));
  t.deepEqual(await directory.find(url), {
    error: 'invalid_client',
    description: 'the client metadata document could not be fetched: body over the byte cap',
  });
  const path = `/clients/streamed-${++n}.json`;
  server.route(path, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length told
    res.write(`{"client_id":"${server.origin + path}","padding":"`);
    res.end('x'.repeat(6000) + '"}');
  });
  t.deepEqual(await directory.find(server.origin + path), {
    error: 'invalid_client',
    description: 'the client metadata document could not be fetched: body over the byte cap',
  });
  const { url: fits } = serveDocument((u) => documentFor(u, { padding: 'x'.repeat(4800) }));
  t.like(await directory.find(fits), { id: fits }, 'just under the cap is taken');
});

test('SSRF: a server that does not answer in time is given up on', async (t) => {
  const path = `/clients/slow-${++n}.json`;
  server.route(path, () => {}); // never answers
  const trickle = `/clients/trickle-${++n}.json`;
  server.route(trickle, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{'); // then nothing more
  });
  const { directory } = await setup({ ...ON, clientMetadataDocuments: { timeout: 300 } });
  for (const p of [path, trickle])
    t.deepEqual(await directory.find(server.origin + p), {
      error: 'invalid_client',
      description: 'the client metadata document could not be fetched: timeout',
    });
});

test('a client_id URL the draft does not allow is refused without a fetch', async (t) => {
  const { directory } = await setup(ON);
  const before = server.hits.length;
  for (const id of [
    `${server.origin}/`,
    `${server.origin}/a/../b.json`,
    `${server.origin}/c.json#frag`,
    `https://user:pw@127.0.0.1:1/c.json`,
    `${server.origin.replace('127.0.0.1', 'LOCALHOST')}/c.json`,
  ])
    t.like(await directory.find(id), { error: 'invalid_client' }, id);
  t.is(server.hits.length, before);
});

test('clientMetadataDocuments: false: an https client_id is no client, and nothing is fetched', async (t) => {
  const { url, path } = serveDocument();
  const { directory } = await setup({ ...ON, clientMetadataDocuments: false });
  t.is(await directory.find(url), undefined);
  t.is(server.count(path), 0);
});

test('an options client whose id is an https URL comes first: no fetch', async (t) => {
  const { url, path } = serveDocument();
  const { directory } = await setup({ ...ON, clients: [{ id: url, redirectURIs: ['https://mine.example/cb'] }] });
  t.like(await directory.find(url), { source: 'options', redirectURIs: ['https://mine.example/cb'] });
  t.is(server.count(path), 0);
});

test('authenticate: a metadata document client by its client_id alone, and never with a secret', async (t) => {
  const { url } = serveDocument();
  const { directory } = await setup(ON);
  t.like(await directory.authenticate({ form: { client_id: url } }), { client: { id: url } });
  t.like(await directory.authenticate({ form: { client_id: url, client_secret: 'x' } }), { error: 'invalid_client' });
});

test('by default the process’s trusted CAs: NODE_EXTRA_CA_CERTS in another process, refused without it', async (t) => {
  const { url, path } = serveDocument();
  const caFile = join(tempDir(t), 'ca.pem');
  writeFileSync(caFile, (await localCA()).ca);
  const arg = { options: ON, calls: [{ find: url }] };
  const [trusted] = await runDirectoryChild(arg, { NODE_EXTRA_CA_CERTS: caFile });
  t.like(trusted, { id: url, source: 'metadata-document' });
  const [untrusted] = await runDirectoryChild(arg, { NODE_EXTRA_CA_CERTS: undefined });
  t.like(untrusted, { error: 'invalid_client' });
  t.regex((untrusted as { description: string }).description, /could not be fetched: transport/);
  t.is(server.count(path), 1, 'the untrusted server got no request');
});
