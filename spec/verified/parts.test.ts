import test from 'ava';
import { memoryUsedTokenStore } from '../../lib/state/used-tokens.js';
import { stateLimiter } from '../../lib/state/limiter.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { compileTemplate } from '../../lib/providers/verified/template.js';
import { manualClock, started } from '../helpers/http.js';

test('memory used-token store: first mark wins, a second is refused until the expiry, expired ids are swept', async (t) => {
  const clock = manualClock();
  const store = memoryUsedTokenStore({ clock, sweepEvery: 4 });
  const exp = clock() + 10 * 60_000;
  t.true(await store.markUsed('a', exp));
  t.false(await store.markUsed('a', exp));
  const concurrent = await Promise.all([1, 2, 3].map(() => store.markUsed('b', exp)));
  t.deepEqual(concurrent.filter(Boolean).length, 1);
  clock.advance(10 * 60_000);
  t.true(await store.markUsed('a', clock() + 60_000)); // 'a' expired, so it may be marked again
  t.is(store.size, 2);
  clock.advance(2 * 60_000);
  t.true(await store.markUsed('c', clock() + 60_000));
  t.true(await store.markUsed('d', clock() + 60_000)); // fourth insert sweeps 'a' and 'b'
  t.is(store.size, 2);
  await t.throwsAsync(() => store.markUsed('', exp), { instanceOf: TypeError });
});

test('window limiter: counts all keys only when none is over, reports the wait', async (t) => {
  const clock = manualClock();
  const l = stateLimiter(memoryStateStore({ clock }), clock);
  const keys = [
    { key: 'a', limit: 1 },
    { key: 'ip', limit: 3 },
  ];
  t.is(await l.hit(keys, 1000), undefined);
  clock.advance(400);
  t.is(await l.hit(keys, 1000), 600);
  t.is(
    await l.hit(
      [
        { key: 'b', limit: 1 },
        { key: 'ip', limit: 3 },
      ],
      1000,
    ),
    undefined,
  );
  clock.advance(600);
  t.is(await l.hit(keys, 1000), undefined);
});

test('templates: Go-style fields with optional spaces; unknown actions are refused', (t) => {
  const tpl = compileTemplate('{{.User}}|{{ .Address }}|{{.Site}}|{{.Token}}|{{.URL}}');
  const data = { User: '<u>', Address: 'a&b', Site: 's"', Token: 't', URL: 'http://x/?a=1&b=2' };
  t.is(tpl.render(data, false), '<u>|a&b|s"|t|http://x/?a=1&b=2');
  t.is(tpl.render(data, true), '&#60;u&#62;|a&#38;b|s&#34;|t|http://x/?a=1&#38;b=2');
  for (const bad of ['{{.Password}}', '{{template "x"}}', '{{ .User | html }}', '']) {
    t.throws(() => compileTemplate(bad), { instanceOf: TypeError }, bad);
  }
});

test('verified provider options are checked at start-up with the provider entry named', async (t) => {
  const make = (p: Record<string, unknown>) => () =>
    started({
      secret: 's'.repeat(32),
      url: 'http://127.0.0.1:1',
      providers: [{ kind: 'verified', name: 'email', sender: () => {}, ...p }],
    });
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ sender: undefined }, /providers\[0\] \(verified\): sender must be/],
    [{ sender: { send: 'x' } }, /sender must be/],
    [{ template: 'hi {{.Nope}}' }, /unknown action "\{\{\.Nope\}\}"/],
    [{ tokenDuration: 'soon' }, /providers\[0\] \(verified\): tokenDuration must be/],
    [{ rateLimit: { perIP: 0 } }, /rateLimit.perIP must be a positive integer/],
    [{ rateLimit: true }, /rateLimit must be false/],
    [{ confirmPage: 'yes' }, /confirmPage must be a boolean/],
    [{ usedTokens: {} }, /usedTokens must implement markUsed/],
  ];
  for (const [p, msg] of bad) await t.throwsAsync(make(p), { instanceOf: TypeError, message: msg }, JSON.stringify(p));
  await t.notThrowsAsync(make({ rateLimit: false, confirmPage: true, tokenDuration: 60_000 }));
});
