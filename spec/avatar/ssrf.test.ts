/**
 * SSRF rules of the avatar fetch, with `avatarAllowPrivate` off. Every refused target is on this
 * machine (or refused before any connect, as 169.254.169.254), and the picture servers count their
 * requests, so "refused" means nothing reached them. 127.0.0.2 stands in for a public host through
 * `allowAddresses`, which lets a redirect chain start somewhere allowed.
 */
import test from 'ava';
import { createAvatarProxy } from '../../lib/avatar/proxy.js';
import { addressPolicy, isForbiddenAddress } from '../../lib/http/address-policy.js';
import { identicon } from '../../lib/avatar/identicon.js';
import { noopLogger } from '../../lib/logger.js';
import { avatarId } from '../../lib/avatar/stores/index.js';
import { FileStore } from '../../lib/avatar/stores/file.js';
import { tempDir } from '../helpers/temp.js';
import { jpeg, pictureServer, serve, type PictureServer } from './helpers.js';

let loopback: PictureServer; // the target an attacker wants to reach
let outside: PictureServer; // an allowed host that redirects
let pic: Buffer;

test.before(async () => {
  pic = await jpeg(40, 40);
  loopback = await pictureServer({ '/secret.jpg': serve(pic, 'image/jpeg') });
  const port = new URL(loopback.url).port;
  const to = (location: string) => () => (_req: unknown, res: import('node:http').ServerResponse) =>
    res.writeHead(302, { location }).end();
  outside = await pictureServer(
    {
      '/ok.jpg': serve(pic, 'image/jpeg'),
      '/to-loopback': to(`http://127.0.0.1:${port}/secret.jpg`)(),
      '/to-localhost': to(`http://localhost:${port}/secret.jpg`)(),
      '/to-mapped': to(`http://[::ffff:127.0.0.1]:${port}/secret.jpg`)(),
      '/to-file': to('file:///etc/passwd')(),
      '/to-ok': to('/ok.jpg')(),
    },
    '127.0.0.2',
  );
});
test.after.always(async () => {
  await loopback?.close();
  await outside?.close();
});

function proxyFor(dir: string, warnings: string[]) {
  return createAvatarProxy({
    url: 'http://127.0.0.1:8080',
    routePath: '/avatar',
    resizeLimit: 0,
    allowPrivate: false,
    allowAddresses: ['127.0.0.2'],
    logger: { ...noopLogger, warn: (m) => warnings.push(m) },
    store: new FileStore(dir),
    fetchRetries: 0,
  });
}

const refused = (name: string, picture: () => string, reason: RegExp) =>
  test(`refused: ${name}; the login gets the identicon`, async (t) => {
    const dir = tempDir(t, 'authkoa-ssrf-');
    const warnings: string[] = [];
    const proxy = proxyFor(dir, warnings);
    const hitsBefore = loopback.hits.length;
    const id = `ssrf_${name.replace(/\W+/g, '_')}`;
    t.is(await proxy.put({ id, name: id, picture: picture() }), `http://127.0.0.1:8080/avatar/${avatarId(id)}`);
    t.deepEqual((await new FileStore(dir).get(avatarId(id)))?.data, identicon(id));
    t.regex(warnings.join('\n'), reason);
    t.is(loopback.hits.length, hitsBefore, 'nothing reached the loopback server');
    await proxy.close();
  });

const port = () => new URL(loopback.url).port;
refused('127.0.0.1 without avatarAllowPrivate', () => `http://127.0.0.1:${port()}/secret.jpg`, /address not allowed/);
refused('cloud metadata 169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/', /address not allowed/);
refused(
  'IPv4-mapped IPv6 [::ffff:127.0.0.1]',
  () => `http://[::ffff:127.0.0.1]:${port()}/secret.jpg`,
  /address not allowed/,
);
refused('[::1]', () => `http://[::1]:${port()}/secret.jpg`, /address not allowed/);
refused(
  'a name resolving to loopback (localhost)',
  () => `http://localhost:${port()}/secret.jpg`,
  /address not allowed/,
);
refused('a decimal IP (2130706433 = 127.0.0.1)', () => `http://2130706433:${port()}/secret.jpg`, /address not allowed/);
refused('0.0.0.0', () => `http://0.0.0.0:${port()}/secret.jpg`, /address not allowed/);
refused('a redirect to 127.0.0.1', () => `${outside.url}/to-loopback`, /address not allowed/);
refused('a redirect to localhost', () => `${outside.url}/to-localhost`, /address not allowed/);
refused('a redirect to [::ffff:127.0.0.1]', () => `${outside.url}/to-mapped`, /address not allowed/);
refused('a redirect to file://', () => `${outside.url}/to-file`, /scheme file: not allowed/);
refused('a file:// picture', () => 'file:///etc/passwd', /scheme file: not allowed/);
refused('an ftp:// picture', () => 'ftp://127.0.0.2/p.jpg', /scheme ftp: not allowed/);

test('an allowed host and a same-host redirect still work', async (t) => {
  const dir = tempDir(t, 'authkoa-ssrf-');
  const proxy = proxyFor(dir, []);
  await proxy.put({ id: 'fine', name: 'fine', picture: `${outside.url}/to-ok` });
  t.deepEqual((await new FileStore(dir).get(avatarId('fine')))?.data, pic);
  await proxy.close();
});

test('address classes: private, loopback, link-local, multicast, unspecified, mapped are forbidden', (t) => {
  for (const a of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:8.8.8.8',
    '64:ff9b::7f00:1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '[::1]',
    'not-an-ip',
  ]) {
    t.true(isForbiddenAddress(a), a);
  }
  for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001::200e'])
    t.false(isForbiddenAddress(a), a);
});

test('allowAddresses admits exact IPs and CIDRs only; a bad entry is a TypeError', (t) => {
  const allowed = addressPolicy(false, ['10.1.2.0/24', '192.168.0.7']);
  t.true(allowed('10.1.2.99'));
  t.true(allowed('192.168.0.7'));
  t.false(allowed('192.168.0.8'));
  t.false(allowed('127.0.0.1'));
  t.true(allowed('8.8.8.8'));
  t.true(addressPolicy(true)('127.0.0.1'));
  t.throws(() => addressPolicy(false, ['intranet.local']), { instanceOf: TypeError, message: /allowAddresses entry/ });
  // The avatar proxy names its own option.
  const bad = { allowPrivate: false, allowAddresses: ['intranet.local'], store: new FileStore(tempDir(t, 'authkoa-')) };
  const options = { url: 'http://127.0.0.1:8080', routePath: '/avatar', resizeLimit: 0, logger: noopLogger, ...bad };
  t.throws(() => createAvatarProxy(options), { instanceOf: TypeError, message: /avatarAllowAddresses/ });
});
