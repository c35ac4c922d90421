/**
 * The demo as a newcomer starts it beside their own app: its providers line names only providers that started (the
 * dev provider is left out, and said off, when its port is taken), and it keeps its data in a folder of its own,
 * ./var/authkoa-demo, never ./var/accounts, the path the getting-started app uses, and says where at start-up.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ROOT, waitForLine } from '../helpers/cli.js';
import { startCheckedExample } from '../helpers/example.js';
import { tempDir } from '../helpers/temp.js';

/** A listening socket on 127.0.0.1 holding a port, as another program would. */
async function occupied(t: { teardown(fn: () => unknown): void }): Promise<number> {
  const holder: Server = createServer((s) => s.destroy());
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  return (holder.address() as { port: number }).port;
}

test('the dev port taken by another program: the providers line and the providers leave dev out, and the banner says why', async (t) => {
  const port = await occupied(t);
  const lines: string[] = [];
  const app = await startCheckedExample({
    port: 0,
    devPort: port,
    host: '127.0.0.1',
    varDir: join(tempDir(t, 'authkoa-demo-start-'), 'var'),
    env: {},
    log: (l) => lines.push(l),
  });
  t.teardown(() => app.close());
  t.false(
    app.auth.providers.list().some((p) => p.name === 'dev'),
    'no dev provider whose server could not start',
  );
  t.true(lines.includes('  providers: local, email, password, passkey'), lines.join('\n'));
  t.true(
    lines.includes(
      `  dev:       off: port ${port} on 127.0.0.1 is in use: start the demo with --dev-port <n> (or DEV_PORT) to have it`,
    ),
    lines.join('\n'),
  );
  t.false(
    lines.some((l) => l.includes('did not start')),
    'no error line for a server that was never tried',
  );
  const features = (await (await fetch(`${app.url}/features`)).json()) as {
    features: Array<{ name: string; available: boolean }>;
  };
  t.like(
    features.features.find((f) => f.name === 'dev'),
    { available: false },
  );
});

test('the dev port free: dev is listed first as before, and no dev feature is said off', async (t) => {
  const lines: string[] = [];
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(tempDir(t, 'authkoa-demo-start-'), 'var'),
    env: {},
    log: (l) => lines.push(l),
  });
  t.teardown(() => app.close());
  t.true(lines.includes('  providers: dev, local, email, password, passkey'), lines.join('\n'));
  t.false(lines.some((l) => l.startsWith('  dev:')));
});

test('npm start keeps its data in ./var/authkoa-demo, says so, and leaves ./var/accounts to the app', async (t) => {
  const cwd = tempDir(t, 'authkoa-demo-cwd-');
  const env = { ...process.env };
  delete env.AUTHKOA_VAR;
  const child = spawn(process.execPath, [join(ROOT, 'dist/bin/authctl.js'), 'demo', '--port', '0', '--dev-port', '0'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  await waitForLine(child, /accounts: /);
  const data = join(cwd, 'var', 'authkoa-demo');
  t.regex(
    out,
    new RegExp(
      `^ {2}data: {6}${data.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(--var <dir> or AUTHKOA_VAR moves it\\)$`,
      'm',
    ),
  );
  t.true(existsSync(join(data, 'secret')));
  t.true(existsSync(join(data, 'accounts')));
  t.deepEqual(readdirSync(join(cwd, 'var')), ['authkoa-demo'], 'nothing of the demo beside it, no ./var/accounts');
});
