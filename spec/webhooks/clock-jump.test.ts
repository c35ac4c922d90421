/**
 * The worker keeps delivering after a long clock jump (issue #60): an app on a real LMDB state store, whose clock is
 * moved by hand 8 days forward through the retry schedule, with one receiver answering 500 until its message is a
 * dead letter and one answering 410 (disabled), still delivers a new login's event to the healthy receiver, and a
 * dead letter `authctl webhooks replay` (another process) puts back while the app runs. And a look with 500 messages
 * queued for a receiver that is down, none of them due, reads a few entries of the store, not the outbox.
 */
import test, { type ExecutionContext } from 'ava';
import { AuthEventBus } from '../../lib/events/bus.js';
import type { AuthEvent, AuthKoaOptions } from '../../lib/index.js';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import type { StateStore } from '../../lib/state/types.js';
import { readWebhooksOptions } from '../../lib/webhooks/options.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../lib/outbox/retry-schedule.js';
import { createWebhooks } from '../../lib/webhooks/service.js';
import { runCli } from '../helpers/cli.js';
import { manualClock } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { until } from '../helpers/until.js';
import { startSessionsApp } from '../sessions/fixtures.js';
import { startReceiver, type Receiver } from './receiver.js';

const DAY = 86_400_000;
/** How long the worker may take to act on what the test did: its look comes every second (its real timer). */
const BOUND_MS = 9_000;

async function receiver(t: ExecutionContext, status = 200): Promise<Receiver> {
  const r = await startReceiver();
  t.teardown(() => r.close());
  r.status = status;
  return r;
}

/** `promise`, or a failure naming `what` if it has not settled within BOUND_MS (a safety net, not a clock). */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${BOUND_MS} ms: ${what}`)), BOUND_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The login event's user: read from the body, since the app's clock is days off the real one that
 * standardwebhooks checks the timestamp against. */
const userOf = (body: string) => (JSON.parse(body) as { data: { userId?: string } }).data.userId;
const hasUser = (r: Receiver, userId: string) => r.when(() => r.deliveries.some((d) => userOf(d.body) === userId));

test.serial(
  '8 days on the clock through the retry schedule, a dead letter and a 410: a new login still reaches the healthy endpoint, and a replay by authctl is delivered while the app runs',
  async (t) => {
    t.timeout(120_000);
    const dir = tempDir(t, 'authkoa-wh-jump-');
    const failing = await receiver(t, 500);
    const gone = await receiver(t, 410);
    const healthy = await receiver(t);
    // The app's clock starts 8 days behind the real one and is moved to it: at the end it agrees with authctl's.
    const start = Math.ceil(Date.now() / 1000) * 1000 - 8 * DAY;
    const clock = manualClock(start);
    const endpoint = (r: Receiver) => ({ url: r.url, secret: r.secret, events: ['login'], allowPrivate: true });
    const app = await startSessionsApp(t, {
      clock,
      stateStore: `lmdb://${dir}`,
      webhooks: [failing, gone, healthy].map(endpoint),
    } as Partial<AuthKoaOptions>);
    const told: AuthEvent[] = [];
    for (const type of ['webhook_failed', 'webhook_disabled'] as const) app.auth.on(type, (e) => told.push(e));
    const failedTry = (attempt: number) =>
      until(
        () => told.some((e) => e.type === 'webhook_failed' && e.attempt === attempt && e.reason === 'status 500'),
        `try ${attempt} to the failing receiver`,
        BOUND_MS,
      );

    const first = await app.login('alice');
    await within(hasUser(healthy, first.userId), 'the first login at the healthy endpoint');
    await until(() => told.some((e) => e.type === 'webhook_disabled'), 'the 410 disabling its endpoint', BOUND_MS);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await failedTry(attempt);
      if (attempt < MAX_ATTEMPTS) clock.advance(Math.ceil(RETRY_DELAYS_MS[attempt - 1]! * 1.2) + 1000);
    }
    t.like(told.at(-1), { type: 'webhook_failed', attempt: MAX_ATTEMPTS, dead: true });
    clock.advance(start + 8 * DAY - clock());

    const second = await app.login('bob');
    await within(hasUser(healthy, second.userId), 'the login after the jump at the healthy endpoint');
    t.is(gone.deliveries.length, 1, 'nothing more to the disabled endpoint');
    const id = failing.deliveries[0]!.id;
    const tries = () => failing.deliveries.filter((d) => d.id === id);
    t.is(tries().length, MAX_ATTEMPTS, 'the dead letter is not tried again by itself');

    failing.status = 200;
    const replayed = await runCli(['webhooks', 'replay', id, '--store', `lmdb://${dir}`]);
    t.is(replayed.code, 0, replayed.stderr);
    // authctl stamped the message with the real time; the app's clock is brought up to it (the test took a while).
    clock.advance(Math.max(0, Date.now() - clock()) + 1000);
    await within(
      failing.when(() => tries().length > MAX_ATTEMPTS),
      'the replayed message at the receiver that came back',
    );
    t.is(userOf(tries().at(-1)!.body), first.userId);
    t.is(tries().at(-1)!.refusal, undefined, 'signed, and on the real clock again: standardwebhooks verifies it');
  },
);

