import { once } from 'node:events';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { Client } from '../helpers/http.js';
import { runCli, spawnCli, waitForLine } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

test('authctl --help lists the commands', async (t) => {
  const r = await runCli(['--help']);
  t.is(r.code, 0);
  t.regex(r.stdout, /Usage: authctl/);
  t.regex(r.stdout, /secret/);
  t.regex(r.stdout, /demo/);
});

test('authctl --version prints the package version', async (t) => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const r = await runCli(['--version']);
  t.is(r.code, 0);
  t.is(r.stdout.trim(), pkg.version);
});

test('authctl secret prints 32 random bytes as base64url; --bytes changes the size', async (t) => {
  const a = await runCli(['secret']);
  const b = await runCli(['secret']);
  t.is(a.code, 0);
  t.regex(a.stdout.trim(), /^[A-Za-z0-9_-]{43}$/);
  t.not(a.stdout, b.stdout);
  const big = await runCli(['secret', '--bytes', '64']);
  t.is(Buffer.from(big.stdout.trim(), 'base64url').length, 64);
});

test('authctl secret --bytes with a bad value: one-line error, exit 1', async (t) => {
  const r = await runCli(['secret', '--bytes', '5']);
  t.is(r.code, 1);
  t.regex(r.stderr, /--bytes <n>' argument '5' is invalid/);
  // 16 bytes make 22 characters, short of the 32 bytes the secret option needs.
  const short = await runCli(['secret', '--bytes', '16']);
  t.is(short.code, 1);
  t.regex(short.stderr, /argument '16' is invalid/);
  t.notRegex(r.stderr, /at .*\.ts:\d+/);
});

test('an unknown command exits non-zero with a hint', async (t) => {
  const r = await runCli(['frobnicate']);
  t.not(r.code, 0);
  t.regex(r.stderr, /unknown command/);
});

test('authctl demo runs the reference app: secret made on first run, login works, Ctrl-C stops it', async (t) => {
  const varDir = tempDir(t, 'authkoa-demo-');
  const child = spawnCli(['demo', '--port', '0', '--dev-port', '0', '--var', varDir]);
  // Before varDir is removed: a demo still running would keep writing into it.
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  });
  const [, url] = await waitForLine(child, /authkoa example listening on (http:\/\/\S+)/);
  const secretFile = join(varDir, 'secret');
  t.is(statSync(secretFile).mode & 0o777, 0o600);
  const c = new Client(url!);
  t.true(((await (await c.fetch('/auth/list')).json()) as string[]).includes('local'));
  const login = await c.fetch('/auth/local/login', { method: 'POST', json: { user: 'demo', passwd: 'demo' } });
  t.is(login.status, 200);
  t.is((await c.fetch('/api/private', { headers: c.xsrf() })).status, 200);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  t.is(await exited, 0);
});
