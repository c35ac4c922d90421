/**
 * Confirm-page mode, a link that cannot log in any more, opened in a browser: a page that says why
 * (used, expired, not valid) with the 403 status. Scripts, and confirmPage: false, keep the JSON errors.
 */
import test from 'ava';
import { memoryUsedTokenStore } from '../../lib/state/index.js';
import { requestToken, rig } from './fixtures.js';

const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

test('an expired and a garbled link each get their own page in a browser, JSON otherwise', async (t) => {
  const r = await rig(t);
  const token = await requestToken(r);
  r.clock.advance(31 * 60_000);
  for (const [query, title, code] of [
    [`token=${token}`, 'Link expired', 'confirmation_expired'],
    [`token=${token.slice(0, -4)}`, 'Link not valid', 'confirmation_invalid'],
  ] as const) {
    const page = await r.client.fetch(`/auth/email/login?${query}`, { headers: HTML });
    t.is(page.status, 403);
    t.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
    t.regex(page.headers.get('content-security-policy')!, /default-src 'none'/);
    t.regex(await page.text(), new RegExp(`<h1>${title}</h1>`));
    const json = await r.client.fetch(`/auth/email/login?${query}`);
    t.is(json.status, 403);
    t.is(((await json.json()) as { code: string }).code, code);
  }
});

test('a used-token store that cannot be asked: the GET shows the confirm page, its POST the "already used" page', async (t) => {
  const r = await rig(t, { provider: { usedTokens: memoryUsedTokenStore() } });
  const token = await requestToken(r);
  const post = () =>
    r.client.fetch('/auth/email/login', { method: 'POST', form: { token }, headers: { ...HTML, origin: r.app.url } });
  t.is((await post()).status, 200, 'logged in (no from: the User JSON)');
  const page = await r.client.fetch(`/auth/email/login?token=${token}`, { headers: HTML });
  t.is(page.status, 200, 'a store with markUsed() alone cannot say the link is spent without spending it');
  const again = await post();
  t.is(again.status, 403);
  t.regex(await again.text(), /<h1>Link already used<\/h1>/);
});

test('confirmPage: false answers a spent link with JSON even to a browser, as the original did', async (t) => {
  const r = await rig(t, { provider: { confirmPage: false } });
  const token = await requestToken(r);
  t.is((await r.client.fetch(`/auth/email/login?token=${token}`, { headers: HTML })).status, 200);
  const again = await r.client.fetch(`/auth/email/login?token=${token}`, { headers: HTML });
  t.is(again.status, 403);
  t.is(again.headers.get('content-type'), 'application/json; charset=utf-8');
});
