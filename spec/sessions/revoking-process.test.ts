/**
 * A revocation applies in the process that made it before the call that made it answers, on every store with a
 * channel: the next request to that process is refused whether or not the channel has brought the revocation back
 * yet. Found by a red team on LMDB, whose follower polls every 100 ms: a request right after a password reset was
 * still taken 2 times in 3. The app runs on an injected clock that never moves during a round, so no refresh and
 * no expiry refuses anything: only the revocation does.
 *
 * First LMDB as it is, its poll running; then each store with a channel (memory, LMDB files, redis-server,
 * PostgreSQL) handed over through spec/helpers/held-channel.ts, whose follower hears nothing until the test
 * releases it: on the code that waited for its own message, every one of these requests was taken. Releasing the
 * messages afterwards shows hearing its own revocations again changes nothing: what was ended stays ended, and a
 * session begun after them goes on.
 */
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { openPostgresStateStore } from '../../lib/state/postgres.js';
import { openRedisStateStore } from '../../lib/state/redis.js';
import type { StateStore } from '../../lib/state/types.js';
import { linkIn, login, post, tokenOf, whoami, PASSWORD } from '../accounts/rig.js';
import { heldChannel, type HeldChannelStore } from '../helpers/held-channel.js';
import { Client, manualClock } from '../helpers/http.js';
import { startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp.js';
import { bearer, loggedIn, newToken, tokensRig } from '../personal-tokens/rig.js';
import { copyOf, endSession, me, startSessionsApp, type SessionsApp } from './fixtures.js';

let redis: RedisPeer;
let postgres: PostgresPeer;
test.before(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
});
test.after.always(async () => {
  await Promise.all([redis?.stop(), postgres?.destroy()]);
});

type Clock = ReturnType<typeof manualClock>;
const tag = () => randomBytes(5).toString('hex');

/** Every store with a channel, opened fresh for one test (and closed with it: an object passed in is the app's owner's). */
const BACKENDS: Array<[kind: string, open: (t: ExecutionContext, clock: () => number) => Promise<StateStore>]> = [
  ['memory', async (_t, clock) => memoryStateStore({ clock })],
  ['lmdb', async (t, clock) => new LmdbStateStore(join(tempDir(t), 'state'), { clock })],
  ['redis', async () => openRedisStateStore(`${redis.uri}/0?prefix=t${tag()}:`)],
  ['postgres', async () => openPostgresStateStore(`${postgres.uri}?prefix=t${tag()}_&timeout=30000`)],
];

/** The session app on `store`, its clock the store's; the store closed after the app. */
async function appOn(t: ExecutionContext, store: StateStore, clock: Clock): Promise<SessionsApp> {
  t.teardown(() => store.close());
  return startSessionsApp(t, { stateStore: store, clock });
}

test('lmdb as it is, its follower polling: 20 times, the request right after DELETE /auth/sessions/<sid> answered is refused 401', async (t) => {
  const clock = manualClock();
  const app = await appOn(t, new LmdbStateStore(join(tempDir(t), 'state'), { clock }), clock);
  const keeper = await app.login('alice');
  for (let i = 0; i < 20; i++) {
    const ended = await app.login('alice');
    t.is((await me(ended.c)).status, 201, `round ${i}: live before it is ended`);
    t.is((await endSession(keeper.c, ended.sid)).status, 204);
    t.is((await me(ended.c)).status, 401, `round ${i}: the request right after the answer`);
  }
  t.is((await me(keeper.c)).status, 201, 'the session that ended the others goes on');
});

/**
 * Ends a session each way this process can, each checked by the very next request: what went wrong, by label (a
 * request taken, or one that read the store to be refused: the live channel's set must refuse it alone).
 */
