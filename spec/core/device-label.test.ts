/**
 * What the session list shows of where a login came from: the label of real browsers' User-Agent headers
 * (lib/session/device.ts), and the client's network (/24, /64), never its address (sessions/network.ts).
 */
import test from 'ava';
import { networkOf } from '../../lib/sessions/network.js';
import { deviceLabel } from '../../lib/session/device.js';

/** User-Agent headers as the browsers send them, and the label each must get. */
const AGENTS: Array<[label: string, ua: string]> = [
  [
    'Chrome on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  ],
  [
    'Chrome on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  ],
  [
    'Chrome on Linux',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  ],
  [
    'Chrome on Android',
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36',
  ],
  [
    'Chrome on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1',
  ],
  [
    'Chrome on iOS',
    'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1',
  ],
  [
    'Chrome on ChromeOS',
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  ],
  [
    'Edge on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51',
  ],
  [
    'Edge on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51',
  ],
  [
    'Edge on Android',
    'Mozilla/5.0 (Linux; Android 10; HD1913) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36 EdgA/124.0.2478.50',
  ],
  [
    'Edge on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 EdgiOS/124.2478.50 Mobile/15E148 Safari/605.1.15',
  ],
  ['Firefox on Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0'],
  ['Firefox on macOS', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0'],
  ['Firefox on Linux', 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0'],
  ['Firefox on Linux', 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0'],
  ['Firefox on Android', 'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0'],
  [
    'Firefox on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/125.0 Mobile/15E148 Safari/605.1.15',
  ],
  [
    'Safari on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
  ],
  [
    'Safari on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
  ],
  [
    'Safari on iOS',
    'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  ],
  [
    'Opera on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 OPR/110.0.0.0',
  ],
  [
    'Opera on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 OPR/110.0.0.0',
  ],
  [
    'Opera on Linux',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 OPR/110.0.0.0',
  ],
  [
    'Opera on Android',
    'Mozilla/5.0 (Linux; Android 10; VOG-L29) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36 OPR/81.1.4292.78446',
  ],
  [
    'Samsung Internet on Android',
    'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
  ],
  [
    'Samsung Internet on Linux',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Safari/537.36',
  ],
  ['curl', 'curl/8.7.1'],
  ['Node.js', 'node'],
  ['Node.js', 'undici'],
];

for (const [label, ua] of AGENTS) {
  test(`${label}: ${ua.slice(0, 70)}`, (t) => {
    t.is(deviceLabel(ua), label);
  });
}

test('nothing known, nothing said: an empty or missing header, a bot, an unknown client are "Unknown device"', (t) => {
  for (const ua of ['', undefined, '-', 'Googlebot-Image/1.0', 'python-requests/2.31.0', 'Wget/1.21.4', 'Mozilla/5.0'])
    t.is(deviceLabel(ua), 'Unknown device', String(ua));
});

test('a system alone, or a browser alone, is said alone', (t) => {
  t.is(deviceLabel('Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/UD1A.230803.041)'), 'Android');
  t.is(deviceLabel('Mozilla/5.0 (Windows NT 10.0; Win64; x64)'), 'Windows');
  t.is(deviceLabel('Firefox/125.0'), 'Firefox');
});

test("the label is one of the rule's words, never the sender's text", (t) => {
  t.is(deviceLabel('<script>alert(1)</script> Chrome/1 (Windows; evil")'), 'Chrome on Windows');
  t.is(deviceLabel('curl/8.0 <img src=x onerror=alert(1)>'), 'curl');
});

test('a 10 kB header of garbage (and one built to make the rule backtrack) is "Unknown device": only its first 512 characters are read', (t) => {
  // The bound is what keeps a hostile header cheap: whatever the rule's patterns cost per character, they
  // never see more than 512 (no wall-time assertion: a loaded machine made one fail).
  let seed = 1;
  const garbage = Array.from({ length: 10_240 }, () =>
    String.fromCharCode(33 + ((seed = (seed * 48_271) % 2_147_483_647) % 94)),
  ).join('');
  // "Version/" and digits without the "Safari/" the Safari rule looks for: each start backtracks over the rest.
  const backtracking = `Version/${'1.'.repeat(5_000)}x`.repeat(2);
  for (const ua of [garbage, backtracking]) {
    t.is(deviceLabel(ua), 'Unknown device');
    t.is(deviceLabel(ua), deviceLabel(ua.slice(0, 512)));
  }
  t.is(
    deviceLabel(`${'x'.repeat(10_000)} Chrome/124 (Windows)`),
    'Unknown device',
    'a token past the first 512 characters is not read',
  );
  t.is(deviceLabel(`${'x'.repeat(480)} Chrome/124 (Windows)`), 'Chrome on Windows', 'one within them is');
});

test('networkOf: an IPv4 address by its /24, an IPv4-mapped IPv6 one as its IPv4', (t) => {
  t.is(networkOf('203.0.113.77'), '203.0.113.0/24');
  t.is(networkOf('10.1.2.3'), '10.1.2.0/24');
  t.is(networkOf('::ffff:203.0.113.77'), '203.0.113.0/24');
  t.is(networkOf('::FFFF:198.51.100.9'), '198.51.100.0/24');
});

test('networkOf: an IPv6 address by its /64, written in full or compressed, in any case, with a zone id', (t) => {
  t.is(networkOf('2001:0db8:85a3:1234:5678:8a2e:0370:7334'), '2001:db8:85a3:1234::/64');
  t.is(networkOf('2001:DB8:85A3:1234:5678:8A2E:370:7334'), '2001:db8:85a3:1234::/64');
  t.is(networkOf('2001:db8::1'), '2001:db8:0:0::/64');
  t.is(networkOf('2001:db8:1:2::'), '2001:db8:1:2::/64');
  t.is(networkOf('::1'), '0:0:0:0::/64');
  t.is(networkOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
  const a = networkOf('2001:db8:aaaa:bbbb:1::1');
  t.is(networkOf('2001:db8:aaaa:bbbb:ffff:ffff:ffff:ffff'), a, 'one /64, one network');
  t.not(networkOf('2001:db8:aaaa:bbbc::1'), a, 'the next /64 is another');
});

test("networkOf: anything that is not an address is ''", (t) => {
  for (const ip of [
    '',
    undefined,
    'localhost',
    '999.1.1.1',
    '1.2.3',
    '1.2.3.4, 5.6.7.8',
    '::ffff:999.1.1.1',
    '2001:db8::g',
    `${'1'.repeat(100)}`,
    '1.2.3.4/24',
    ' 1.2.3.4',
  ]) {
    t.is(networkOf(ip), '', String(ip));
  }
});
