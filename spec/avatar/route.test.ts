/**
 * The avatar route over real HTTP: a Koa app whose avatar path is answered by proxy.handle() behind the
 * same answer the service gives every route (defence headers; a failure as JSON, 5xx logged).
 */
import test from 'ava';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { createAvatarProxy, type AvatarProxy } from '../../lib/avatar/proxy.js';
import { etagMatches } from '../../lib/avatar/route.js';
import { reportError, setDefenceHeaders, writeError } from '../../lib/http/respond.js';
import { noopLogger } from '../../lib/logger.js';
import { authKoa } from '../../lib/index.js';
import { avatarId } from '../../lib/avatar/stores/index.js';
import { FileStore } from '../../lib/avatar/stores/file.js';
import { contractRecorder } from '../helpers/answers.js';
import { suiteTempDir } from '../helpers/temp.js';
import { jpeg } from './helpers.js';

let base: string;
let close: () => Promise<void>;
let store: FileStore;
let jpegBytes: Buffer;

function app(proxy: AvatarProxy) {
  const koa = new Koa();
  koa.silent = true; // failures on purpose: authkoa emits each 5xx, which Koa would print
  koa.use(async (ctx, next) => {
    if (!ctx.path.startsWith(`${proxy.routePath}/`)) return next();
    setDefenceHeaders(ctx);
    try {
      await proxy.handle(ctx);
    } catch (err) {
      writeError(ctx, reportError(ctx, err, noopLogger));
    }
  });
  koa.use((ctx) => {
    ctx.body = 'plain';
  });
  return koa;
}

async function listen(koa: Koa) {
  const server = koa.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test.before(async () => {
  store = new FileStore(dir);
  jpegBytes = await jpeg(30, 20);
  await store.put('user1', jpegBytes);
  await store.put('poisoned', Buffer.from('<html><script>alert(1)</script></html>'));
  const proxy = createAvatarProxy({
    url: 'http://x',
    routePath: '/avatar',
    resizeLimit: 0,
    allowPrivate: false,
    logger: noopLogger,
    store,
  });
  const srv = await listen(app(proxy));
  base = srv.url;
  close = async () => {
    await srv.close();
    await proxy.close();
  };
});
test.after.always(async () => {
  await close?.();
});
// Declared after the hook above, so the store's folder goes once the proxy has closed.
const dir = suiteTempDir(test, 'authkoa-route-');

const defence = (t: import('ava').ExecutionContext, res: Response) => {
  t.is(res.headers.get('content-security-policy'), "default-src 'none'; sandbox; frame-ancestors 'none'");
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.is(res.headers.get('content-disposition'), 'inline; filename="avatar"');
};

test('GET serves the avatar with sniffed type, quoted ETag, week-long cache and defence headers', async (t) => {
  const res = await fetch(`${base}/avatar/${avatarId('user1')}`);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'image/jpeg');
  t.regex(res.headers.get('etag') ?? '', /^"[0-9a-f]{40}"$/);
  t.is(res.headers.get('cache-control'), 'max-age=604800');
  t.is(res.headers.get('content-length'), String(jpegBytes.length));
  defence(t, res);
  t.deepEqual(Buffer.from(await res.arrayBuffer()), jpegBytes);
});

test('HEAD answers the headers without a body', async (t) => {
  const res = await fetch(`${base}/avatar/${avatarId('user1')}`, { method: 'HEAD' });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'image/jpeg');
  t.is((await res.arrayBuffer()).byteLength, 0);
});

test('If-None-Match answers 304 for the strong, weak, listed and * forms', async (t) => {
  const url = `${base}/avatar/${avatarId('user1')}`;
  const etag = (await fetch(url)).headers.get('etag')!;
  for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const res = await fetch(url, { headers: { 'if-none-match': inm } });
    t.is(res.status, 304, inm);
    t.is(res.headers.get('etag'), etag);
    defence(t, res);
  }
  t.is((await fetch(url, { headers: { 'if-none-match': '"stale"' } })).status, 200);
});

test('a malformed id is 400 JSON and never reaches the store', async (t) => {
  for (const path of [
    'not-an-id.image',
    `${'a'.repeat(40)}.png`,
    '..%2f..%2fetc%2fpasswd',
    `${'g'.repeat(40)}.image`,
  ]) {
    const res = await fetch(`${base}/avatar/${path}`);
    t.is(res.status, 400, path);
    t.deepEqual(await res.json(), { error: "can't load avatar", code: 'invalid_avatar_id' });
    defence(t, res);
  }
});

