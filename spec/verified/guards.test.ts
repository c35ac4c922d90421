import test from 'ava';
import { Client } from '../helpers/http.js';
import { requestToken, rig } from './fixtures.js';

test('by default the mailed link (a GET) shows a page and sets no cookie; only the POST logs in', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r, { from: '/welcome' });
  const c = new Client(r.app.url);
  for (let i = 0; i < 2; i++) {
    // A link scanner may open it any number of times without spending the token.
    const page = await c.fetch(`/auth/email/login?token=${token}&session=1`);
    t.is(page.status, 200);
    t.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
    t.deepEqual(page.headers.getSetCookie(), []);
    const csp = page.headers.get('content-security-policy')!;
    t.regex(csp, /form-action 'self'/);
    t.notRegex(csp, /sandbox/);
    t.regex(csp, /default-src 'none'/);
    t.is(page.headers.get('referrer-policy'), 'same-origin');
    t.is(page.headers.get('cache-control'), 'no-store');
    const html = await page.text();
    t.regex(html, /<form method="post" action="login">/);
    t.true(html.includes(`name="token" value="${token}"`));
    t.true(html.includes('name="session" value="1"'));
    t.true(html.includes('alice@example.com'));
  }
  const post = await c.fetch('/auth/email/login', { method: 'POST', form: { token, session: '1' } });
  t.is(post.status, 303);
  t.is(post.headers.get('location'), `${r.app.url}/welcome`);
  t.true(c.jar.has('JWT'));
  t.is(c.cookie('JWT')!.attrs['max-age'], undefined);
  // Spent now: a second POST is refused.
  const again = await c.fetch('/auth/email/login', { method: 'POST', form: { token } });
  t.is(again.status, 403);
  t.is(((await again.json()) as { code: string }).code, 'confirmation_used');
});

test('confirm-page mode: an allowed cross-host from is in form-action; a POST from another site is refused', async (t) => {
  const r = await rig(t, { provider: { confirmPage: true }, service: { allowedRedirects: ['app.example.com'] } });
  const token = await requestToken(r, { from: 'https://app.example.com/home' });
  const page = await r.client.fetch(`/auth/email/login?token=${token}`);
  t.regex(page.headers.get('content-security-policy')!, /form-action 'self' https:\/\/app\.example\.com;/);
  const csrf = await r.client.fetch('/auth/email/login', {
    method: 'POST',
    form: { token },
    headers: { origin: 'https://evil.example' },
  });
  t.is(csrf.status, 403);
  t.deepEqual(await csrf.json(), { error: 'the request must come from this site', code: 'origin_mismatch' });
  t.deepEqual(csrf.headers.getSetCookie(), []);
  // Without Origin, a browser's Sec-Fetch-Site or Referer still tells a cross-site POST.
  const fetchSite = await r.client.fetch('/auth/email/login', {
    method: 'POST',
    form: { token },
    headers: { 'sec-fetch-site': 'cross-site' },
  });
  t.is(fetchSite.status, 403);
  const referer = await r.client.fetch('/auth/email/login', {
    method: 'POST',
    form: { token },
    headers: { referer: 'https://evil.example/page' },
  });
  t.is(referer.status, 403);
  const ok = await r.client.fetch('/auth/email/login', {
    method: 'POST',
    form: { token },
    headers: { origin: r.app.url },
  });
  t.is(ok.status, 303);
  t.is(ok.headers.get('location'), 'https://app.example.com/home');
});

test('confirmPage: false restores the original behaviour: the GET of the link logs in', async (t) => {
  const r = await rig(t, { provider: { confirmPage: false } });
  const token = await requestToken(r);
  const c = new Client(r.app.url);
  const res = await c.fetch(`/auth/email/login?token=${token}`);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.true(c.jar.has('JWT'));
});

test('an invalid token gets 403 JSON in confirm-page mode too, not a page', async (t) => {
  const r = await rig(t, { provider: { confirmPage: true } });
  const res = await r.client.fetch('/auth/email/login?token=nonsense');
  t.is(res.status, 403);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
});

test('CR/LF and other control characters in address or user are refused with 400, nothing sent', async (t) => {
  const r = await rig(t);
  const bad: Array<[Record<string, string>, string]> = [
    [{ user: 'alice', address: 'alice@example.com\r\nBcc: victim@example.org' }, 'bad_address'],
    [{ user: 'alice', address: 'alice@example.com\nX: y' }, 'bad_address'],
    [{ user: 'alice\r\nBcc: x@y.z', address: 'alice@example.com' }, 'bad_user'],
    [{ user: 'al\u0000ice', address: 'alice@example.com' }, 'bad_user'],
    [{ user: 'al\u202eice', address: 'alice@example.com' }, 'bad_user'],
    [{ user: 'a::b', address: 'alice@example.com' }, 'bad_user'],
    [{ user: 'x'.repeat(129), address: 'alice@example.com' }, 'bad_user'],
    [{ user: 'alice', address: `${'a'.repeat(250)}@example.com` }, 'bad_address'],
    [{ user: 'alice', address: 'not-an-email' }, 'bad_address'],
    [{ user: 'alice', address: 'a@b.example, victim@example.org' }, 'bad_address'],
    [{ user: 'alice', address: 'Alice <alice@example.com>' }, 'bad_address'],
    [{ user: '', address: 'alice@example.com' }, 'bad_request'],
    [{ user: 'alice', address: '' }, 'bad_request'],
    [{ user: 'alice', address: 'alice@example.com', site: 'a\nb' }, 'bad_request'],
  ];
  for (const [q, code] of bad) {
    const res = await r.client.fetch(`/auth/email/login?${new URLSearchParams(q)}`);
    t.is(res.status, 400, JSON.stringify(q));
    t.is(((await res.json()) as { code: string }).code, code, JSON.stringify(q));
  }
  t.is(r.smtp.received.length, 0);
  // The same path still works for a good request.
  t.is((await r.client.fetch('/auth/email/login?user=alice&address=alice@example.com')).status, 200);
});

