/**
 * The outbox's counters and due bound on a real LMDB state store and a clock moved by hand (issue #60): counters an
 * earlier version kept for 4 days still take new messages once expired; a head counter lost while the tail lives on
 * does not put new messages behind the tail; a message whose process died holding its lease is leased again by a
 * process that had already read it, once the lease runs out.
 */
import test, { type ExecutionContext } from 'ava';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { webhookOutbox } from '../../lib/webhooks/outbox.js';
import { FOREVER } from '../../lib/outbox/numbered-log.js';
import { manualClock } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

const DAY = 86_400_000;
const LEASE_MS = 10_000;
const message = (id: string) => ({ id, endpoint: 'ep1', type: 'login', body: '{}' });

function rig(t: ExecutionContext) {
  const clock = manualClock();
  const store = new LmdbStateStore(tempDir(t, 'authkoa-wh-outbox-'), { clock });
  t.teardown(() => store.close());
  return { clock, store };
}

test('counters an earlier version kept for 4 days, expired 8 days on: a new message is still added, after them, and leased', async (t) => {
  const { clock, store } = rig(t);
  await store.create('wh', 'head', { n: 3 }, clock() + 4 * DAY);
  await store.create('wh', 'tail', { n: 3 }, clock() + 4 * DAY);
  clock.advance(8 * DAY);
  const outbox = webhookOutbox(store, clock);
  await outbox.add([message('msg_after')]);
  t.like(await outbox.lease(16, LEASE_MS), [{ seq: 4, message: { id: 'msg_after' } }]);
  t.is((await store.get('wh', 'head'))?.expiresAt, FOREVER, 'kept for good from now on');
});

test('a head counter lost while the tail lives on: new messages are numbered after the tail, where a look finds them', async (t) => {
  const { store, clock } = rig(t);
  await store.create('wh', 'tail', { n: 5 }, FOREVER);
  const outbox = webhookOutbox(store, clock);
  await outbox.add([message('msg_new')]);
  t.like(await outbox.lease(16, LEASE_MS), [{ seq: 6, message: { id: 'msg_new' } }]);
});

test('a process dies holding a retry’s lease: another process, which had read the message already, leases it once the lease runs out', async (t) => {
  const { store, clock } = rig(t);
  // The jitter: m1's first retry 4 s on, m2's 6 s.
  const jitter = [0, 0.999];
  const a = webhookOutbox(store, clock, () => jitter.shift() ?? 0.5);
  const b = webhookOutbox(store, clock);
  await a.add([message('msg_m1'), message('msg_m2')]);
  const [m1, m2] = await a.lease(16, LEASE_MS);
  await a.failed(m1!, 'status 500');
  await a.failed(m2!, 'status 500');
  t.deepEqual(await b.lease(16, LEASE_MS), [], 'b reads both: not due');
  clock.advance(4_001);
  const [retry1] = await b.lease(16, LEASE_MS);
  t.like(retry1, { message: { id: 'msg_m1', attempts: 1 } });
  await b.delivered(retry1!);
  clock.advance(2_000);
  t.like(await a.lease(16, LEASE_MS), [{ message: { id: 'msg_m2', attempts: 1 } }], 'a leases m2’s retry, and dies');
  t.deepEqual(await b.lease(16, LEASE_MS), [], 'a holds it');
  clock.advance(LEASE_MS + 1);
  t.like(await b.lease(16, LEASE_MS), [{ message: { id: 'msg_m2', attempts: 1 } }], 'b, once the lease ran out');
});

test('a look that comes while a message is being written (its number taken, its entry not yet there) sends the ones after it, and it at a later look', async (t) => {
  const { store, clock } = rig(t);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // The writer's store: its message entries wait for the test (the head counter is moved at once).
  const slow = new Proxy(store, {
    get(target, prop) {
      if (prop === 'create')
        return async (ns: string, key: string, value: unknown, exp: number) => {
          if (ns === 'wh-msg') await held;
          return target.create(ns, key, value, exp);
        };
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const writer = webhookOutbox(slow, clock);
  const reader = webhookOutbox(store, clock);
  const adding = writer.add([message('msg_slow')]);
  while ((await store.get<{ n: number }>('wh', 'head'))?.value.n !== 1)
    await new Promise((resolve) => setImmediate(resolve));
  await webhookOutbox(store, clock).add([message('msg_fast')]);
  t.like(
    await reader.lease(16, LEASE_MS),
    [{ seq: 2, message: { id: 'msg_fast' } }],
    'the one after it is sent; its own number is taken, its entry not written',
  );
  release();
  await adding;
  t.like(await reader.lease(16, LEASE_MS), [{ message: { id: 'msg_slow' } }], 'read at the next look');
});

test('a replay whose message cannot be put back in the outbox leaves the dead letter where it was', async (t) => {
  const { store, clock } = rig(t);
  const outbox = webhookOutbox(store, clock);
  await outbox.add([message('msg_dead')]);
  const [leased] = await outbox.lease(16, LEASE_MS);
  await outbox.bury(leased!, 'endpoint answered 410 Gone');
  let refuse = true;
  // A store whose message writes fail (the backend away) while refuse holds.
  const failing = new Proxy(store, {
    get(target, prop) {
      if (prop === 'create')
        return (ns: string, key: string, value: unknown, exp: number) =>
          refuse && ns === 'wh-msg' ? Promise.reject(new Error('backend away')) : target.create(ns, key, value, exp);
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  await t.throwsAsync(webhookOutbox(failing, clock).replay('msg_dead'), { message: 'backend away' });
  t.like(await outbox.dead(), [{ id: 'msg_dead' }], 'still a dead letter');
  refuse = false;
  t.true(await webhookOutbox(failing, clock).replay('msg_dead'));
  t.deepEqual(await outbox.dead(), []);
});