test('an unknown id is 404 JSON', async (t) => {
  const res = await fetch(`${base}/avatar/${avatarId('nobody')}`);
  t.is(res.status, 404);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.deepEqual(await res.json(), { error: "can't load avatar", code: 'avatar_not_found' });
});

test('stored bytes that are not an image are refused with 415', async (t) => {
  const res = await fetch(`${base}/avatar/${avatarId('poisoned')}`);
  t.is(res.status, 415);
  t.deepEqual(await res.json(), { error: 'invalid avatar content', code: 'invalid_avatar_content' });
  defence(t, res);
});

test('methods other than GET and HEAD are 405', async (t) => {
  const res = await fetch(`${base}/avatar/${avatarId('user1')}`, { method: 'POST' });
  t.is(res.status, 405);
  t.is(res.headers.get('allow'), 'GET, HEAD');
  t.is((await res.json()).code, 'method_not_allowed');
});

test('without a store the route answers 404 JSON', async (t) => {
  const proxy = createAvatarProxy({
    url: 'http://x',
    routePath: '/avatar',
    resizeLimit: 0,
    allowPrivate: false,
    logger: noopLogger,
  });
  const srv = await listen(app(proxy));
  const res = await fetch(`${srv.url}/avatar/${avatarId('user1')}`);
  t.is(res.status, 404);
  t.is((await res.json()).code, 'avatar_disabled');
  defence(t, res);
  await srv.close();
});

test('a failing store is a 500 avatar_store_failed without details', async (t) => {
  const proxy = createAvatarProxy({
    url: 'http://x',
    routePath: '/avatar',
    resizeLimit: 0,
    allowPrivate: false,
    logger: noopLogger,
    store: {
      put: async () => '',
      get: async () => Promise.reject(new Error('EIO secret path')),
      remove: async () => {},
      async *list() {},
      close: async () => {},
    },
  });
  const srv = await listen(app(proxy));
  const res = await fetch(`${srv.url}/avatar/${avatarId('user1')}`);
  t.is(res.status, 500);
  const body = await res.text();
  t.is(JSON.parse(body).code, 'avatar_store_failed');
  t.notRegex(body, /secret/);
  await srv.close();
});

test('through authKoa(), a store failure on the avatar route is a 500 JSON and is logged with its cause', async (t) => {
  const logs: string[] = [];
  const failing = {
    put: async () => '',
    get: async () => Promise.reject(new Error('EIO on /srv/avatars')),
    remove: async () => {},
    async *list() {},
    close: async () => {},
  };
  const auth = authKoa({
    secret: 'route-test-secret-0123456789abcdef',
    url: 'http://127.0.0.1:1',
    avatarStore: failing,
    logger: (m: string) => logs.push(m),
    providers: [{ kind: 'direct', name: 'l', checker: () => true }],
  });
  await auth.ready;
  const koa = new Koa();
  koa.silent = true; // failures on purpose: authkoa emits each 5xx, which Koa would print
  const contract = contractRecorder(auth);
  koa.use(contract.use);
  koa.use(auth);
  const srv = await listen(koa);
  const close = () =>
    contract.closed(async () => {
      await srv.close();
      await auth.close();
    });
  t.teardown(close);
  const res = await fetch(`${srv.url}/avatar/${avatarId('user1')}`);
  t.is(res.status, 500);
  t.deepEqual(await res.json(), { error: "can't load avatar", code: 'avatar_store_failed' });
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.true(
    logs.some((l) => l.includes(`GET /avatar/${avatarId('user1')}`) && l.includes('EIO on /srv/avatars')),
    logs.join('\n'),
  );
  await close();
});

test('etagMatches: exact, weak, list and * match; other values do not', (t) => {
  t.true(etagMatches('"a"', '"a"'));
  t.true(etagMatches('W/"a"', '"a"'));
  t.true(etagMatches(' "b" , W/"a" ', '"a"'));
  t.true(etagMatches('*', '"a"'));
  t.false(etagMatches('', '"a"'));
  t.false(etagMatches('a', '"a"'));
  t.false(etagMatches('"ab"', '"a"'));
});