test('a sender without validateAddress accepts any safe address (e.g. a phone number)', async (t) => {
  const sent: Array<[string, string]> = [];
  const { startApp } = await import('../helpers/http.js');
  const app = await startApp({
    secret: 'sms-secret-0123456789abcdefghijklmn',
    providers: [
      {
        kind: 'verified',
        name: 'sms',
        template: 'code {{.Token}}',
        sender: (a: string, text: string) => void sent.push([a, text]),
      },
    ],
  });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.is((await c.fetch('/auth/sms/login?user=bob&address=%2B15551234567')).status, 200);
  t.is(sent[0]![0], '+15551234567');
  t.is((await c.fetch('/auth/sms/login?user=bob&address=%2B1555%0A1234567')).status, 400);
  t.is(sent.length, 1);
  const login = await c.fetch(`/auth/sms/login?token=${sent[0]![1].slice(5)}`, { method: 'POST' });
  t.is(login.status, 200);
});

test('step 1 is limited per address and per IP: 429 JSON with Retry-After; the window passes', async (t) => {
  const r = await rig(t, { provider: { rateLimit: { perAddress: 2, perIP: 4, window: '10m' } } });
  const ask = (address: string) => r.client.fetch(`/auth/email/login?user=u&address=${address}`);
  t.is((await ask('a@example.com')).status, 200);
  t.is((await ask('A@example.com')).status, 200); // addresses count case-insensitively
  const limited = await ask('a@example.com');
  t.is(limited.status, 429);
  t.deepEqual(await limited.json(), { error: 'too many confirmation requests', code: 'rate_limited' });
  t.is(limited.headers.get('retry-after'), '600');
  t.is((await ask('b@example.com')).status, 200);
  t.is((await ask('c@example.com')).status, 200);
  // Four mails from this IP: the fifth address is refused too.
  t.is((await ask('d@example.com')).status, 429);
  t.is(r.smtp.received.length, 4);
  r.clock.advance(10 * 60 * 1000);
  t.is((await ask('a@example.com')).status, 200);
});

test('the default limit is 5 per address', async (t) => {
  const r = await rig(t);
  for (let i = 0; i < 5; i++)
    t.is((await r.client.fetch('/auth/email/login?user=u&address=a@example.com')).status, 200);
  t.is((await r.client.fetch('/auth/email/login?user=u&address=a@example.com')).status, 429);
});

test('a failing used-token store fails closed: 503, no cookies, the cause logged', async (t) => {
  const r = await rig(t, {
    provider: {
      usedTokens: {
        async markUsed() {
          throw new Error('store down');
        },
      },
    },
  });
  const token = await requestToken(r);
  const res = await r.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.is(res.status, 503);
  t.deepEqual(await res.json(), { error: 'login state is unavailable', code: 'state_store_unavailable' });
  t.deepEqual(res.headers.getSetCookie(), []);
  t.true(
    r.logs.some((l) => /login state is unavailable: store down/.test(l)),
    r.logs.join('\n'),
  );
});

test('a custom used-token store gets the jti key and the token expiry', async (t) => {
  const calls: Array<[string, number]> = [];
  const r = await rig(t, {
    provider: {
      usedTokens: {
        async markUsed(id: string, exp: number) {
          calls.push([id, exp]);
          return true;
        },
      },
    },
  });
  const token = await requestToken(r);
  t.is((await r.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' })).status, 200);
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  t.deepEqual(calls, [[`verified:email:${claims.jti}`, claims.exp * 1000]]);
});

test('HTML senders get HTML-escaped values in the template', async (t) => {
  const r = await rig(t, {
    sender: { contentType: 'text/html' },
    provider: { template: '<p>Hi {{.User}} ({{.Address}})</p><p>token: {{.Token}} </p>' },
  });
  const res = await r.client.fetch(
    `/auth/email/login?${new URLSearchParams({ user: '<b>"Bob" & \'co\'</b>', address: 'bob@example.com' })}`,
  );
  t.is(res.status, 200);
  const m = await r.smtp.next();
  t.regex(m.raw.toString(), /^Content-Type: text\/html; charset=utf-8\r?$/m);
  t.true(m.mail.html!.includes('Hi &#60;b&#62;&#34;Bob&#34; &#38; &#39;co&#39;&#60;/b&#62; (bob@example.com)'));
  t.false(m.mail.html!.includes('<b>'));
  // The token survives escaping (JWTs have no HTML-special characters) and logs in.
  const token = /token: (\S+)/.exec(m.mail.html!)![1]!;
  const login = await new Client(r.app.url).fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.is(login.status, 200);
  t.is(((await login.json()) as { name: string }).name, '<b>"Bob" & \'co\'</b>');
});

test('plain-text senders get the values unescaped', async (t) => {
  const r = await rig(t);
  await r.client.fetch(
    `/auth/email/login?${new URLSearchParams({ user: 'Tom & <Jerry>', address: 'tom@example.com' })}`,
  );
  t.true((await r.smtp.next()).mail.text!.startsWith('Hello Tom & <Jerry> <tom@example.com>'));
});
