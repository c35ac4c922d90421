import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import test from 'ava';
import { Client, startApp } from '../helpers/http.js';
import { nodeArgs } from '../helpers/source.js';
import { options, startLogin } from './fixtures.js';

const ROOT = new URL('../../', import.meta.url);

/**
 * Starts `authctl dev-oauth …` and resolves with the base URL from its "listening" line. stdout and
 * stderr are two pipes read in no set order: `exited` is the 'close' event (both read to the end), and
 * `stderrMatching()` waits for a line instead of assuming it arrived before stdout's.
 */
async function startCli(t: any, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...nodeArgs('bin/authctl.ts'), 'dev-oauth', ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'development', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  const stderrListeners = new Set<() => void>();
  child.stderr.on('data', (d) => {
    stderr += d;
    for (const l of stderrListeners) l();
  });
  const exited = once(child, 'close') as Promise<[number | null, string | null]>;
  /** Resolves with stderr once it matches `re`; rejects if the process ends without it. */
  const stderrMatching = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (!re.test(stderr)) return false;
        stderrListeners.delete(listener);
        resolve(stderr);
        return true;
      };
      const listener = () => void check();
      if (check()) return;
      stderrListeners.add(listener);
      void exited.then(() => check() || reject(new Error(`stderr never matched ${re}: ${stderr}`)));
    });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string | undefined>((resolve) => {
    lines.on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]);
    });
    void exited.then(() => resolve(undefined));
  });
  return { child, url, exited, stderr: () => stderr, stderrMatching };
}

test('authctl dev-oauth runs the dev server as a child process, serves a login, and exits 0 on SIGINT', async (t) => {
  const cli = await startCli(t, ['--port', '0', '--email-domain', 'cli.test']);
  t.truthy(cli.url, cli.stderr());
  t.regex(await cli.stderrMatching(/DEV OAUTH2 SERVER[^\n]*\n/), /DEV OAUTH2 SERVER.*never in production/i);
  const url = cli.url!;
  // An app using it as a custom oauth2 provider, the way an application in another process would.
  const app = await startApp(
    options([
      {
        kind: 'oauth2',
        name: 'devcli',
        client: { cid: 'app', csecret: 'x' },
        endpoint: { authURL: `${url}/login/oauth/authorize`, tokenURL: `${url}/login/oauth/access_token` },
        infoURL: `${url}/user`,
        mapUser: (d: Record<string, string>) => ({ id: d.id!, name: d.name!, picture: d.picture!, email: d.email! }),
      },
    ]),
  );
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const authorize = await startLogin(c, 'devcli');
  const form = await fetch(authorize, {
    method: 'POST',
    body: new URLSearchParams({ username: 'zoe' }),
    redirect: 'manual',
  });
  t.is(form.status, 302);
  const res = await c.fetch(form.headers.get('location')!);
  t.is(res.status, 200);
  const user = (await res.json()) as Record<string, string>;
  t.is(user.name, 'zoe');
  t.is(user.email, 'zoe@cli.test');
  cli.child.kill('SIGINT');
  const [code, signal] = await cli.exited;
  t.is(signal, null);
  t.is(code, 0);
});

test('authctl dev-oauth exits 0 on SIGTERM too', async (t) => {
  const cli = await startCli(t, ['--port', '0']);
  t.truthy(cli.url, cli.stderr());
  t.is((await fetch(`${cli.url}/nope`)).status, 400);
  cli.child.kill('SIGTERM');
  t.deepEqual(await cli.exited, [0, null]);
});

test('authctl dev-oauth refuses NODE_ENV=production and bad ports', async (t) => {
  const prod = await startCli(t, ['--port', '0'], { NODE_ENV: 'production' });
  t.is(prod.url, undefined);
  const [code] = await prod.exited;
  t.is(code, 1);
  t.regex(prod.stderr(), /refuses to start with NODE_ENV=production/);
  const bad = await startCli(t, ['--port', 'seventy']);
  t.not((await bad.exited)[0], 0);
  t.regex(bad.stderr(), /--port <n>' argument 'seventy' is invalid. must be a whole number from 0 to 65535/);
});
