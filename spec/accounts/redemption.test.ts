/**
 * A mailed link works once, however many redeem it at the same moment: 100 parallel POSTs of one reset link
 * or one confirmation link give exactly one 200, in one process, and in two app processes (separate `node`
 * processes, fixtures/account-app.ts) sharing one real redis-server as their state store and one LMDB
 * account store, each receiving 50 of the 100 at once.
 */
import test, { type ExecutionContext } from 'ava';
import { Client } from '../helpers/http.js';
import { twoAccountApps } from './fixtures/two-apps.js';
import { accountsRig, linkIn, login, PASSWORD, post, signUpAndConfirm, tokenOf } from './rig.js';

const NEW_PASSWORD = 'the one new passphrase';

/** POSTs `json` to `path` on each of `bases` in turn, `count` requests in all, every one sent before any is awaited. */
async function redeemAtOnce(bases: string[], origin: string, path: string, json: unknown, count = 100) {
  const answers = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await fetch(bases[i % bases.length]! + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify(json),
      });
      const body = (await res.json()) as { code?: string };
      return `${res.status} ${body.code ?? ''}`.trim();
    }),
  );
  const counts: Record<string, number> = {};
  for (const a of answers) counts[a] = (counts[a] ?? 0) + 1;
  return counts;
}

/** Exactly one 200; every other answer a 403 saying the link is spent. */
function exactlyOne(t: ExecutionContext, counts: Record<string, number>, refusals: string[]) {
  t.log(JSON.stringify(counts));
  t.is(counts['200'], 1, 'exactly one redemption succeeds');
  for (const [answer, n] of Object.entries(counts))
    if (answer !== '200') t.true(refusals.includes(answer), `${n} × ${answer}`);
}

test('one process: 100 parallel redemptions of one confirmation link: one 200, 99 × 403 confirmation_used', async (t) => {
  const r = await accountsRig(t);
  await post(r.client, '/auth/local/signup', { email: 'race@example.com', password: PASSWORD });
  const token = tokenOf(linkIn(await r.smtp.next()));
  const origin = new URL(r.app.url).origin;
  const counts = await redeemAtOnce([r.app.url], origin, '/auth/local/confirm', { token });
  exactlyOne(t, counts, ['403 confirmation_used']);
});

test('one process: 100 parallel redemptions of one reset link: one 200, 99 × 403 confirmation_used, and the new password is set', async (t) => {
  const r = await accountsRig(t);
  await signUpAndConfirm(r, 'race@example.com');
  await post(r.client, '/auth/local/reset', { email: 'race@example.com' });
  const token = tokenOf(linkIn(await r.smtp.next()));
  const origin = new URL(r.app.url).origin;
  const counts = await redeemAtOnce([r.app.url], origin, '/auth/local/reset/confirm', {
    token,
    password: NEW_PASSWORD,
  });
  // Those that read the account after the winner set the new password are told the link was used too.
  exactlyOne(t, counts, ['403 confirmation_used']);
  t.is((await login(new Client(r.app.url), 'race@example.com', NEW_PASSWORD)).status, 200);
});

test('two processes on one redis-server: a confirmation link and a reset link, each redeemed 50 times at each process at once: exactly one 200', async (t) => {
  const { bases, url, smtp } = await twoAccountApps(t);
  const origin = new URL(url).origin;
  // From the site's pages (its one url), whichever process answers.
  const send = (base: string, path: string, json: unknown) =>
    fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify(json),
    });
  t.is((await send(bases[0]!, '/auth/local/signup', { email: 'race@example.com', password: PASSWORD })).status, 202);
  const confirmToken = tokenOf(linkIn(await smtp.next()));
  // The sign-up's link, redeemed 50 times on each process at once.
  exactlyOne(t, await redeemAtOnce(bases, origin, '/auth/local/confirm', { token: confirmToken }), [
    '403 confirmation_used',
  ]);
  // A reset link minted by the second process, redeemed 50 times on each.
  t.is((await send(bases[1]!, '/auth/local/reset', { email: 'race@example.com' })).status, 202);
  const resetToken = tokenOf(linkIn(await smtp.next()));
  const counts = await redeemAtOnce(bases, origin, '/auth/local/reset/confirm', {
    token: resetToken,
    password: NEW_PASSWORD,
  });
  exactlyOne(t, counts, ['403 confirmation_used']);
  for (const base of bases) {
    const res = await send(base, '/auth/local/login', { user: 'race@example.com', passwd: NEW_PASSWORD });
    t.is(res.status, 200, `the new password on ${base}`);
  }
});