async function endEachWay(app: SessionsApp, ch: HeldChannelStore, round: number): Promise<string[]> {
  const taken: string[] = [];
  const refused = async (what: string, request: () => Promise<Response>) => {
    const before = ch.reads.length;
    const status = (await request()).status;
    if (status !== 401) taken.push(`round ${round}: ${what} answered ${status}`);
    const read = ch.reads.slice(before).filter((r) => r.startsWith('sessions '));
    if (read.length) taken.push(`round ${round}: ${what} read ${read.join(', ')}`);
  };
  const a = await app.login('alice');
  const b = await app.login('alice');
  if ((await me(b.c)).status !== 201) throw new Error(`round ${round}: a new session is not live`);
  if ((await endSession(a.c, b.sid)).status !== 204) throw new Error('DELETE /auth/sessions/<sid> failed');
  await refused('the session ended by DELETE /auth/sessions/<sid>', () => me(b.c));

  const kept = copyOf(a.c);
  if ((await a.c.fetch('/auth/logout', { method: 'POST' })).status !== 200) throw new Error('logout failed');
  await refused('the cookie of a session logged out', () => me(kept));

  const c = await app.login('alice');
  await app.auth.revokeSessions(c.userId);
  await refused('a session of a user whose sessions were revoked', () => me(c.c));
  // The next round's logins are issued after this revocation, as a user's next login would be.
  app.clock.advance(1000);
  return taken;
}

for (const [kind, open] of BACKENDS) {
  test(`${kind}, the channel held back: a session ended by DELETE /auth/sessions/<sid>, by a logout or by auth.revokeSessions() is refused by the next request, 5 rounds; hearing its own messages later changes nothing`, async (t) => {
    const clock = manualClock();
    const ch: HeldChannelStore = heldChannel(await open(t, clock));
    const app = await appOn(t, ch.store, clock);
    await ch.live('revocations');
    const bob = await app.login('bob');

    const taken: string[] = [];
    for (let round = 0; round < 5; round++) taken.push(...(await endEachWay(app, ch, round)));
    t.deepEqual(taken, [], 'requests taken right after their session was ended, or refused by a store read');
    t.true(ch.held > 0, 'the channel held its messages back meanwhile');

    const after = await app.login('alice');
    const ended = await app.login('alice');
    await endSession(after.c, ended.sid);
    ch.release();
    t.is(ch.held, 0);
    t.is((await me(after.c)).status, 201, 'a session begun after the revocations outlives hearing them');
    t.is((await me(bob.c)).status, 201, "another user's session goes on");
    t.is((await me(ended.c)).status, 401, 'an ended session stays ended');
  });
}

for (const [kind, open] of BACKENDS) {
  test(`${kind}, the channel held back: the request right after POST /auth/local/reset/confirm answered is refused with the old session, and the one right after DELETE /auth/tokens/<id> with the token, 3 rounds`, async (t) => {
    const ch = heldChannel(await open(t, Date.now)); // the rig's clock is its own; entries here live for hours
    t.teardown(() => ch.store.close());
    const r = await tokensRig(t, { service: { stateStore: ch.store } });
    await Promise.all([ch.live('revocations'), ch.live('personal-tokens')]);
    const email = 'ann@example.com';
    await loggedIn(r, email);
    let client = r.client;
    for (let round = 0; round < 3; round++) {
      const made = await newToken(client);
      t.is((await bearer(r.app.url, '/api/me', made.token)).status, 200, `round ${round}: the token is live`);
      t.is((await post(client, `/auth/tokens/${made.id}`, undefined, 'DELETE')).status, 204, `round ${round}: DELETE`);
      t.is((await bearer(r.app.url, '/api/me', made.token)).status, 401, `round ${round}: the token right after`);

      t.is((await whoami(client)).status, 201, `round ${round}: the session is live`);
      await post(new Client(r.app.url), '/auth/local/reset', { email });
      const password = `${PASSWORD} ${round}`;
      // The reset link, past the "password changed" notice the previous round's reset mailed after its answer.
      let mail = await r.smtp.next();
      while (mail.mail.subject !== 'Reset your password') mail = await r.smtp.next();
      const reset = { token: tokenOf(linkIn(mail)), password };
      t.is((await post(new Client(r.app.url), '/auth/local/reset/confirm', reset)).status, 200);
      t.is((await whoami(client)).status, 401, `round ${round}: the old session right after reset/confirm`);

      r.clock.advance(1000); // the next login comes after the reset, as the user's would
      client = new Client(r.app.url);
      t.is((await login(client, email, password)).status, 200);
    }
    t.true(ch.held > 0, 'the channel held its messages back meanwhile');
    ch.release();
    t.is((await whoami(client)).status, 201, 'the session begun after the last reset outlives hearing it');
  });
}
