/**
 * ConnectionShare (lib/util/connections.ts), the per-instance sharing of one connection per backend
 * address: one open per key however many ask at once, closed by the last release only, a failed open
 * forgotten, and keys kept apart. The "connections" here are plain objects with counted open and close.
 */
import test from 'ava';
import { ConnectionShare } from '../../lib/util/connections.js';

/** An opener whose opens are counted and finish when the test says so, and a closer that records what it closed. */
function backend() {
  const opened: { id: number }[] = [];
  const closed: { id: number }[] = [];
  const waiting: { resolve: (v: { id: number }) => void; reject: (e: Error) => void }[] = [];
  const open = () =>
    new Promise<{ id: number }>((resolve, reject) => {
      waiting.push({ resolve, reject });
    });
  return {
    opened,
    closed,
    /** How many opens were started (finished or not). */
    get started() {
      return waiting.length;
    },
    open,
    close: async (value: { id: number }) => void closed.push(value),
    /** Finishes open number `i` with a new connection. */
    finish(i: number) {
      const value = { id: i };
      opened.push(value);
      waiting[i]!.resolve(value);
    },
    fail(i: number, err: Error) {
      waiting[i]!.reject(err);
    },
  };
}

test('ten acquires of one key at once open it once and all get the same connection', async (t) => {
  const share = new ConnectionShare();
  const b = backend();
  const leases = Array.from({ length: 10 }, () => share.acquire('pg a', b.open, b.close));
  t.is(b.started, 1, 'the nine others wait on the first open');
  b.finish(0);
  const values = (await Promise.all(leases)).map((l) => l.value);
  t.true(values.every((v) => v === values[0]));
  t.is(share.size, 1);
  const late = await share.acquire('pg a', b.open, b.close);
  t.is(late.value, values[0], 'an acquire after the open finished shares it too');
  t.is(b.started, 1);
});

test('the connection closes only after the last release; a second release of one lease changes nothing', async (t) => {
  const share = new ConnectionShare();
  const b = backend();
  const pending = [
    share.acquire('k', b.open, b.close),
    share.acquire('k', b.open, b.close),
    share.acquire('k', b.open, b.close),
  ];
  b.finish(0);
  const [one, two, three] = await Promise.all(pending);
  await one!.release();
  await one!.release();
  await one!.release();
  t.deepEqual(b.closed, [], 'three releases of one lease count as one: two users are left');
  await two!.release();
  t.deepEqual(b.closed, [], 'one user is left');
  t.is(share.size, 1);
  await three!.release();
  t.deepEqual(b.closed, [b.opened[0]], 'closed once, by the last release');
  await three!.release();
  await two!.release();
  t.is(b.closed.length, 1, 'releasing again after the close does not close twice');
  t.is(share.size, 0);

  const again = share.acquire('k', b.open, b.close);
  t.is(b.started, 2, 'once closed, the next acquire opens a new connection');
  b.finish(1);
  t.is((await again).value, b.opened[1]);
});

test('a failed open rejects every waiting acquire and is not cached: the next acquire opens again', async (t) => {
  const share = new ConnectionShare();
  const b = backend();
  const first = share.acquire('k', b.open, b.close);
  const second = share.acquire('k', b.open, b.close);
  b.fail(0, new Error('ECONNREFUSED'));
  await t.throwsAsync(first, { message: 'ECONNREFUSED' });
  await t.throwsAsync(second, { message: 'ECONNREFUSED' });
  t.is(share.size, 0, 'the failure is forgotten');
  t.deepEqual(b.closed, [], 'nothing was opened, so nothing is closed');

  const retry = share.acquire('k', b.open, b.close);
  t.is(b.started, 2, 'a new open, not the cached failure');
  b.finish(1);
  const lease = await retry;
  t.is(lease.value, b.opened[0]);
  await lease.release();
  t.deepEqual(b.closed, [lease.value], 'the users of the failed open do not count: one release closes it');
});

test('different keys get different connections, opened and closed apart', async (t) => {
  const share = new ConnectionShare();
  const b = backend();
  const a = share.acquire('postgres://db/a', b.open, b.close);
  const c = share.acquire('postgres://db/c', b.open, b.close);
  t.is(b.started, 2);
  b.finish(0);
  b.finish(1);
  const [leaseA, leaseC] = await Promise.all([a, c]);
  t.not(leaseA.value, leaseC.value);
  t.is(share.size, 2);
  await leaseA.release();
  t.deepEqual(b.closed, [leaseA.value], 'releasing one key closes only its connection');
  t.is(share.size, 1);
  await leaseC.release();
  t.deepEqual(b.closed, [leaseA.value, leaseC.value]);
});

test('two shares (two instances) never share a connection, even under one key', async (t) => {
  const b = backend();
  const first = new ConnectionShare().acquire('k', b.open, b.close);
  const second = new ConnectionShare().acquire('k', b.open, b.close);
  t.is(b.started, 2);
  b.finish(0);
  b.finish(1);
  t.not((await first).value, (await second).value);
});
