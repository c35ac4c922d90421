import test, { type ExecutionContext } from 'ava';
import type { IncomingMessage } from 'node:http';
import { createAvatarProxy, type AvatarProxyOptions } from '../../lib/avatar/proxy.js';
import { AuthError } from '../../lib/errors.js';
import { identicon } from '../../lib/avatar/identicon.js';
import { noopLogger } from '../../lib/logger.js';
import { avatarId, type AvatarStore } from '../../lib/avatar/stores/index.js';
import { FileStore } from '../../lib/avatar/stores/file.js';
import type { User } from '../../lib/user.js';
import { tempDir } from '../helpers/temp.js';
import { dimensions, jpeg, palettePng, pictureServer, serve } from './helpers.js';

const APP = 'http://127.0.0.1:8080';
const user = (id: string, picture: string): User => ({ id, name: id, picture });

/**
 * A proxy over a file store in the test's temp dir (removed when the test ends); `warnings` collects
 * why pictures were not used, `done` closes the proxy.
 */
function setup(t: ExecutionContext, over: Partial<AvatarProxyOptions> = {}) {
  const store = new FileStore(tempDir(t, 'authkoa-proxy-'));
  const warnings: string[] = [];
  const proxy = createAvatarProxy({
    url: APP,
    routePath: '/avatar',
    resizeLimit: 200,
    allowPrivate: true,
    logger: { ...noopLogger, warn: (m) => warnings.push(m) },
    store,
    fetchRetries: 0,
    ...over,
  });
  const stored = async (id: string) => (await store.get(avatarId(id)))?.data;
  const done = () => proxy.close();
  return { proxy, store, stored, warnings, done };
}

test('a picture larger than the limit is fetched, resized to the limit (aspect kept) and proxied', async (t) => {
  const srv = await pictureServer({
    '/wide.jpg': serve(await jpeg(800, 600), 'image/jpg'),
    '/tall.png': serve(palettePng(300, 600)),
  });
  const { proxy, stored, done } = setup(t);
  const url = await proxy.put(user('github_1', `${srv.url}/wide.jpg`));
  t.is(url, `${APP}/avatar/${avatarId('github_1')}`);
  t.deepEqual(await dimensions((await stored('github_1'))!), [200, 150]);
  t.is((await stored('github_1'))!.subarray(1, 4).toString(), 'PNG', 're-encoded as PNG');
  await proxy.put(user('github_2', `${srv.url}/tall.png`));
  t.deepEqual(await dimensions((await stored('github_2'))!), [100, 200]);
  await done();
  await srv.close();
});

test('a picture within the limit, or with limit 0, is stored byte for byte', async (t) => {
  const small = await jpeg(120, 80);
  const big = await jpeg(400, 300);
  const srv = await pictureServer({ '/small.jpg': serve(small, 'image/jpeg'), '/big.jpg': serve(big, 'image/jpeg') });
  const a = setup(t);
  await a.proxy.put(user('u1', `${srv.url}/small.jpg`));
  t.deepEqual(await a.stored('u1'), small);
  await a.done();
  const b = setup(t, { resizeLimit: 0 });
  await b.proxy.put(user('u2', `${srv.url}/big.jpg`));
  t.deepEqual(await b.stored('u2'), big);
  await b.done();
  await srv.close();
});

test('no picture gives a deterministic identicon', async (t) => {
  const { proxy, stored, done } = setup(t);
  t.is(await proxy.put(user('nobody', '')), `${APP}/avatar/${avatarId('nobody')}`);
  t.deepEqual(await stored('nobody'), identicon('nobody', 200));
  await done();
});

test('an upstream 404 gives the identicon and the login goes on', async (t) => {
  const srv = await pictureServer({});
  const { proxy, stored, warnings, done } = setup(t);
  t.is(await proxy.put(user('u404', `${srv.url}/missing.png?token=SECRET`)), `${APP}/avatar/${avatarId('u404')}`);
  t.deepEqual(await stored('u404'), identicon('u404', 200));
  t.regex(warnings.join(), /upstream status 404/);
  t.notRegex(warnings.join(), /SECRET/, 'query strings are not logged');
  await done();
  await srv.close();
});

test('the fetch sends the provider headers (Microsoft bearer token)', async (t) => {
  const pic = await jpeg(50, 50);
  const srv = await pictureServer({
    '/me/photo': (req, res) =>
      req.headers.authorization === 'Bearer abc' ? serve(pic, 'image/jpeg')(req, res) : res.writeHead(401).end(),
  });
  const { proxy, stored, done } = setup(t);
  await proxy.put(user('ms_1', `${srv.url}/me/photo`), { headers: { Authorization: 'Bearer abc' } });
  t.deepEqual(await stored('ms_1'), pic);
  await done();
  await srv.close();
});

