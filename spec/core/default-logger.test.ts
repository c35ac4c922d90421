/**
 * What an app without a `logger` sees, as Koa does it: warnings and errors on the standard error, one
 * line each, info and debug silent, and a request's 5xx printed once (by Koa's own handler of the
 * error authkoa emits), not twice. A real `node` process runs a Koa app on the compiled package.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { consoleLogger, toLogger } from '../../lib/logger.js';
import { ensureLibBuild } from '../helpers/build.js';
import { ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

test.before(() => ensureLibBuild());

test('no logger: toLogger() gives the console default, which has nothing for info and debug', (t) => {
  t.is(toLogger(undefined), consoleLogger);
  t.is(toLogger(null), consoleLogger);
});

test("an app without a logger prints its warning once and a throwing checker's error once (Koa's handler), nothing at info", async (t) => {
  const dir = tempDir(t);
  const koa = pathToFileURL(createRequire(import.meta.url).resolve('koa')).href;
  const entry = pathToFileURL(join(ROOT, 'dist/lib/index.js')).href;
  const file = join(dir, 'app.mjs');
  writeFileSync(
    file,
    `import Koa from '${koa}';
import { authKoa } from '${entry}';
const app = new Koa();
const auth = authKoa({
  secret: 'x'.repeat(40),
  url: 'http://127.0.0.1:1',
  providers: [
    { kind: 'direct', name: 'local', checker: () => { throw new Error('user database is down'); } },
    { kind: 'passkey', rpName: 'x', credentials: 'lmdb://${join(dir, 'passkeys')}' },
  ],
});
app.use(auth);
await auth.ready;
const server = app.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const res = await fetch('http://127.0.0.1:' + server.address().port + '/auth/local/login?user=alice&passwd=pw');
process.stdout.write(String(res.status));
server.close();
await auth.close();
`,
  );
  const child = spawn(process.execPath, [file], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = (await once(child, 'close')) as [number | null];
  t.is(code, 0, stderr);
  t.is(stdout, '500');
  const lines = stderr.split('\n');
  t.deepEqual(
    lines.filter((l) => l.startsWith('authkoa ')),
    [
      'authkoa warn: passkey: rpID 127.0.0.1 is an IP address, which browsers refuse for passkeys: use a host name (localhost in development)',
    ],
  );
  t.is(stderr.split('user database is down').length - 1, 1, `printed once:\n${stderr}`);
});
