/**
 * Avatar attacks over real HTTP: path traversal through the avatar id, and SSRF through the picture URL
 * a provider hands over (every private range, IPv6 loopback and mapped forms, names resolving to private
 * addresses, redirects into the private network). The "internal service" is a real server on a loopback
 * address; the defence holds when it never sees a request and the login still succeeds with an identicon.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { identicon } from '../../lib/avatar/identicon.js';
import { registerFromEchoKind } from '../helpers/attack.js';
import { Client, rawGet, serve, startApp, type Served, type TestApp } from '../helpers/http.js';
import { suiteTempDir } from '../helpers/temp.js';

registerFromEchoKind();

const PNG = identicon('picture-server', 32);
let internal: Served;
let internalHits = 0;
let gateway: Served;
let app: TestApp;

test.before(async () => {
  internal = await serve((_req, res) => {
    internalHits++;
    res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
  });
  // The internal service also listens on 127.0.0.2 (all of 127/8 is loopback on Linux).
  await new Promise<void>((resolve) => internal.server.close(() => resolve()));
  internal.server.listen(internal.port, '127.0.0.2');
  await new Promise((r) => internal.server.once('listening', r));
  // The one host the app may fetch from: 127.0.0.1, allowed by exact address. It redirects inward.
  gateway = await serve((req, res) => {
    const to = new URL(req.url!, 'http://x').searchParams.get('to') ?? '';
    res.writeHead(302, { location: to }).end();
  });
  writeFileSync(join(storeDir, 'secret.txt'), 'do not serve me');
  app = await startApp({
    secret: 'security-suite-secret-0123456789',
    providers: [{ kind: 'from-echo', name: 'echo' }],
    avatarStore: join(storeDir, 'store'),
    avatarProxyOptions: { allowAddresses: ['127.0.0.1'], fetchRetries: 0, fetchTimeout: 3000 },
  });
});
test.after.always(async () => {
  await app.close();
  await gateway.close();
  await internal.close();
});
// Declared after the hook above, so the folder goes once the app (its avatar store is in storeDir) has closed.
const storeDir = suiteTempDir(test, 'authkoa-sec-avatars-');

async function loginWithPicture(user: string, picture: string): Promise<{ status: number; picture: string }> {
  const res = await new Client(app.url).fetch(`/auth/echo/login?user=${user}&picture=${encodeURIComponent(picture)}`);
  const body = (await res.json()) as { picture: string };
  return { status: res.status, picture: body.picture };
}

async function isIdenticonFor(userId: string, pictureUrl: string): Promise<boolean> {
  const res = await fetch(pictureUrl);
  return res.status === 200 && Buffer.from(await res.arrayBuffer()).equals(identicon(userId));
}

const ssrfTargets = (port: number): Array<[string, string]> => [
  ['loopback', `http://127.0.0.2:${port}/secret.png`],
  ['localhost by name', `http://localhost:${port}/secret.png`],
  ['IPv6 loopback', `http://[::1]:${port}/secret.png`],
  ['IPv4-mapped IPv6 loopback', `http://[::ffff:127.0.0.2]:${port}/secret.png`],
  ['IPv4-mapped IPv6, hex form', `http://[::ffff:7f00:2]:${port}/secret.png`],
  ['cloud metadata (link-local)', 'http://169.254.169.254/latest/meta-data/'],
  ['10/8', 'http://10.0.0.1/a.png'],
  ['172.16/12', 'http://172.16.0.1/a.png'],
  ['192.168/16', 'http://192.168.0.1/a.png'],
  ['carrier-grade NAT 100.64/10', 'http://100.64.0.1/a.png'],
  ['unspecified 0.0.0.0', `http://0.0.0.0:${port}/secret.png`],
  ['multicast', 'http://224.0.0.1/a.png'],
  ['IPv6 unique local', 'http://[fc00::1]/a.png'],
  ['IPv6 link-local', 'http://[fe80::1]/a.png'],
  ['decimal-encoded loopback', `http://2130706434:${port}/secret.png`],
  ['file scheme', '/etc/passwd'],
  ['file URL', 'file:///etc/passwd'],
  ['gopher', `gopher://127.0.0.2:${port}/_x`],
];

test.serial(
  'SSRF: private, loopback, link-local, multicast and mapped addresses are never fetched; the login gets an identicon',
  async (t) => {
    for (const [what, url] of ssrfTargets(internal.port)) {
      const before = internalHits;
      const r = await loginWithPicture(`u-${what.replace(/\W+/g, '-')}`, url);
      t.is(r.status, 200, what);
      t.is(internalHits, before, `${what}: the internal service saw no request`);
      t.true(await isIdenticonFor(`echo_u-${what.replace(/\W+/g, '-')}`, r.picture), `${what}: identicon stored`);
    }
  },
);

test.serial('SSRF: a redirect from an allowed host into the private network is refused', async (t) => {
  const before = internalHits;
  const r = await loginWithPicture(
    'redirected',
    `${gateway.url}/go?to=${encodeURIComponent(`http://127.0.0.2:${internal.port}/secret.png`)}`,
  );
  t.is(r.status, 200);
  t.is(internalHits, before);
  t.true(await isIdenticonFor('echo_redirected', r.picture));
});

test.serial('control: with the internal host explicitly allowed, the same picture is fetched and served', async (t) => {
  const open = await startApp({
    secret: 'security-suite-secret-0123456789',
    providers: [{ kind: 'from-echo', name: 'echo' }],
    avatarStore: join(storeDir, 'open'),
    avatarAllowPrivate: true,
  });
  t.teardown(() => open.close());
  const before = internalHits;
  const res = await new Client(open.url).fetch(
    `/auth/echo/login?user=ok&picture=${encodeURIComponent(`http://127.0.0.2:${internal.port}/p.png`)}`,
  );
  const { picture } = (await res.json()) as { picture: string };
  t.is(internalHits, before + 1);
  t.deepEqual(Buffer.from(await (await fetch(picture)).arrayBuffer()), PNG);
});

test.serial(
  'avatar id path traversal: ../, encoded, backslash and NUL forms never reach the file system',
  async (t) => {
    const { picture } = await loginWithPicture('trav', '');
    const good = new URL(picture).pathname;
    const hash = good.slice('/avatar/'.length, -'.image'.length);
    const avatar = await rawGet(app.port, good);
    t.is(avatar.status, 200, 'control: the real avatar is served');
    // Every path goes out raw through node:http: fetch() would resolve the dot segments before sending.
    const refused = [
      '/avatar/../secret.txt',
      '/avatar/..%2fsecret.txt',
      '/avatar/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/avatar/..%5csecret.txt',
      `/avatar/${hash}.image%00.txt`,
      `/avatar/${hash}%00.image`,
      '/avatar/%252e%252e%252fsecret.txt',
      `/avatar/${hash.toUpperCase()}X.image`,
      '/avatar/',
      `/avatar/${'a'.repeat(40)}.image/..`,
    ];
    for (const path of refused) {
      const res = await rawGet(app.port, path);
      t.is(res.status, 400, path);
      t.deepEqual(JSON.parse(res.text), { error: "can't load avatar", code: 'invalid_avatar_id' }, path);
    }
    // A file named like an avatar id, one level above the store, and a real id behind dot segments: the
    // route takes exactly one segment after its prefix, so neither is looked up at all.
    const planted = 'e'.repeat(40) + '.image';
    writeFileSync(join(storeDir, planted), 'do not serve me');
    for (const path of [
      `/avatar/../${planted}`,
      `/avatar/../store/${hash.slice(0, 2)}/${hash}.image`,
      `/avatar/x/${hash}.image`,
    ]) {
      const res = await rawGet(app.port, path);
      t.is(res.status, 400, path);
      t.deepEqual(JSON.parse(res.text), { error: "can't load avatar", code: 'invalid_avatar_id' }, path);
    }
  },
);
