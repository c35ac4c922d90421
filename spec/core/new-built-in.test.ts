/**
 * Adding a built-in feature is a folder and a line in the feature table: a copy of lib/ gets the folder of
 * spec/core/fixtures/hello-feature as `lib/hello/` and one row in its `core/features.ts`, no other file changes, and an
 * instance of that copy serves the feature's route, takes its event, offers its admin API and its `auth.hello`
 * shortcut, and hands it the capability it asked for.
 */
import test from 'ava';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Koa from 'koa';
import { until } from '../helpers/until.js';
import { serve } from '../helpers/http.js';
import { importSource } from '../helpers/source.js';

const root = join(import.meta.dirname, '..', '..');
const lib = join(root, 'lib');

/** Every file below `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

/** A copy of lib/ inside the repository (so its imports of packages resolve), removed with the test. */
function copyOfLib(t: { teardown(fn: () => void): void }): string {
  const copy = join(root, 'spec', '.cache', `lib-copy-${randomBytes(4).toString('hex')}`, 'lib');
  mkdirSync(copy, { recursive: true });
  cpSync(lib, copy, { recursive: true });
  t.teardown(() => rmSync(join(copy, '..'), { recursive: true, force: true }));
  return copy;
}

test('a new built-in is a folder and one table row: no other lib file changes, and the instance serves it', async (t) => {
  const copy = copyOfLib(t);
  cpSync(join(import.meta.dirname, 'fixtures', 'hello-feature'), join(copy, 'hello'), { recursive: true });
  const table = join(copy, 'core', 'features.ts');
  const before = readFileSync(table, 'utf8');
  const row = before.replace(/^(const BUILT_INS = \[.*)\] as const;$/m, '$1, hello] as const;');
  t.not(row, before, 'the array of rows was found');
  writeFileSync(table, `import { hello } from '../hello/index.js';\n${row}`);

  const changed = files(copy).filter((f) => {
    const original = join(lib, f);
    try {
      return readFileSync(original, 'utf8') !== readFileSync(join(copy, f), 'utf8');
    } catch {
      return true; // not in lib/: added
    }
  });
  t.deepEqual(changed, ['core/features.ts', 'hello/feature.ts', 'hello/index.ts']);
  const diff = readFileSync(table, 'utf8')
    .split('\n')
    .filter((line) => !before.split('\n').includes(line));
  t.is(diff.length, 2, `one import and the row: ${diff.join(' | ')}`);
  t.deepEqual(
    files(copy).filter((f) => !files(lib).includes(f)),
    ['hello/feature.ts', 'hello/index.ts'],
  );

  const { authKoa } = await importSource<typeof import('../../lib/index.js')>(join(copy, 'index.ts'));
  const auth = authKoa({
    secret: 'a-test-secret-of-at-least-32-bytes!!',
    url: 'http://127.0.0.1:1',
    issuer: 'the-hello-issuer',
    logger: () => {},
    telemetry: false,
    providers: [{ kind: 'direct', name: 'local', checker: () => true }],
  });
  t.teardown(() => auth.close());
  await auth.ready;
  t.true(auth.eventTypes.includes('hello_said' as never), 'its event type is known');
  t.true(auth.features.list().includes('hello'));
  const said: unknown[] = [];
  auth.on('hello_said' as never, (e: unknown) => void said.push(e));
  const app = new Koa();
  app.use(auth);
  const served = await serve((req, res) => app.callback()(req, res));
  t.teardown(() => served.close());
  const res = await fetch(`${served.url}/auth/hello`);
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { hello: 'the-hello-issuer' }, 'the capability it asked for: the issuer');
  await until(() => said.length === 1, 'hello_said told');
  t.is(await auth.features.get<{ greet(n: string): Promise<string> }>('hello')!.greet('admin'), 'hello, admin');
  const shortcut = (auth as unknown as Record<string, { greet(n: string): Promise<string> }>).hello;
  t.is(await shortcut.greet('app'), 'hello, app', 'auth.hello, the shortcut its row names');
});
