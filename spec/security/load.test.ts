/**
 * Load: 10 000 logins through the direct provider from 100 concurrent clients while every login writes
 * its avatar (an identicon) to a real LMDB store. Afterwards every user's avatar is present and readable,
 * no request failed, and memory settled. Nothing here asserts on time.
 */
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import test from 'ava';
import { openStore } from '../../lib/avatar/stores/index.js';
import { startApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { internalsOf } from '../../lib/instance.js';

// A real collection before each heap reading, so "settled" compares live objects, not garbage.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const LOGINS = 10_000;
const CLIENTS = 100;

// Run on its own, after every other file (ava.load.config.js, `npm test`): this load must not starve
// other files' tests of the CPU.
test.serial(
  '10 000 direct logins from 100 concurrent clients, avatars written to LMDB: none fails, all avatars readable',
  async (t) => {
    t.timeout(8 * 60_000);
    const dir = tempDir(t, 'authkoa-load-');
    const storeUri = `lmdb://${join(dir, 'avatars')}`;
    const app = await startApp({
      secret: 'load-test-secret-0123456789abcdef',
      providers: [{ kind: 'direct', name: 'direct', checker: () => true }],
      avatarStore: storeUri,
    });
    t.teardown(() => app.close());

    const failures: string[] = [];
    const pictures = new Map<string, string>();
    let next = 0;
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const client = async () => {
      while (next < LOGINS) {
        const i = next++;
        try {
          const res = await fetch(`${app.url}/auth/direct/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ user: `load-user-${i}`, passwd: 'x' }),
          });
          if (res.status !== 200 || res.headers.getSetCookie().length !== 2) failures.push(`${i}: ${res.status}`);
          else pictures.set(`load-user-${i}`, ((await res.json()) as { picture: string }).picture);
        } catch (err) {
          failures.push(`${i}: ${(err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    t.deepEqual(failures.slice(0, 5), [], `${failures.length} logins failed`);
    t.is(pictures.size, LOGINS);

    // Every avatar is in the store, under the id its picture URL names, and the route serves it.
    await internalsOf(app.auth).avatarProxy.close();
    const store = await openStore(storeUri);
    let stored = 0;
    for await (const _ of store.list()) stored++;
    t.is(stored, LOGINS);
    const ids = [...pictures.values()].map((p) => p.slice(p.lastIndexOf('/') + 1));
    t.is(new Set(ids).size, LOGINS, 'one avatar per user');
    let missing = 0;
    for (const id of ids) if (!(await store.get(id))?.data.length) missing++;
    await store.close();
    t.is(missing, 0);
    const sample = [...pictures.values()].filter((_, i) => i % 100 === 0);
    const statuses = await Promise.all(sample.map(async (p) => (await fetch(p)).status));
    t.true(
      statuses.every((s) => s === 200),
      'the avatar route serves them (store reopened on demand)',
    );

    gc();
    const grown = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    t.log(`heap grew by ${grown.toFixed(1)} MiB over ${LOGINS} logins`);
    t.true(grown < 150, `heap grew by ${grown.toFixed(1)} MiB`);
  },
);
