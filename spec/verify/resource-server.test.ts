/**
 * The acceptance line of issue #35: a resource server in a second process (fixtures/resource-server.ts:
 * Koa and `authkoa/verify` from the built package, no provider, store or state module loaded) accepts the
 * app's session tokens through the app's JWKS URL, keeps accepting through a key rotation, refuses a token
 * of a dropped key once it has fetched the set again, and gets past the app restarting with a brand-new
 * key at the cost of one fetch. The app runs here; each restart puts a new authKoa instance, with new
 * keys, behind the same listening port, and the port counts the JWKS fetches. The child's verifier clock
 * is moved by the test (POST /clock), so maxAge and the cooldown pass without waiting.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import Koa from 'koa';
import { authKoa, type AuthKoa } from '../../lib/index.js';
import type { SigningOptions } from '../../lib/session/signing.js';
import { ensureLibBuild } from '../helpers/build.js';
import { contractRecorder } from '../helpers/answers.js';
import { Client, serve } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { SECRET, directProvider, pemKey, signingWith } from './fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const recorder = fileURLToPath(new URL('../package/record-loads.mjs', import.meta.url));
const child = fileURLToPath(new URL('./fixtures/resource-server.ts', import.meta.url));
const JWKS = '/auth/.well-known/jwks.json';
const HEAVY = [
  'lmdb',
  'mongodb',
  'ioredis',
  '@simplewebauthn/server',
  'node-telegram-bot-api',
  'nodemailer',
  'jimp',
  'simple-oauth2',
  'koa-session',
  'jose',
  'uqr',
];

test.before(async () => {
  await ensureLibBuild();
  if (!existsSync(join(root, 'dist/lib/verify/index.js')))
    throw new Error('dist/ was built before authkoa/verify existed: run npm run build');
});

/**
 * The app: one listening port, behind which start() puts a new authKoa instance with the given keys (the
 * old one closed first, the port answering 503 in between, as during a process restart). `jwksFetches`
 * counts the requests for the key set over every instance.
 */
async function appHost(t: ExecutionContext) {
  let current: RequestListener = (_req, res) => res.writeHead(503).end();
  let auth: AuthKoa | undefined;
  /** The answers of the current instance, checked against its document when it closes. */
  let contract: ReturnType<typeof contractRecorder> | undefined;
  const closeCurrent = async () => {
    const instance = auth;
    if (instance) await contract!.closed(() => instance.close());
  };
  const host = { jwksFetches: 0, jwksUrl: '', start, login };
  const served = await serve((req, res) => {
    if (req.url === JWKS) host.jwksFetches++;
    current(req, res);
  });
  host.jwksUrl = served.url + JWKS;
  t.teardown(async () => {
    await closeCurrent();
    await served.close();
  });

  async function start(signing: SigningOptions): Promise<void> {
    current = (_req, res) => res.writeHead(503).end();
    await closeCurrent();
    const koa = new Koa();
    koa.silent = true;
    auth = authKoa({ secret: SECRET, url: served.url, signing, providers: [directProvider] });
    await auth.ready;
    contract = contractRecorder(auth);
    koa.use(contract.use);
    koa.use(auth);
    current = koa.callback();
  }

  /** A direct login as alice for the audience `api`; the session token. */
  async function login(): Promise<string> {
    const c = new Client(served.url);
    const res = await c.fetch('/auth/direct/login', {
      method: 'POST',
      json: { user: 'alice', passwd: 'password', aud: 'api' },
    });
    if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
    return c.jar.get('JWT')!;
  }
  return host;
}

