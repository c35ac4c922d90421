import type { TestFn } from 'ava';
import { stateLimiter } from '../../lib/state/limiter.js';
import type { StateStore } from '../../lib/state/index.js';
import { manualClock } from '../helpers/http.js';
import type { OpenState } from './state-contract.js';

/**
 * What every Limiter over a StateStore does, whatever the store: the same rows run on memory, LMDB,
 * MongoDB (stand-in) and Redis, through stateLimiter() (the store's own hit() or compare-and-set).
 */
export function limiterContract(test: TestFn, label: string, open: OpenState): void {
  const setup = async (t: Parameters<OpenState>[1]) => {
    const clock = manualClock(Date.now());
    const store: StateStore = await open(clock, t);
    t.teardown(() => store.close().catch(() => {}));
    return { limiter: stateLimiter(store, clock), clock, store };
  };

  test(`${label} limiter: a limit of 3 allows 3 hits per window, then answers the time left`, async (t) => {
    const { limiter, clock } = await setup(t);
    const key = [{ key: 'user:alice', limit: 3 }];
    for (let i = 0; i < 3; i++) t.is(await limiter.hit(key, 60_000), undefined, `hit ${i + 1}`);
    clock.advance(10_000);
    t.is(await limiter.hit(key, 60_000), 50_000, 'the 4th waits for the window to end');
    t.is(await limiter.hit(key, 60_000), 50_000, 'refused hits do not extend the window');
    clock.advance(50_000);
    t.is(await limiter.hit(key, 60_000), undefined, 'a new window');
    t.is(await limiter.hit([{ key: 'user:bob', limit: 3 }], 60_000), undefined, 'other keys count apart');
  });

  test(`${label} limiter: when one key is at its limit, no key is counted`, async (t) => {
    const { limiter } = await setup(t);
    const ip = { key: 'ip:10.0.0.1', limit: 2 };
    t.is(await limiter.hit([{ key: 'a:x', limit: 5 }, ip], 60_000), undefined);
    t.is(await limiter.hit([{ key: 'a:y', limit: 5 }, ip], 60_000), undefined);
    t.truthy(await limiter.hit([{ key: 'a:z', limit: 1 }, ip], 60_000), 'the IP is spent');
    t.is(await limiter.hit([{ key: 'a:z', limit: 1 }], 60_000), undefined, 'a:z was not counted by the refused hit');
  });

  test(`${label} limiter: 20 concurrent hits on a limit of 5 allow exactly 5`, async (t) => {
    const { limiter } = await setup(t);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => limiter.hit([{ key: 'flood', limit: 5 }], 60_000)),
    );
    t.is(results.filter((r) => r === undefined).length, 5);
  });

  test(`${label} limiter: bad arguments are TypeErrors`, async (t) => {
    const { limiter } = await setup(t);
    await t.throwsAsync(async () => limiter.hit([{ key: 'k', limit: 0 }], 1000), { instanceOf: TypeError });
    await t.throwsAsync(async () => limiter.hit([{ key: '', limit: 1 }], 1000), { instanceOf: TypeError });
    await t.throwsAsync(async () => limiter.hit([{ key: 'k', limit: 1 }], 0), { instanceOf: TypeError });
  });
}