test('provider credentials go to the picture origin only: a redirect to another allowed origin gets no Authorization or Cookie', async (t) => {
  const pic = await jpeg(50, 50);
  const credentials = { Authorization: 'Bearer abc', Cookie: 'session=provider-cookie' };
  /** The credential headers each server received, by path. */
  const seen: Array<{ at: string; authorization?: string; cookie?: string }> = [];
  const record = (at: string, req: IncomingMessage) =>
    seen.push({ at, authorization: req.headers.authorization, cookie: req.headers.cookie });
  // A second origin: the same loopback address on another port (allowPrivate admits both).
  const cdn = await pictureServer({
    '/photo.jpg': (req, res) => {
      record('cdn', req);
      serve(pic, 'image/jpeg')(req, res);
    },
  });
  t.teardown(() => cdn.close());
  // The provider's photo endpoint: demands the bearer token, then redirects, as Microsoft Graph may.
  const api = await pictureServer({
    '/me/photo': (req, res) => {
      record('api', req);
      if (req.headers.authorization !== 'Bearer abc') return void res.writeHead(401).end();
      res.writeHead(302, { location: `${cdn.url}/photo.jpg` }).end();
    },
    '/me/same-origin': (req, res) => {
      record('api', req);
      res.writeHead(302, { location: '/me/photo' }).end();
    },
  });
  t.teardown(() => api.close());
  t.not(new URL(cdn.url).origin, new URL(api.url).origin);

  const { proxy, stored, done } = setup(t);
  t.teardown(done);
  await proxy.put(user('ms_cross', `${api.url}/me/photo`), { headers: credentials });
  t.deepEqual(await stored('ms_cross'), pic, 'the redirect was followed to the picture');
  t.deepEqual(seen, [
    { at: 'api', authorization: 'Bearer abc', cookie: 'session=provider-cookie' },
    { at: 'cdn', authorization: undefined, cookie: undefined },
  ]);

  // Control: a redirect within the provider's origin keeps them (the stripping is by origin, not by hop).
  seen.length = 0;
  await proxy.put(user('ms_same', `${api.url}/me/same-origin`), { headers: credentials });
  t.deepEqual(await stored('ms_same'), pic);
  t.deepEqual(
    seen.map((s) => [s.at, s.authorization, s.cookie]),
    [
      ['api', 'Bearer abc', 'session=provider-cookie'],
      ['api', 'Bearer abc', 'session=provider-cookie'],
      ['cdn', undefined, undefined],
    ],
  );
});

test('non-image content (HTML, SVG, text) gives the identicon', async (t) => {
  const srv = await pictureServer({
    '/html': serve('<html><script>alert(1)</script></html>', 'image/png'),
    '/svg': serve('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml'),
  });
  const { proxy, stored, done } = setup(t);
  for (const p of ['html', 'svg']) {
    await proxy.put(user(`nonimage_${p}`, `${srv.url}/${p}`));
    t.deepEqual(await stored(`nonimage_${p}`), identicon(`nonimage_${p}`, 200), p);
  }
  await done();
  await srv.close();
});

test('a body over the 10 MB cap is refused (declared or streamed) and gives the identicon', async (t) => {
  const huge = Buffer.concat([palettePng(10, 10), Buffer.alloc(10 * 1024 * 1024)]);
  const srv = await pictureServer({
    '/declared': serve(huge),
    '/chunked': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(huge); // no content-length: the cap is counted while streaming
    },
  });
  const { proxy, stored, warnings, done } = setup(t);
  for (const p of ['declared', 'chunked']) {
    await proxy.put(user(`big_${p}`, `${srv.url}/${p}`));
    t.deepEqual(await stored(`big_${p}`), identicon(`big_${p}`, 200), p);
  }
  t.is(warnings.filter((w) => w.includes('byte cap')).length, 2);
  await done();
  await srv.close();
});

test('a decompression bomb (36 Mpx in a few KB) is refused from its header before decoding', async (t) => {
  const bomb = palettePng(6000, 6000);
  t.true(bomb.length < 200_000);
  const srv = await pictureServer({ '/bomb.png': serve(bomb) });
  const { proxy, stored, warnings, done } = setup(t);
  await proxy.put(user('bomb', `${srv.url}/bomb.png`));
  t.deepEqual(await stored('bomb'), identicon('bomb', 200));
  t.regex(warnings.join(), /too many pixels \(6000x6000\)/);
  t.is(proxy.pendingResizes, 0, 'never sent to the decoder');
  await done();
  await srv.close();
});