/** The resource server's process, started with the module-load recorder; `loads` is the file it writes. */
async function resourceServer(t: ExecutionContext, jwksUrl: string, env: Record<string, string> = {}) {
  const loads = join(tempDir(t, 'authkoa-resource-server-'), 'loads.txt');
  const proc = spawn(process.execPath, ['--import=tsx', '--import', recorder, child], {
    cwd: root,
    env: { ...process.env, JWKS_URL: jwksUrl, RECORD_LOADS: loads, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d));
  t.teardown(() => void proc.kill('SIGKILL'));
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`the resource server exited (${code}): ${stderr}`)));
    createInterface({ input: proc.stdout }).once('line', (line) =>
      resolve((JSON.parse(line) as { port: number }).port),
    );
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    loads,
    /** The answer to a request with `token` as Bearer: 200 and the user's name, or the status and code. */
    async call(token: string): Promise<string> {
      const res = await fetch(`${url}/whoami`, { headers: { Authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { user?: { name: string; aud: string }; code?: string };
      return res.status === 200 ? `200 ${body.user!.name} ${body.user!.aud}` : `${res.status} ${body.code}`;
    },
    /** Moves the verifier's clock on. */
    async advance(ms: number): Promise<void> {
      const res = await fetch(`${url}/clock?advance=${ms}`, { method: 'POST' });
      if (res.status !== 200) throw new Error(`POST /clock answered ${res.status}`);
    },
  };
}

/** The modules of this repository the child loaded (paths from its root), and the packages. */
async function loadedBy(loads: string): Promise<{ own: string[]; packages: string[] }> {
  const base = pathToFileURL(root).href;
  const urls = [...new Set((await readFile(loads, 'utf8')).split('\n').filter(Boolean))];
  const packages = urls
    .map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1])
    .filter((p): p is string => p !== undefined);
  const own = urls.filter((u) => u.startsWith(base) && !u.includes('/node_modules/')).map((u) => u.slice(base.length));
  return { own, packages: [...new Set(packages)] };
}

test('the resource server process loads authkoa/verify from dist/ and no provider, store or state module, nor the main entry or any heavy package', async (t) => {
  const app = await appHost(t);
  await app.start(signingWith(pemKey('EdDSA')));
  const rs = await resourceServer(t, app.jwksUrl);
  t.is(await rs.call(await app.login()), '200 alice api', 'it has served a verified request');
  const { own, packages } = await loadedBy(rs.loads);
  t.log(own.join(', '));
  t.true(
    own.includes('dist/lib/verify/index.js') && own.includes('dist/lib/verify/key-set.js'),
    `recorded: ${own.join(', ')}`,
  );
  t.deepEqual(
    own.filter((p) => /^dist\/lib\/(providers|stores|state)\//.test(p)),
    [],
  );
  t.deepEqual(
    own.filter(
      (p) =>
        p === 'dist/lib/index.js' || (!p.startsWith('dist/lib/') && p !== 'spec/verify/fixtures/resource-server.ts'),
    ),
    [],
    'nothing else of authkoa, and nothing from the sources',
  );
  t.deepEqual(
    HEAVY.filter((p) => packages.includes(p)),
    [],
    `packages: ${packages.join(', ')}`,
  );
});

test('a key rotation on the app: tokens from before and after pass the resource server with one refetch; once the old key is dropped, its token is refused after the refetch maxAge brings', async (t) => {
  const app = await appHost(t);
  const [a, b] = [pemKey('EdDSA'), pemKey('EdDSA')];
  await app.start(signingWith(a));
  const rs = await resourceServer(t, app.jwksUrl, { MAX_AGE: '1m' });
  const before = await app.login();
  t.is(await rs.call(before), '200 alice api');
  t.is(app.jwksFetches, 1);

  await app.start(signingWith(b, [a.publicPem]));
  const after = await app.login();
  await rs.advance(30_000); // the cooldown since the last fetch: a new kid may be fetched
  t.is(await rs.call(after), '200 alice api', 'the new key was fetched for its token');
  t.is(await rs.call(before), '200 alice api', 'the previous key still verifies');
  t.is(app.jwksFetches, 2, 'one refetch');

  await app.start(signingWith(b));
  t.is(await rs.call(before), '200 alice api', 'until the set is fetched again, the held key still verifies');
  await rs.advance(60_000);
  t.is(await rs.call(before), '401 token_invalid', 'past maxAge the set is fetched again: the dropped key is gone');
  t.is(await rs.call(after), '200 alice api');
  t.is(await rs.call(await app.login()), '200 alice api');
  t.is(app.jwksFetches, 3);
});

test('the app restarted with a brand-new key and no previous one: its first token passes the resource server with one refetch; the old key is refused from then on', async (t) => {
  const app = await appHost(t);
  await app.start(signingWith(pemKey('ES256')));
  const rs = await resourceServer(t, app.jwksUrl);
  const old = await app.login();
  t.is(await rs.call(old), '200 alice api');
  t.is(app.jwksFetches, 1);

  await app.start(signingWith(pemKey('EdDSA')));
  await rs.advance(30_000);
  const fresh = await app.login();
  t.is(await rs.call(fresh), '200 alice api');
  t.is(app.jwksFetches, 2, 'one refetch');
  t.is(await rs.call(old), '401 token_invalid');
  t.is(await rs.call(await app.login()), '200 alice api');
  t.is(app.jwksFetches, 2, 'no more');
});
