/** Third-party stores and kinds through the registries: registerStore, registerStateStore, registerProvider. */
import test from 'ava';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  authKoa,
  registerProvider,
  registerStateStore,
  registerStore,
  type AvatarStore,
  type ProviderModule,
} from '../../lib/index.js';
import { openStore, parseStoreUri } from '../../lib/avatar/stores/index.js';
import { memoryStateStore, openStateStore } from '../../lib/state/index.js';
import { ensureLibBuild } from '../helpers/build.js';
import { Client, startApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
// @ts-expect-error: a plain JavaScript plug-in, as a third party would ship it
import { openJsonStore } from './plugin/json-store.mjs';

const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const openJson = openJsonStore as (uri: string) => AvatarStore;
registerStore('jsonfile', openJson);

test('a store registered with registerStore() serves avatarStore: "jsonfile://…" at login and on the avatar route', async (t) => {
  const file = join(tempDir(t, 'authkoa-reg-'), 'avatars.json');
  const app = await startApp({
    secret: 'registry-test-secret-0123456789abcdef',
    avatarStore: `jsonfile://${file}`,
    providers: [{ kind: 'direct', name: 'local', checker: () => true }],
  });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const login = await c.fetch('/auth/local/login', { method: 'POST', json: { user: 'ann', passwd: 'x' } });
  t.is(login.status, 200);
  const picture = ((await login.json()) as { picture: string }).picture;
  const id = picture.slice(picture.lastIndexOf('/') + 1);
  t.regex(id, /^[0-9a-f]{40}\.image$/);
  t.true(Object.hasOwn(JSON.parse(readFileSync(file, 'utf8')), id), 'the identicon went into the registered store');
  const served = await fetch(picture);
  t.is(served.status, 200);
  t.is(served.headers.get('content-type'), 'image/png');
});

test('authctl --require loads a plug-in, then lists and migrates its store like a built-in one', async (t) => {
  const dir = tempDir(t, 'authkoa-reg-cli-');
  const src = openJson(`jsonfile://${join(dir, 'src.json')}`);
  const ids = [
    await src.put('alice', Buffer.from('picture of alice')),
    await src.put('bob', Buffer.from('picture of bob')),
  ];
  // The installed CLI (dist): the plug-in registers with the `authkoa` it imports, the same one authctl uses.
  t.timeout(5 * 60_000); // compiling the library on a fresh clone takes a while on a loaded machine
  await ensureLibBuild();
  const authctl = (...args: string[]) =>
    run(
      process.execPath,
      [join(root, 'dist/bin/authctl.js'), '--require', './spec/stores/plugin/register.mjs', 'avatars', ...args],
      { cwd: root },
    );
  const listed = JSON.parse((await authctl('list', `jsonfile://${join(dir, 'src.json')}`, '--json')).stdout) as {
    avatars: { id: string }[];
  };
  t.deepEqual(listed.avatars.map((a) => a.id).sort(), [...ids].sort());
  const migrated = await authctl('migrate', `jsonfile://${join(dir, 'src.json')}`, `lmdb://${join(dir, 'dst')}`);
  t.regex(migrated.stdout, /migrated 2 of 2 avatars/);
  const dst = await openStore(`lmdb://${join(dir, 'dst')}`);
  t.teardown(() => dst.close());
  t.deepEqual((await dst.get(ids[0]!))?.data.toString(), 'picture of alice');
  const without = await run(
    process.execPath,
    [join(root, 'dist/bin/authctl.js'), 'avatars', 'list', `jsonfile://${join(dir, 'src.json')}`],
    { cwd: root },
  ).catch((e) => e);
  t.is(without.code, 1, 'without --require the scheme is unknown');
  t.regex(without.stderr, /unsupported scheme "jsonfile:\/\/"/);
});

test('registering again: the same implementation is harmless, another is an error, built-ins cannot be replaced', (t) => {
  t.notThrows(() => registerStore('jsonfile', openJson));
  t.throws(() => registerStore('jsonfile', () => openJson('jsonfile://x')), {
    message: /registerStore\(\): avatar store scheme "jsonfile" is already registered with another implementation/,
  });
  t.throws(() => registerStore('lmdb', openJson), { message: /"lmdb" is built in/ });
  t.throws(() => registerStore('s3://', openJson), { message: /registerStore\(\) requires a URI scheme/ });
  t.throws(() => registerStore('s3', 'open' as never), { message: /requires an open\(uri\) function/ });
  const kind: ProviderModule = {
    kind: 'registry-test',
    create: () => ({ name: 'rt', login: async () => {}, logout: async () => {} }),
  };
  registerProvider(kind);
  t.notThrows(() => registerProvider(kind));
  t.throws(() => registerProvider({ ...kind }), { message: /provider kind "registry-test" is already registered/ });
  t.throws(() => registerProvider({ kind: 'direct', create: kind.create }), {
    message: /provider kind "direct" is built in/,
  });
  const open = () => memoryStateStore();
  registerStateStore('registry-test', open);
  t.notThrows(() => registerStateStore('registry-test', open));
  t.throws(() => registerStateStore('registry-test', () => memoryStateStore()), {
    message: /state store scheme "registry-test" is already registered/,
  });
  t.throws(() => registerStateStore('memory', open), { message: /"memory" is built in/ });
});

test('a registered state-store scheme opens through openStateStore; unknown schemes point at the register function', async (t) => {
  let given: unknown;
  registerStateStore('counted', (uri, opts) => {
    given = { uri, clock: typeof opts.clock };
    return memoryStateStore(opts);
  });
  const store = await openStateStore('counted://anything', { clock: Date.now });
  t.deepEqual(given, { uri: 'counted://anything', clock: 'function' });
  t.true(await store.create('ns', 'k', 1, Date.now() + 1000));
  await store.close();
  t.throws(() => parseStoreUri('nowhere://x'), { message: /unsupported scheme "nowhere:\/\/".*registerStore\(\)/ });
  t.throws(
    () =>
      authKoa({
        secret: 's'.repeat(32),
        url: 'http://127.0.0.1:1',
        avatarStore: 'nowhere://x',
        providers: [{ kind: 'direct', name: 'l', checker: () => true }],
      }),
    {
      message: /^authKoa: avatarStore has unsupported scheme "nowhere:\/\/"/,
    },
  );
});
