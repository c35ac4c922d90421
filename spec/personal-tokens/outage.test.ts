/**
 * Personal tokens while their state store is away: a real redis-server as `stateStore`, killed mid-run. A token
 * this process has verified goes on working from its cache (within the revocation delay); one it has not is
 * answered 503 JSON `state_store_unavailable`, never let through and never a 401 that would tell a script its
 * token is dead; making one is 503 too. Once redis-server is started again on its port, the same app verifies it.
 */
import test from 'ava';
import { startRedis } from '../helpers/redis.js';
import { codeOf } from '../accounts/rig.js';
import { bearer, createToken, loggedIn, newToken, tokensRig } from './rig.js';
import { until } from '../helpers/until.js';

test('redis-server killed: a cached token still works, an uncached one is 503 state_store_unavailable; back when it returns', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  // This redis-server keeps nothing on disk: once restarted it is empty, so what is checked after the outage is that
  // the app reads the store again (the token made before it is gone with it) and that a new token works.
  const r = await tokensRig(t, {
    service: {
      stateStore: `${redis.uri}/0?prefix=pat:`,
      logger: { info: () => {}, warn: () => {}, error: () => {} },
    },
  });
  await loggedIn(r);
  const hot = await newToken(r.client, { name: 'hot' });
  const cold = await newToken(r.client, { name: 'cold' });
  t.is((await bearer(r.app.url, '/api/me', hot.token)).status, 200, 'verified once: in the cache');

  await redis.stop();
  t.is((await bearer(r.app.url, '/api/me', hot.token)).status, 200, 'the cache answers without the store');
  const uncached = await bearer(r.app.url, '/api/me', cold.token);
  t.is(uncached.status, 503);
  t.is(await codeOf(uncached), 'state_store_unavailable');
  const making = await createToken(r.client, { name: 'during' });
  t.true(making.status === 503, `making one: ${making.status}`);

  await redis.start();
  await until(async () => (await bearer(r.app.url, '/api/me', cold.token)).status !== 503, 'the app to reconnect');
  // The restarted redis-server is empty: the cold token is gone with it (401), and a new one works.
  t.is((await bearer(r.app.url, '/api/me', cold.token)).status, 401);
  await loggedIn(r, 'ann-again@example.com');
  const fresh = await newToken(r.client, { name: 'after' });
  t.is((await bearer(r.app.url, '/api/me', fresh.token)).status, 200);
});
