/**
 * The poll receivers' queues (lib/ssf/poll-queue.ts) on every state backend: SETs read oldest first until
 * acknowledged, `maxEvents` and `moreAvailable`, acknowledgements from any process, and writers racing on one
 * receiver's queue (two queues over one store, as two processes hold them) losing nothing.
 */
import test from 'ava';
import { pollQueue, type Pending } from '../../lib/ssf/poll-queue.js';
import { useEveryStateStore } from '../helpers/state-backends.js';

const set = (i: number): Pending => ({ jti: `j${i}`, set: `set-${i}`, event: 'session-revoked' });

for (const [label, open] of useEveryStateStore(test, Date.now)) {
  test(`${label}: read oldest first, maxEvents at a time, until acknowledged; each receiver its own`, async (t) => {
    const store = await open(t);
    t.teardown(() => store.close());
    const q = pollQueue(store, Date.now);
    await q.add('rk1', [set(1), set(2), set(3)]);
    await q.add('rk2', [set(9)]);
    t.deepEqual(await q.read('rk1', 2), { sets: [set(1), set(2)], more: true });
    t.deepEqual(await q.read('rk1', 10), { sets: [set(1), set(2), set(3)], more: false }, 'not acknowledged: again');
    // Acknowledged through another process's queue over the same store.
    t.deepEqual(await pollQueue(store, Date.now).remove('rk1', ['j2', 'j1', 'unknown']), [set(2), set(1)]);
    t.deepEqual(await q.read('rk1', 10), { sets: [set(3)], more: false });
    t.deepEqual(await q.read('rk2', 10), { sets: [set(9)], more: false });
    t.deepEqual(await q.remove('rk2', ['j3']), [], "another receiver's jti takes nothing");
  });

  test(`${label}: writers racing on one receiver's queue from two processes lose nothing, in order per writer`, async (t) => {
    const store = await open(t);
    t.teardown(() => store.close());
    const [a, b] = [pollQueue(store, Date.now), pollQueue(store, Date.now)];
    const acknowledged = new Set<string>();
    await Promise.all([
      ...Array.from({ length: 40 }, (_, i) => a.add('rk', [set(i)])),
      ...Array.from({ length: 40 }, (_, i) => b.add('rk', [set(100 + i)])),
      // A receiver polling while they write, acknowledging every other SET it sees.
      (async () => {
        for (let i = 0; i < 10; i++) {
          const seen = (await a.read('rk', 5)).sets.map((s) => s.jti).filter((_, k) => k % 2 === 0);
          for (const s of await b.remove('rk', seen)) acknowledged.add(s.jti);
        }
      })(),
    ]);
    const left = (await a.read('rk', 1000)).sets.map((s) => s.jti);
    t.is(new Set(left).size, left.length, 'each SET once');
    t.deepEqual(
      [...left, ...acknowledged].sort(),
      [...Array.from({ length: 40 }, (_, i) => `j${i}`), ...Array.from({ length: 40 }, (_, i) => `j${100 + i}`)].sort(),
      'every SET is waiting or was acknowledged',
    );
    const order = (from: number) => left.map((j) => Number(j.slice(1))).filter((n) => n >= from && n < from + 100);
    for (const from of [0, 100])
      t.deepEqual(
        order(from),
        [...order(from)].sort((x, y) => x - y),
        'in order',
      );
  });
}
