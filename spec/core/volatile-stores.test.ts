/**
 * Durable data refuses a volatile store: second factors (`mfa.store`) and passkeys (a passkey provider's
 * `credentials`, else the `stateStore`) in memory would all be gone at the next restart, so a memory
 * store there is a start-up TypeError naming the option, unless the app says `allowVolatileStores: true`.
 */
import test from 'ava';
import { join } from 'node:path';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { tempDir } from '../helpers/temp.js';

const base = {
  secret: 'volatile-stores-test-secret-0123456789',
  url: 'http://localhost:1',
  logger: () => {},
  providers: [{ kind: 'direct', name: 'local', checker: () => true }],
} as AuthKoaOptions;
const PASSKEY = { kind: 'passkey', rpName: 'tests' } as const;
const DURABLE =
  /is a memory store, which forgets every (second factor|passkey) when the process ends: use a durable store \(lmdb:\/\/<path>, postgres:\/\/…, redis:\/\/ with persistence, mongodb:\/\/…\), or set allowVolatileStores: true \(tests, demos\)$/;

/** Starts an instance (closed at teardown) and resolves its `ready`. */
async function ready(t: { teardown(fn: () => unknown): void }, opts: Partial<AuthKoaOptions>): Promise<void> {
  const auth = authKoa({ ...base, ...opts } as AuthKoaOptions);
  t.teardown(() => auth.close());
  await auth.ready;
}

test("mfa.store 'memory://' or a memory StateStore: authKoa() throws a TypeError naming mfa.store", (t) => {
  for (const store of ['memory://', memoryStateStore()]) {
    const err = t.throws(() => authKoa({ ...base, mfa: { store } }), { instanceOf: TypeError });
    t.true(err!.message.startsWith('authKoa: mfa.store is a memory store'), err!.message);
    t.regex(err!.message, DURABLE);
  }
});

test('a passkey provider whose passkeys would be in memory: ready rejects naming the entry and the option', async (t) => {
  const unset = await t.throwsAsync(ready(t, { providers: [PASSKEY] }), { instanceOf: TypeError });
  t.true(
    unset!.message.startsWith('authKoa: providers[0] (passkey): credentials is unset and stateStore is a memory store'),
    unset!.message,
  );
  t.regex(unset!.message, DURABLE);
  const given = await t.throwsAsync(
    ready(t, {
      stateStore: `lmdb://${join(tempDir(t), 'state')}`,
      providers: [{ ...PASSKEY, credentials: 'memory://' }],
    }),
    { instanceOf: TypeError },
  );
  t.true(given!.message.startsWith('authKoa: providers[0] (passkey): credentials is a memory store'), given!.message);
});

test('allowVolatileStores: true lets memory hold them (tests, demos); durable stores never needed it', async (t) => {
  await t.notThrowsAsync(ready(t, { allowVolatileStores: true, mfa: { store: 'memory://' }, providers: [PASSKEY] }));
  const dir = tempDir(t);
  await t.notThrowsAsync(
    ready(t, {
      stateStore: `lmdb://${join(dir, 'state')}`,
      mfa: { store: `lmdb://${join(dir, 'mfa')}` },
      providers: [PASSKEY],
    }),
  );
  t.throws(() => authKoa({ ...base, allowVolatileStores: 'yes' as never }), {
    instanceOf: TypeError,
    message: 'authKoa: allowVolatileStores must be a boolean',
  });
});
