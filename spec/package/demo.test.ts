/**
 * `npx authctl demo` as a newcomer meets it: the packed tarball installed with koa alone and no optional or
 * dev packages (`npm install --omit=dev --omit=optional <tarball> koa`), the demo run as its own process, and
 * the page, its scripts, the providers list, a direct login and a sign-up used over HTTP. The features whose optional
 * package is not there are reported off, not a crash, and nothing reaches stderr.
 */
import test, { type ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { installConsumer, packTarball, userEnv } from '../helpers/packed.js';
import { suiteTempDir } from '../helpers/temp.js';

const OMITTED = [
  'jimp',
  '@simplewebauthn/server',
  'nodemailer',
  'node-telegram-bot-api',
  'jquery',
  'esbuild',
  'typescript',
];

interface Demo {
  url: string;
  stdout: () => string;
  stderr: () => string;
  child: ChildProcess;
}

const work = suiteTempDir(test, 'authkoa-demo-install-');
// Outside the repository, whose node_modules holds every optional package.
const consumer = join(work, 'consumer');

test.before(async (t) => {
  // A first install fetches koa and the package's dependencies; later runs start from spec/.cache/demo-install.
  t.timeout(10 * 60_000);
  const tarball = await packTarball(work);
  await installConsumer('demo-install', tarball, ['--omit=dev', '--omit=optional'], ['koa'], consumer);
});

/** Starts the installed `authctl demo` on free ports and resolves once it prints where it listens. */
async function startDemo(t: ExecutionContext): Promise<Demo> {
  const env = { ...userEnv };
  for (const k of Object.keys(env)) if (/^TELEGRAM_|_CID$|_CSEC$/.test(k)) delete env[k];
  const bin = join(consumer, 'node_modules', '.bin', 'authctl');
  const child = spawn(bin, ['demo', '--port', '0', '--dev-port', '0', '--var', join(work, `var-${Date.now()}`)], {
    cwd: consumer,
    env,
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /listening on (http:\/\/localhost:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', check);
    child.once('exit', (code) =>
      reject(new Error(`authctl demo exited with ${code} before listening:\n${out}\n${err}`)),
    );
  });
  return { url, stdout: () => out, stderr: () => err, child };
}

test('the install holds no optional or dev package: what the demo has is what a user has', async (t) => {
  for (const pkg of OMITTED)
    await t.throwsAsync(stat(join(consumer, 'node_modules', pkg)), undefined, `${pkg} was installed`);
});

test('npx authctl demo from the tarball: page and scripts served, providers listed, a direct login, a TOTP set-up and a sign-up work, missing packages reported off, nothing on stderr', async (t) => {
  const demo = await startDemo(t);
  const { url } = demo;

  // The page, and every script and style sheet it names.
  const page = await fetch(`${url}/`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  const assets = [...html.matchAll(/<script src="([^"]+)"|<link rel="stylesheet" href="([^"]+)"/g)].map(
    (m) => m[1] ?? m[2]!,
  );
  t.true(assets.includes('/vendor/jquery.js') && assets.includes('/app.js'), assets.join(', '));
  for (const path of assets) {
    const res = await fetch(url + path);
    t.is(res.status, 200, path);
    t.regex(res.headers.get('content-type') ?? '', path.endsWith('.css') ? /^text\/css/ : /^text\/javascript/, path);
    t.true((await res.text()).length > 0, path);
  }

  // The providers list: no passkey provider without @simplewebauthn/server.
  const list = await fetch(`${url}/auth/list`);
  t.is(list.status, 200);
  t.deepEqual(((await list.json()) as string[]).sort(), ['dev', 'email', 'local', 'password']);

  // A direct login, then a protected route with its cookie and XSRF header.
  const login = await fetch(`${url}/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ user: 'demo', passwd: 'demo' }),
  });
  t.is(login.status, 200);
  const cookies = login.headers.getSetCookie().map((c) => c.slice(0, c.indexOf(';')));
  const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN='))!.slice('XSRF-TOKEN='.length);
  const privateRoute = await fetch(`${url}/api/private`, {
    headers: { cookie: cookies.join('; '), 'x-xsrf-token': xsrf },
  });
  t.is(privateRoute.status, 200);
  t.like(await privateRoute.json(), { user: { name: 'demo' } });
  // Two-step login needs no optional package: its set-up draws its QR code with a dependency.
  const setup = await fetch(`${url}/auth/mfa/totp/setup`, {
    method: 'POST',
    headers: { cookie: cookies.join('; '), 'x-xsrf-token': xsrf, origin: url },
  });
  t.is(setup.status, 200);
  t.regex(((await setup.json()) as { qr: string }).qr, /^data:image\/svg\+xml;base64,/);

  // Accounts need no optional package either (LMDB and scrypt come with it): a sign-up's link lands in the outbox.
  const signup = await fetch(`${url}/auth/password/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email: 'ann@example.com', password: 'correct horse battery' }),
  });
  t.is(signup.status, 202);
  t.regex(await (await fetch(`${url}/outbox`)).text(), /\/auth\/password\/confirm\?token=/);

  // The features whose package is missing: off, with the package to install, for the page and in the banner.
  const features = (await (await fetch(`${url}/features`)).json()) as {
    features: { name: string; available: boolean; reason?: string }[];
  };
  t.like(
    features.features.find((f) => f.name === 'passkeys'),
    { available: false },
  );
  t.regex(features.features.find((f) => f.name === 'passkeys')!.reason!, /npm install @simplewebauthn\/server/);
  t.like(
    features.features.find((f) => f.name === 'avatars'),
    { available: false },
  );
  t.regex(features.features.find((f) => f.name === 'avatars')!.reason!, /npm install jimp/);
  t.regex(demo.stdout(), /^ {2}passkeys: {2}off: the package "@simplewebauthn\/server" is not installed/m);
  t.regex(demo.stdout(), /^ {2}avatars: {3}off: .*npm install jimp/m);

  // Ctrl-C stops it cleanly, and nothing at all went to stderr: no stack trace, no warning.
  demo.child.kill('SIGINT');
  const [code] = (await once(demo.child, 'exit')) as [number | null];
  t.is(code, 0);
  t.is(demo.stderr(), '');
});
