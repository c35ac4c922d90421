import { createHash } from 'node:crypto';
import test from 'ava';
import { Client, decodeJwt } from '../helpers/http.js';
import { SECRET, TEMPLATE, requestToken, rig, tokenIn } from './fixtures.js';
import { tamperedSignature } from '../helpers/tamper.js';

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
const alice = { name: 'alice', id: `email_${sha1('alice@example.com')}`, picture: '' };

test('step 1 mails the rendered template with From, Subject and content type, and answers {user,address}', async (t) => {
  const r = await rig(t);
  const res = await r.client.fetch('/auth/email/login?user=alice&address=alice@example.com&site=blog');
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.deepEqual(await res.json(), { user: 'alice', address: 'alice@example.com' });
  t.deepEqual(res.headers.getSetCookie(), []);
  const m = await r.smtp.next();
  t.deepEqual(m.mail.from, { name: 'Test App', address: 'login@example.com' });
  t.deepEqual(m.envelopeTo, ['alice@example.com']);
  t.is(m.mail.subject, 'Confirm your login');
  t.regex(m.raw.toString(), /^Content-Type: text\/plain; charset=utf-8\r?$/m);
  t.regex(m.raw.toString(), /^Auto-Submitted: auto-generated\r?$/m);
  const token = tokenIn(m.mail.text);
  t.is(
    m.mail.text,
    TEMPLATE.replace('{{.User}}', 'alice')
      .replace('{{.Address}}', 'alice@example.com')
      .replace('{{.Site}}', 'blog')
      .replace('{{.Token}}', token),
  );
  t.false(m.secure);
});

test('the confirmation token is a short-lived JWT bound to user, address, aud and provider, with a jti', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r, { site: 'blog', from: '/after' });
  const c = decodeJwt(token);
  const now = Math.floor(r.clock() / 1000);
  t.is(c.aud, 'blog');
  t.is(c.exp, now + 30 * 60);
  t.is(c.nbf, now - 60);
  t.regex(c.jti, /^[0-9a-f]{40}$/);
  t.deepEqual(c.handshake, { id: 'alice::alice@example.com', from: '/after' });
  t.deepEqual(c.auth_provider, { name: 'email' });
  t.is(c.user, undefined);
});

test('the token from the mail logs the user in: cookies and the User JSON', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r, { site: 'blog' });
  const c = new Client(r.app.url);
  const res = await c.fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.is(res.status, 200);
  t.deepEqual(await res.json(), alice);
  t.true(c.jar.has('JWT'));
  const claims = decodeJwt(c.jar.get('JWT')!);
  t.is(claims.aud, 'blog');
  t.deepEqual(claims.auth_provider, { name: 'email' });
  t.truthy(c.cookie('JWT')!.attrs['max-age']);
  const priv = await c.fetch('/private', { headers: c.xsrf() });
  t.is(priv.status, 201);
  t.is(((await priv.json()) as { user: { id: string } }).user.id, alice.id);
});

test('the {{.URL}} link, session flags and from: 303 to a permitted from, session-only cookies', async (t) => {
  const r = await rig(t, { provider: { template: 'link: {{.URL}}\ntoken: {{.Token}}' } });
  const res = await r.client.fetch('/auth/email/login?user=alice&address=alice@example.com&from=/welcome&session=1');
  t.is(res.status, 200);
  const m = await r.smtp.next();
  const link = /link: (\S+)/.exec(m.mail.text!)![1]!;
  t.true(link.startsWith(`${r.app.url}/auth/email/login?token=`));
  t.true(link.endsWith('&session=1'));
  const c = new Client(r.app.url);
  // The link opens the confirm page (no cookie yet); its button POSTs the same parameters.
  const page = await c.fetch(link);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  t.is(c.jar.get('JWT'), undefined);
  const done = await c.fetch(link, { method: 'POST' });
  t.is(done.status, 303);
  t.is(done.headers.get('location'), `${r.app.url}/welcome`);
  t.is(c.cookie('JWT')!.attrs['max-age'], undefined);
  t.true(decodeJwt(c.jar.get('JWT')!).sess_only);

  // The confirm request's own flag wins over the first request's.
  await r.client.fetch('/auth/email/login?user=alice&address=alice@example.com&session=1');
  const token = tokenIn((await r.smtp.next()).mail.text);
  const c2 = new Client(r.app.url);
  t.is((await c2.fetch(`/auth/email/login?token=${token}&sess=0`, { method: 'POST' })).status, 200);
  t.truthy(c2.cookie('JWT')!.attrs['max-age']);
});

test('a from outside the redirect policy answers the User JSON instead of redirecting', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r, { from: 'https://evil.example/steal' });
  const res = await new Client(r.app.url).fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.is(res.status, 200);
  t.deepEqual(await res.json(), alice);
});

test('a used token is refused: 403 confirmation_used, no cookies', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r);
  t.is((await new Client(r.app.url).fetch(`/auth/email/login?token=${token}`, { method: 'POST' })).status, 200);
  const again = await new Client(r.app.url).fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.is(again.status, 403);
  t.deepEqual(await again.json(), { error: 'confirmation token already consumed', code: 'confirmation_used' });
  t.deepEqual(again.headers.getSetCookie(), []);
});

test('two concurrent confirmations with one token: exactly one logs in', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r);
  const statuses = await Promise.all(
    [1, 2, 3].map(() =>
      new Client(r.app.url).fetch(`/auth/email/login?token=${token}`, { method: 'POST' }).then((x) => x.status),
    ),
  );
  t.deepEqual(statuses.sort(), [200, 403, 403]);
});

