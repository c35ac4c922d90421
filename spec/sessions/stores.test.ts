/**
 * The session list on every state store (issue #34): the same scenario over real HTTP with the store
 * passed as `stateStore` — memory, LMDB files, a real redis-server, and MongoDB through the CongoDB
 * stand-in (no mongod can run here: it proves the protocol, not MongoDB's behaviour).
 */
import test, { type ExecutionContext } from 'ava';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import { manualClock } from '../helpers/http.js';
import { useStateBackends } from '../helpers/state-backends.js';
import { codeOf, endSession, LABEL, listOf, me, revokeOthers, startSessionsApp, TOKEN_MS, UA } from './fixtures.js';

/**
 * Three logins of alice (and one of bob) listed newest first with the right `current`; one ended by
 * another is refused at its refresh while the rest go on; revoke-others keeps only the caller.
 */
async function proveSessions(
  t: ExecutionContext,
  store: StateStore,
  clock: ReturnType<typeof manualClock>,
): Promise<void> {
  const app = await startSessionsApp(t, { stateStore: store, clock });
  const d0 = await app.login('alice', UA.chromeMac);
  app.clock.advance(1000);
  const d1 = await app.login('alice', UA.firefoxLinux);
  app.clock.advance(1000);
  const d2 = await app.login('alice', UA.safariIphone);
  const bob = await app.login('bob', UA.edgeWindows);
  const list = await listOf(d1.c);
  t.deepEqual(
    list.map((s) => [s.sid, s.current, s.device]),
    [
      [d2.sid, false, LABEL.safariIphone],
      [d1.sid, true, LABEL.firefoxLinux],
      [d0.sid, false, LABEL.chromeMac],
    ],
  );
  t.is((await endSession(d1.c, bob.sid)).status, 404, "bob's session is not alice's to end");
  t.is((await endSession(d2.c, d0.sid)).status, 204);
  app.clock.advance(TOKEN_MS + 1000);
  t.is(await codeOf(await me(d0.c)), 'session_revoked');
  for (const d of [d1, d2, bob]) t.is((await me(d.c)).status, 201);
  const kept = await revokeOthers(d2.c);
  t.is(kept.status, 200);
  t.deepEqual(
    (await listOf(d2.c)).map((s) => s.sid),
    [d2.sid],
  );
  app.clock.advance(TOKEN_MS + 1000);
  t.is(await codeOf(await me(d1.c)), 'session_revoked');
  t.is((await me(d2.c)).status, 201);
  t.is((await me(bob.c)).status, 201);
}

test('memory: three logins listed, one ended and refused at refresh, revoke-others keeps the caller', async (t) => {
  const clock = manualClock();
  await proveSessions(t, memoryStateStore({ clock }), clock);
});

for (const [label, open] of useStateBackends(test)) {
  test(`${label}: three logins listed, one ended and refused at refresh, revoke-others keeps the caller`, async (t) => {
    const store = await open(t);
    t.teardown(() => store.close());
    await proveSessions(t, store, manualClock());
  });
}