test('a fetch that does not answer in time gives the identicon', async (t) => {
  const srv = await pictureServer({ '/slow': () => {} });
  const { proxy, stored, warnings, done } = setup(t, { fetchTimeout: 300 });
  await proxy.put(user('slow', `${srv.url}/slow`));
  t.deepEqual(await stored('slow'), identicon('slow', 200));
  t.regex(warnings.join(), /timeout/);
  await done();
  await srv.close();
});

test('an unreachable picture host gives the identicon after the retries', async (t) => {
  const srv = await pictureServer({});
  const url = `${srv.url}/gone.png`;
  await srv.close();
  const { proxy, stored, done } = setup(t, { fetchRetries: 1, retryDelay: 10 });
  await proxy.put(user('gone', url));
  t.deepEqual(await stored('gone'), identicon('gone', 200));
  await done();
});

test('putContent stores resized bytes and rejects non-images with a 400 AuthError', async (t) => {
  const { proxy, stored, done } = setup(t);
  t.is(await proxy.putContent('telegram_1', await jpeg(400, 400)), `${APP}/avatar/${avatarId('telegram_1')}`);
  t.deepEqual(await dimensions((await stored('telegram_1'))!), [200, 200]);
  const err = await t.throwsAsync(proxy.putContent('telegram_2', Buffer.from('<html>')), { instanceOf: AuthError });
  t.is(err?.status, 400);
  t.is(err?.code, 'invalid_avatar');
  await done();
});

test('a store failure is an AuthError 500 avatar_store_failed', async (t) => {
  const broken: AvatarStore = {
    put: async () => {
      throw new Error('disk full');
    },
    get: async () => undefined,
    remove: async () => {},
    async *list() {},
    close: async () => {},
  };
  const proxy = createAvatarProxy({
    url: APP,
    routePath: '/avatar',
    resizeLimit: 0,
    allowPrivate: true,
    logger: noopLogger,
    store: broken,
  });
  const err = await t.throwsAsync(proxy.put(user('u', '')), { instanceOf: AuthError });
  t.is(err?.status, 500);
  t.is(err?.code, 'avatar_store_failed');
  await proxy.close();
});

test('the user already carrying our own proxied URL is not refetched', async (t) => {
  const srv = await pictureServer({ '/p.jpg': serve(await jpeg(60, 60), 'image/jpeg') });
  const { proxy, stored, done } = setup(t);
  const url = await proxy.put(user('again', `${srv.url}/p.jpg`));
  const before = await stored('again');
  t.is(await proxy.put(user('again', url)), url);
  t.deepEqual(await stored('again'), before);
  t.is(srv.hits.length, 1);
  await done();
  await srv.close();
});

test('without a store the proxy passes pictures through', async (t) => {
  const proxy = createAvatarProxy({
    url: APP,
    routePath: '/avatar',
    resizeLimit: 0,
    allowPrivate: false,
    logger: noopLogger,
  });
  t.is(await proxy.put(user('u', 'https://example.com/p.png')), 'https://example.com/p.png');
  t.is(await proxy.putContent('u', Buffer.from('x')), '');
  await proxy.close();
});

test('a bad store URI throws at construction, naming avatarStore and the scheme', (t) => {
  t.throws(
    () =>
      createAvatarProxy({
        url: APP,
        routePath: '/avatar',
        resizeLimit: 0,
        allowPrivate: false,
        logger: noopLogger,
        store: 'ftp://x',
      }),
    {
      instanceOf: TypeError,
      message: /avatarStore.*"ftp:\/\/"/,
    },
  );
});

test('while a large image is resized, a plain request completes first (the event loop stays free)', async (t) => {
  const { proxy, done } = setup(t, { resizeLimit: 100 });
  const big = palettePng(3000, 3000);
  const order: string[] = [];
  const resizing = proxy.putContent('large', big).then(() => order.push('resize'));
  // Wait until the job is really in the worker, then ask something of this process's event loop.
  while (proxy.pendingResizes === 0) await new Promise((r) => setImmediate(r));
  const srv = await pictureServer({ '/ping': serve('pong', 'text/plain') });
  const pong = await fetch(`${srv.url}/ping`).then((r) => r.text());
  order.push('plain');
  t.is(pong, 'pong');
  t.is(proxy.pendingResizes, 1, 'the resize was still running when the plain request finished');
  await resizing;
  t.deepEqual(order, ['plain', 'resize']);
  await done();
  await srv.close();
});
