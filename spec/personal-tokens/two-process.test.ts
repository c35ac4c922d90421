/**
 * One personal token used by two app processes (separate `node` processes, spec/accounts/fixtures/account-app.ts)
 * sharing one real redis-server as their state store and one LMDB account store: 100 parallel uses, 50 at each,
 * all succeed; revoked in one process, the other is told through the state store's broadcast (the revocation
 * channel) and refuses it too, well within the stated delay (`tokens.revocationDelay`, 30 s by default, what is
 * left when the channel is down), the clocks unmoved; with `strictRevocation`, at once by a store read (and, past
 * the client's failed lookups, by `tokens.failedLookups`).
 */
import test, { type ExecutionContext } from 'ava';
import { Client } from '../helpers/http.js';
import { twoAccountApps } from '../accounts/fixtures/two-apps.js';
import { linkIn, PASSWORD, post, tokenOf } from '../accounts/rig.js';

/** docs/accounts.md: a token revoked in one process is refused by the others within this. */
const STATED_DELAY_MS = 30_000;

/** `count` uses of the token at once, alternating between the processes: the answers counted by status. */
async function useAtOnce(bases: string[], token: string, count = 100): Promise<Record<string, number>> {
  const answers = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await fetch(`${bases[i % bases.length]}/api/me`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { code?: string; auth?: { method: string } };
      return `${res.status} ${body.code ?? body.auth?.method ?? ''}`;
    }),
  );
  const counts: Record<string, number> = {};
  for (const a of answers) counts[a] = (counts[a] ?? 0) + 1;
  return counts;
}

/** Two app processes on one redis-server and one LMDB account store; a user of the first has made a token there. */
async function twoProcesses(t: ExecutionContext, strict = false) {
  const { bases, url, smtp } = await twoAccountApps(t, { strict });

  // A user of the first process makes a token there.
  const browser = new Client(bases[0]!);
  t.is((await post(browser, '/auth/local/signup', { email: 'ci@example.com', password: PASSWORD })).status, 202);
  t.is((await post(browser, '/auth/local/confirm', { token: tokenOf(linkIn(await smtp.next())) })).status, 200);
  const created = await post(browser, '/auth/tokens', { name: 'ci' });
  t.is(created.status, 201, await created.clone().text());
  const { token, id } = (await created.json()) as { token: string; id: string };
  /** Revokes the token through the second process, with the browser's session. */
  const revokeOnSecond = async () => {
    const second = new Client(bases[1]!);
    for (const [name, value] of browser.jar) second.jar.set(name, value);
    return second.fetch(`/auth/tokens/${id}`, {
      method: 'DELETE',
      headers: { ...second.xsrf(), origin: new URL(url).origin },
    });
  };
  return { bases, token, revokeOnSecond };
}

test('two processes: 100 parallel uses all succeed; revoked in one, the other is told by the revocation channel and refuses it too, the clock unmoved', async (t) => {
  const { bases, token, revokeOnSecond } = await twoProcesses(t);
  const before = await useAtOnce(bases, token);
  t.deepEqual(before, { '200 token': 100 }, JSON.stringify(before));

  // Revoked through the second process: the first held it in its cache, and the channel makes it forget it.
  const ended = await revokeOnSecond();
  t.is(ended.status, 204, await ended.clone().text());
  t.deepEqual(await useAtOnce([bases[1]!], token, 1), { '401 token_invalid': 1 }, 'refused where it was revoked');
  // The first process hears of it through Redis within moments: asked until it refuses, within a bound far
  // below the stated delay (the fallback when the channel is down), with the clock unmoved.
  const deadline = Date.now() + STATED_DELAY_MS / 2;
  while (JSON.stringify(await useAtOnce([bases[0]!], token, 1)) !== '{"401 token_invalid":1}') {
    if (Date.now() > deadline) return t.fail('the other process still takes the token');
    await new Promise((r) => setTimeout(r, 20));
  }
  const after = await useAtOnce(bases, token);
  t.deepEqual(after, { '401 token_invalid': 100 }, JSON.stringify(after));
});

test('two processes with strictRevocation: revoked in one, refused by both at once, the clock unmoved', async (t) => {
  const { bases, token, revokeOnSecond } = await twoProcesses(t, true);
  t.deepEqual(await useAtOnce(bases, token), { '200 token': 100 });
  t.is((await revokeOnSecond()).status, 204);
  // Nothing is cached: each of the 100 is a store lookup that finds nothing, from one client. The first 20 (the
  // default tokens.failedLookups, counted across both processes) are refused 401; once the client is locked out
  // the rest may be 429 rate_limited instead, however the parallel requests interleave. None is taken.
  const after = await useAtOnce(bases, token);
  const { '401 token_invalid': invalid = 0, '429 rate_limited': limited = 0, ...other } = after;
  t.deepEqual(other, {}, JSON.stringify(after));
  t.is(invalid + limited, 100);
  t.true(invalid >= 20, JSON.stringify(after));
});
