/**
 * The delivery schedule on the instance's clock (issue #51): a receiver that fails is tried again after 5 s, 30 s,
 * 2 min, … 24 h, each within a fifth of the stated delay; after the eleventh try the message is a dead letter, and a
 * replay delivers it once the receiver is back. The webhooks service runs here on a manual clock and a memory state
 * store, its worker driven look by look (lookNow), against a real receiver on 127.0.0.1.
 */
import test, { type ExecutionContext } from 'ava';
import { AuthEventBus } from '../../lib/events/bus.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { readWebhooksOptions } from '../../lib/webhooks/options.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../lib/outbox/retry-schedule.js';
import { createWebhooks } from '../../lib/webhooks/service.js';
import { manualClock } from '../helpers/http.js';
import { startReceiver } from './receiver.js';

async function rig(t: ExecutionContext) {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const clock = manualClock();
  const bus = new AuthEventBus(() => {}, 5000, clock, []);
  bus.declare(['webhook_failed', 'webhook_disabled']);
  const config = readWebhooksOptions(
    [{ url: receiver.url, secret: receiver.secret, events: ['login'], allowPrivate: true }],
    { stateStore: 'lmdb://x', allowVolatileStores: false },
  )!;
  const told: Array<Record<string, unknown>> = [];
  const hooks = createWebhooks(config, {
    bus,
    stateStore: memoryStateStore({ clock }),
    clock,
    logger: { info: () => {}, warn: () => {}, error: () => {} } as never,
    emit: (type, fields) => told.push({ type, ...fields }),
    intervalMs: 3_600_000, // the test looks itself
  });
  t.teardown(() => hooks.close());
  hooks.start();
  return { receiver, clock, bus, hooks, told };
}

/** A login event on the bus, and its message in the outbox once added. */
async function oneEvent(r: Awaited<ReturnType<typeof rig>>) {
  r.bus.emit('login', { provider: 'local', kind: 'direct', amr: ['pwd'], userId: 'u1', sid: 's1' } as never);
  // The bus tells its listeners on the next turn (setImmediate), and the outbox write follows: look until it is there.
  while (r.receiver.deliveries.length === 0) {
    await new Promise((resolve) => setImmediate(resolve));
    await r.hooks.lookNow();
  }
}

test('a failing receiver is tried on the schedule, within a fifth of each delay; then a dead letter; replay delivers it', async (t) => {
  const r = await rig(t);
  r.receiver.status = 500;
  await oneEvent(r);
  t.is(r.receiver.deliveries.length, 1, 'the first try, at once');
  for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
    r.clock.advance(Math.floor(delay * 0.79));
    await r.hooks.lookNow();
    t.is(r.receiver.deliveries.length, i + 1, `not before ${delay} ms less a fifth`);
    r.clock.advance(Math.ceil(delay * 0.42));
    await r.hooks.lookNow();
    t.is(r.receiver.deliveries.length, i + 2, `by ${delay} ms and a fifth`);
  }
  t.is(r.receiver.deliveries.length, MAX_ATTEMPTS);
  const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
  t.true(total * 1.2 < 3 * 86_400_000, 'the schedule ends within 3 days, jitter included');
  t.true(new Set(r.receiver.deliveries.map((d) => d.id)).size === 1, 'one webhook-id on every try');
  const dead = await r.hooks.admin.dead();
  t.like(dead, [{ type: 'login', attempts: MAX_ATTEMPTS, lastError: 'status 500' }]);
  t.like(r.told.at(-1), { type: 'webhook_failed', attempt: MAX_ATTEMPTS, dead: true });
  r.clock.advance(86_400_000);
  await r.hooks.lookNow();
  t.is(r.receiver.deliveries.length, MAX_ATTEMPTS, 'a dead letter is not tried again by itself');

  r.receiver.status = 200;
  t.true(await r.hooks.admin.replay(dead[0]!.id));
  await r.hooks.lookNow();
  t.is(r.receiver.deliveries.length, MAX_ATTEMPTS + 1);
  t.is(r.receiver.deliveries.at(-1)!.id, dead[0]!.id, 'replayed with its id, so the receiver can drop a duplicate');
  t.deepEqual(await r.hooks.admin.dead(), []);
  t.false(await r.hooks.admin.replay(dead[0]!.id), 'replayed once');
});

test('a receiver that recovers gets the message at the next try of the schedule, and nothing is tried again after', async (t) => {
  const r = await rig(t);
  r.receiver.status = 503;
  await oneEvent(r);
  r.clock.advance(RETRY_DELAYS_MS[0]! * 1.2 + 1);
  await r.hooks.lookNow();
  t.is(r.receiver.deliveries.length, 2);
  r.receiver.status = 200;
  r.clock.advance(RETRY_DELAYS_MS[1]! * 1.2 + 1);
  await r.hooks.lookNow();
  t.is(r.receiver.deliveries.length, 3, 'delivered at the third try');
  r.clock.advance(86_400_000);
  await r.hooks.lookNow();
  t.is(r.receiver.deliveries.length, 3, 'and done');
  t.deepEqual(
    r.told.map((e) => [e.attempt, e.reason, e.dead]),
    [
      [1, 'status 503', false],
      [2, 'status 503', false],
    ],
  );
});