test('an expired token is refused (clock moved past 30 minutes); a custom tokenDuration is honoured', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r);
  r.clock.advance(30 * 60 * 1000 + 1000);
  const res = await r.client.fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.is(res.status, 403);
  t.deepEqual(await res.json(), { error: 'confirmation token expired', code: 'confirmation_expired' });

  const short = await rig(t, { provider: { tokenDuration: '5m' } });
  const token2 = await requestToken(short);
  short.clock.advance(4 * 60 * 1000);
  t.is((await new Client(short.app.url).fetch(`/auth/email/login?token=${token2}`, { method: 'POST' })).status, 200);
  const token3 = await requestToken(short);
  short.clock.advance(5 * 60 * 1000);
  t.is((await new Client(short.app.url).fetch(`/auth/email/login?token=${token3}`, { method: 'POST' })).status, 403);
});

test('a token for another aud is refused; an aud outside `audiences` gets no mail', async (t) => {
  const r = await rig(t, { service: { audiences: ['site-a', 'site-b'] } });
  const token = await requestToken(r, { aud: 'site-a' });
  const other = await r.client.fetch(`/auth/email/login?token=${token}&aud=site-b`, { method: 'POST' });
  t.is(other.status, 403);
  t.is(((await other.json()) as { code: string }).code, 'confirmation_invalid');
  const otherSite = await r.client.fetch(`/auth/email/login?token=${token}&site=site-b`, { method: 'POST' });
  t.is(otherSite.status, 403);
  // The refusals did not spend it: the right audience still logs in.
  const ok = await new Client(r.app.url).fetch(`/auth/email/login?token=${token}&aud=site-a`, { method: 'POST' });
  t.is(ok.status, 200);
  t.is(decodeJwt(ok.headers.getSetCookie()[0]!.split(';')[0]!.slice(4)).aud, 'site-a');

  const refused = await r.client.fetch('/auth/email/login?user=alice&address=alice@example.com&aud=site-c');
  t.is(refused.status, 403);
  t.is(((await refused.json()) as { code: string }).code, 'aud_not_allowed');
  t.is(r.smtp.received.length, 1);
});

test('a tampered token, a token of another provider or secret, and garbage are refused with 403', async (t) => {
  const two = await rig(t);
  const token = await requestToken(two);
  const [h, p, s] = token.split('.');
  const tampered = [
    h,
    Buffer.from(JSON.stringify({ ...decodeJwt(token), handshake: { id: 'admin::admin@example.com' } })).toString(
      'base64url',
    ),
    s,
  ].join('.');
  for (const bad of [tampered, tamperedSignature(`${h}.${p}.${s!}`), 'garbage', 'a.b.c']) {
    const res = await two.client.fetch(`/auth/email/login?token=${encodeURIComponent(bad)}`, { method: 'POST' });
    t.is(res.status, 403, bad);
    t.is(((await res.json()) as { code: string }).code, 'confirmation_invalid');
  }

  // Another instance with another secret, and a provider of another name, refuse it.
  const { startApp } = await import('../helpers/http.js');
  const other = await startApp({
    secret: 'another-secret-0123456789abcdefghij',
    providers: [{ kind: 'verified', name: 'email', sender: () => {} }],
  });
  t.teardown(() => other.close());
  t.is((await new Client(other.url).fetch(`/auth/email/login?token=${token}`, { method: 'POST' })).status, 403);
  const renamed = await startApp({
    secret: SECRET,
    clock: two.clock,
    providers: [{ kind: 'verified', name: 'email2', sender: () => {} }],
  });
  t.teardown(() => renamed.close());
  t.is((await new Client(renamed.url).fetch(`/auth/email2/login?token=${token}`, { method: 'POST' })).status, 403);
  // Untouched, it still works where it was issued.
  t.is((await new Client(two.app.url).fetch(`/auth/email/login?token=${token}`, { method: 'POST' })).status, 200);
});

test('a confirmation token is not a session token', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r);
  t.is((await r.client.fetch('/private', { headers: { 'X-JWT': token } })).status, 401);
  t.is((await r.client.fetch(`/private?token=${token}`)).status, 401);
});

test('the user id is <name>_sha1(address), whatever the user name', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r, { user: 'Alice Cooper' });
  const res = await new Client(r.app.url).fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.deepEqual(await res.json(), { name: 'Alice Cooper', id: alice.id, picture: '' });
});

test('logout clears the cookies; callback is a no-op', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r);
  const c = new Client(r.app.url);
  await c.fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  t.true(c.jar.has('JWT'));
  const out = await c.fetch('/auth/email/logout');
  t.is(out.status, 200);
  t.false(c.jar.has('JWT'));
  t.is((await c.fetch('/auth/email/callback')).status, 200);
});

test('step 1 by POST (JSON or form) works like the GET', async (t) => {
  const r = await rig(t);
  const json = await r.client.fetch('/auth/email/login', {
    method: 'POST',
    json: { user: 'alice', address: 'alice@example.com' },
  });
  t.is(json.status, 200);
  const token = tokenIn((await r.smtp.next()).mail.text);
  const res = await new Client(r.app.url).fetch('/auth/email/login', { method: 'POST', form: { token } });
  t.is(res.status, 200);
  t.deepEqual(await res.json(), alice);
});