/** A real LMDB store whose get() calls are counted. */
function countedStore(t: ExecutionContext, clock: () => number): { store: StateStore; reads: () => number } {
  const inner = new LmdbStateStore(tempDir(t, 'authkoa-wh-reads-'), { clock });
  t.teardown(() => inner.close());
  let reads = 0;
  const store = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'get')
        return (ns: string, key: string) => {
          reads++;
          return target.get(ns, key);
        };
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as StateStore;
  return { store, reads: () => reads };
}

test.serial(
  '500 messages queued for a receiver that is down, none due: a look reads a few entries, not the outbox',
  async (t) => {
    t.timeout(120_000);
    const QUEUED = 500;
    const down = await receiver(t, 500);
    const clock = manualClock();
    const { store, reads } = countedStore(t, clock);
    const bus = new AuthEventBus(() => {}, 5000, clock, []);
    bus.declare(['webhook_failed', 'webhook_disabled']);
    const config = readWebhooksOptions(
      [{ url: down.url, secret: down.secret, events: ['login'], allowPrivate: true }],
      {
        stateStore: 'lmdb://x',
        allowVolatileStores: false,
      },
    )!;
    const hooks = createWebhooks(config, {
      bus,
      stateStore: store,
      clock,
      logger: { info: () => {}, warn: () => {}, error: () => {} } as never,
      emit: () => {},
      intervalMs: 3_600_000, // the test looks itself
    });
    t.teardown(() => hooks.close());
    hooks.start();
    for (let i = 0; i < QUEUED; i++)
      bus.emit('login', { provider: 'local', kind: 'direct', amr: ['pwd'], userId: `u${i}`, sid: `s${i}` } as never);
    await new Promise((resolve) => setImmediate(resolve));
    await hooks.admin.flushed();
    while (down.deliveries.length < QUEUED) await hooks.lookNow();
    t.is(down.deliveries.length, QUEUED, 'each tried once, each due again in 4 s at the soonest');

    const perLook: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = reads();
      t.false(await hooks.lookNow(), 'nothing due');
      perLook.push(reads() - before);
    }
    t.log(`state-store reads per look, ${QUEUED} queued, none due: ${perLook.join(', ')}`);
    t.true(
      perLook.every((n) => n <= 6),
      `reads per look: ${perLook.join(', ')}`,
    );

    // And what falls due is still found: every message's second try, the looks reading what they lease.
    clock.advance(Math.ceil(RETRY_DELAYS_MS[0]! * 1.2) + 1);
    const before = reads();
    let looks = 0;
    while (down.deliveries.length < 2 * QUEUED) {
      await hooks.lookNow();
      looks++;
    }
    t.is(down.deliveries.length, 2 * QUEUED, 'every message tried a second time');
    t.log(`${QUEUED} due: ${looks} looks, ${reads() - before} reads`);
  },
);
