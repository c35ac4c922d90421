/**
 * At least once (issue #51), with separate `node` processes on one real state store: a process puts 10,000 events in
 * the outbox and starts sending them; it is killed (SIGKILL) mid-way, a second process takes the outbox up and is
 * killed too, a third finishes. Every event arrives at least once, every signature verifies (the third-party
 * `standardwebhooks` package); the duplicates a kill causes are counted. On redis-server and on PostgreSQL.
 */
import test, { type ExecutionContext } from 'ava';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { spawnTs, waitForLine } from '../helpers/cli.js';
import { startPostgres } from '../helpers/postgres.js';
import { startRedis } from '../helpers/redis.js';
import { startReceiver, type Receiver } from './receiver.js';
import { openStateStore } from '../../lib/state/open.js';
import { webhookOutbox } from '../../lib/webhooks/outbox.js';

const APP = fileURLToPath(new URL('./fixtures/webhook-app.ts', import.meta.url));
const EVENTS = 10_000;

async function appProcess(
  t: ExecutionContext,
  store: string,
  r: Receiver,
): Promise<{ child: ChildProcess; base: string }> {
  const child = spawnTs(APP, [store, `${r.url}/in`, r.secret]);
  child.stderr!.on('data', () => {});
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'close');
  });
  return { child, base: (await waitForLine(child, /^listening (http:\/\/\S+)/m))[1]! };
}

async function killed(child: ChildProcess): Promise<void> {
  const closed = once(child, 'close');
  child.kill('SIGKILL');
  await closed;
}

async function survivesTwoKills(t: ExecutionContext, store: string): Promise<void> {
  const r = await startReceiver();
  t.teardown(() => r.close());
  const seen = new Set<number>();
  let read = 0;
  const distinct = (n: number) =>
    r.when(() => {
      for (; read < r.deliveries.length; read++) {
        const d = r.deliveries[read]!;
        if (d.verified) seen.add(d.verified.data.i as number);
      }
      return seen.size >= n;
    });
  const first = await appProcess(t, store, r);
  const fired = await fetch(`${first.base}/fire?from=0&n=${EVENTS}`, { method: 'POST' });
  t.is(await fired.text(), 'fired', 'every event in the outbox');
  await distinct(2_000);
  await killed(first.child);
  const second = await appProcess(t, store, r);
  await distinct(6_000);
  await killed(second.child);
  await appProcess(t, store, r);
  await distinct(EVENTS);
  t.is(seen.size, EVENTS, 'every event arrived');
  t.deepEqual(
    r.deliveries.filter((d) => d.refusal !== undefined).map((d) => d.refusal),
    [],
    'every signature verifies',
  );
  const ids = new Set(r.deliveries.map((d) => d.id));
  t.is(ids.size, EVENTS, 'one webhook-id per event, the same on a repeat');
  t.log(`${r.deliveries.length} deliveries for ${EVENTS} events: ${r.deliveries.length - EVENTS} duplicates`);
}

test.serial('redis-server: 10,000 events, the sending process killed twice, every one delivered', async (t) => {
  t.timeout(300_000);
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  await survivesTwoKills(t, `${redis.uri}/0?prefix=wh:`);
});

test.serial('PostgreSQL: 10,000 events, the sending process killed twice, every one delivered', async (t) => {
  t.timeout(300_000);
  const pg = await startPostgres();
  t.teardown(() => pg.destroy());
  await survivesTwoKills(t, await pg.database('webhooks'));
});

test.serial(
  'two processes delivering from one outbox at once never both send a message: each arrives exactly once',
  async (t) => {
    t.timeout(300_000);
    const redis = await startRedis();
    t.teardown(() => redis.stop());
    const store = `${redis.uri}/0?prefix=wh2:`;
    const r = await startReceiver();
    t.teardown(() => r.close());
    const [a, b] = await Promise.all([appProcess(t, store, r), appProcess(t, store, r)]);
    const half = EVENTS / 5;
    const fired = await Promise.all([
      fetch(`${a.base}/fire?from=0&n=${half}`, { method: 'POST' }),
      fetch(`${b.base}/fire?from=${half}&n=${half}`, { method: 'POST' }),
    ]);
    t.deepEqual(await Promise.all(fired.map((f) => f.text())), ['fired', 'fired']);
    const ids = new Set<string>();
    let read = 0;
    await r.when(() => {
      for (; read < r.deliveries.length; read++) ids.add(r.deliveries[read]!.id);
      return ids.size >= 2 * half;
    });
    t.is(ids.size, 2 * half);
    // Every message is out of the outbox (tail = head after a look): none can be sent again later.
    const state = await openStateStore(store);
    t.teardown(() => state.close());
    const counter = async (k: string) => (await state.get<{ n: number }>('wh', k))?.value.n;
    for (;;) {
      t.deepEqual(await webhookOutbox(state, Date.now).lease(1, 1), [], 'nothing left to send');
      if ((await counter('head')) === (await counter('tail'))) break;
      await new Promise((resolve) => setImmediate(resolve)); // a process is still taking its last ones out
    }
    t.is(r.deliveries.length, 2 * half, 'no message sent twice: each lease is one process’s');
    t.deepEqual(
      r.deliveries.filter((d) => d.refusal !== undefined),
      [],
    );
  },
);
