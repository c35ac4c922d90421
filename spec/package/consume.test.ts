import test from 'ava';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { npm, packTarball, userEnv as env } from '../helpers/packed.js';
import { blockProblems, checkedFiles, docBlocks, installCommands, parseTscOutput } from './doc-blocks.js';
import { suiteTempDir } from '../helpers/temp.js';
import { freePort } from '../helpers/ports.js';

/**
 * The package as a user gets it: `npm pack`, then the tarball installed into a throw-away consumer folder
 * by the commands getting-started.md gives (koa and @koa/router, then TypeScript's packages; no optional
 * peers), used from ESM and CommonJS JavaScript, type-checked from TypeScript under four module settings,
 * and every TypeScript block of the docs type-checked there as a reader would, with the installed tsc.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const recorder = fileURLToPath(new URL('./record-loads.mjs', import.meta.url));
/** The optional peer dependencies: none is installed with authkoa, each is named when a feature needs it. */
const OPTIONAL_PEERS = [
  'mongodb',
  'ioredis',
  'pg',
  '@opentelemetry/api',
  '@simplewebauthn/server',
  'node-telegram-bot-api',
  'nodemailer',
  'jimp',
  'koa-session',
];
const HEAVY = [
  'lmdb',
  'mongodb',
  'ioredis',
  'pg',
  '@opentelemetry/api',
  '@simplewebauthn/server',
  'node-telegram-bot-api',
  'nodemailer',
  'jimp',
  'simple-oauth2',
  'koa-session',
  'jose',
];

/** The consumer folder: the packed tarball, its install and the test projects. */
const dir = suiteTempDir(test, 'authkoa-consumer-');
let installedBytes = 0;

async function bytesUnder(path: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    if (entry.isDirectory()) total += await bytesUnder(p);
    else if (entry.isFile()) total += (await stat(p)).size;
  }
  return total;
}

async function node(
  args: string[],
  cwd = dir,
  extraEnv: Record<string, string> = {},
): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, args, { cwd, env: { ...env, ...extraEnv }, timeout: 60_000 });
}

test.before(async (t) => {
  // npm pack packs dist/: on a fresh clone (no `npm run build` yet) packTarball builds it first.
  t.timeout(10 * 60_000);
  const tarball = await packTarball(dir);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  // getting-started's install steps (`authkoa` being the tarball), then rest-client's for its TypeScript
  // blocks; the size is taken after the first, the packages every app installs.
  // The README's quick start installs the same again, or more: what it adds is installed last.
  const commands = [
    ...installCommands('docs/getting-started.md'),
    ...installCommands('docs/rest-client.md'),
    // (not its clone's `npm install && npm start`)
    ...installCommands('README.md').filter((args) => !args.includes('&&')),
  ].filter((args, i, all) => all.findIndex((other) => other.join(' ') === args.join(' ')) === i);
  const [runtime, ...rest] = commands;
  if (!runtime?.includes('authkoa'))
    throw new Error(`getting-started.md no longer starts with installing authkoa: npm ${runtime?.join(' ')}`);
  for (const [i, args] of [runtime, ...rest].entries()) {
    await npm(
      args.map((a) => (a === 'authkoa' ? tarball : a)),
      dir,
    );
    if (i === 0) installedBytes = await bytesUnder(join(dir, 'node_modules'));
  }
});

test('social login with the LMDB store installs at most 30 MB of node_modules, optional peers not installed', async (t) => {
  t.log(`node_modules: ${(installedBytes / 1e6).toFixed(1)} MB`);
  t.true(installedBytes <= 30e6, `${(installedBytes / 1e6).toFixed(1)} MB`);
  for (const pkg of [...OPTIONAL_PEERS, 'zod']) {
    await t.throwsAsync(stat(join(dir, 'node_modules', pkg)), undefined, `${pkg} was installed`);
  }
});

/** The module URLs the ESM loader resolved while `code` ran. */
async function urlsLoaded(code: string): Promise<string[]> {
  const record = join(dir, `loads-${Math.random().toString(36).slice(2)}.txt`);
  await writeFile(record, '');
  await node(['--import', recorder, '--input-type=module', '-e', code], dir, { RECORD_LOADS: record });
  return (await readFile(record, 'utf8')).split('\n');
}

/** The packages (by node_modules folder) the ESM loader resolved while `code` ran. */
async function packagesLoaded(code: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (const url of await urlsLoaded(code)) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (m) names.add(m[1]!);
  }
  return names;
}

/** authkoa's own modules that load with the feature using them, never with a bare import. */
const LAZY_MODULES = [
  'routes.js',
  'avatar/fetch.js',
  'http/safe-request.js',
  'avatar/pool.js',
  'avatar/identicon.js',
  'mfa/store.js',
  'avatar/stores/migrate.js',
  'avatar/stores/prune.js',
  // The features' routes load when the feature is created at start-up, their OpenAPI text with the document.
  'sessions/routes.js',
  'sessions/list.js',
  'jwks/route.js',
  'sessions/openapi.js',
  'jwks/openapi.js',
  'mfa/service.js',
  'mfa/openapi.js',
  // The accounts' store, hashing and routes load when the `accounts` option and a `password` provider are set.
  'accounts/service.js',
  'accounts/admin.js',
  'accounts/password-hash.js',
  'accounts/password/provider.js',
  // The personal tokens' store, cache and routes load with the `tokens` option.
  'personal-tokens/service.js',
  'personal-tokens/routes.js',
  'personal-tokens/store.js',
  'personal-tokens/cache.js',
  'personal-tokens/openapi.js',
];

test("a bare import loads none of authkoa's modules that a feature loads when it is used", async (t) => {
  const own = new Set(
    (await urlsLoaded(`await import('authkoa');`)).flatMap((url) => /\/authkoa\/dist\/lib\/(.+)$/.exec(url)?.[1] ?? []),
  );
  t.log(`${own.size} modules of authkoa`);
  t.true(own.has('service.js'), [...own].join(', '));
  t.deepEqual(
    LAZY_MODULES.filter((m) => own.has(m)),
    [],
  );
});

test('a bare import loads Koa-level code only; a configured kind and store load when start-up needs them', async (t) => {
  const bare = await packagesLoaded(`await import('authkoa');`);
  t.true(bare.has('authkoa'), `recorded: ${[...bare].join(', ')}`);
  t.deepEqual(
    HEAVY.filter((p) => bare.has(p)),
    [],
    `loaded by a bare import: ${[...bare].join(', ')}`,
  );
  // Not even the router: the auth routes are built while start-up runs.
  t.deepEqual(
    [...bare].filter((p) => p !== 'authkoa'),
    [],
  );
  const configured = await packagesLoaded(`
    const { authKoa } = await import('authkoa');
    const auth = authKoa({ secret: 's'.repeat(32), url: 'http://127.0.0.1:1', avatarStore: 'lmdb://${join(dir, 'avatars')}', providers: [{ name: 'github', cid: 'c', csecret: 's' }] });
    await auth.ready;
    await auth.close();`);
  t.true(configured.has('@koa/router'), 'start-up loaded the router of the auth routes');
  t.true(configured.has('simple-oauth2'), 'the social kind loaded its OAuth2 client');
  t.true(configured.has('lmdb'), 'the lmdb scheme loaded its backend');
  t.false(configured.has('mongodb'));
  t.false(configured.has('node-telegram-bot-api'));
});

const APP = (load: string) => `${load}
const Koa = KoaModule.default ?? KoaModule;
const auth = authKoa({
  secret: 'consumer-secret-0123456789abcdefgh', url: 'http://127.0.0.1', disableXSRF: true,
  providers: [{ kind: 'direct', name: 'local', checker: (user, pass) => user === 'ann' && pass === 'pw' }],
});
auth.ready
  .then(() => {
    const app = new Koa();
    app.use(auth);
    app.use(auth.middleware.auth);
    app.use((ctx) => { ctx.body = { hello: getUserInfo(ctx).name }; });
    const server = app.listen(0, '127.0.0.1', async () => {
      const base = 'http://127.0.0.1:' + server.address().port;
      const login = await fetch(base + '/auth/local/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'ann', passwd: 'pw' }) });
      const jwt = login.headers.getSetCookie().find((c) => c.startsWith('JWT='));
      const page = await fetch(base + '/private', { headers: { 'X-JWT': jwt.slice(4, jwt.indexOf(';')) } });
      console.log(JSON.stringify({ login: login.status, page: page.status, body: await page.json() }));
      server.close();
      await auth.close();
    });
  });
`;

test('ESM JavaScript: import, log in and call a protected route', async (t) => {
  await writeFile(
    join(dir, 'app.mjs'),
    APP(`import * as KoaModule from 'koa';\nimport { authKoa, getUserInfo } from 'authkoa';`),
  );
  const { stdout } = await node(['app.mjs']);
  t.deepEqual(JSON.parse(stdout), { login: 200, page: 200, body: { hello: 'ann' } });
});

test('CommonJS JavaScript: require("authkoa") works (require of an ES module, Node ≥ 20.19)', async (t) => {
  await writeFile(
    join(dir, 'app.cjs'),
    APP(`const KoaModule = require('koa');\nconst { authKoa, getUserInfo } = require('authkoa');`),
  );
  const { stdout } = await node(['app.cjs']);
  t.deepEqual(JSON.parse(stdout), { login: 200, page: 200, body: { hello: 'ann' } });
});

const TS_APP = `import Koa from 'koa';
import { authKoa, getUserInfo, registerStore, type AuthKoaOptions, type AvatarStore, type ProviderInfo, type User } from 'authkoa';

const options: AuthKoaOptions = {
  secret: 'a long random string of 32+ bytes',
  url: 'http://127.0.0.1:8080',
  tokenDuration: '5m',
  providers: [{ name: 'github', cid: 'id', csecret: 'secret' }, { kind: 'direct', name: 'local', checker: async () => true }],
};
registerStore('mem', (): AvatarStore => ({
  put: async () => '0'.repeat(40) + '.image',
  get: async () => undefined,
  remove: async () => {},
  list: async function* () {},
  close: async () => {},
}));
const auth = authKoa(options);
const ready: Promise<void> = auth.ready;
const app = new Koa();
app.use(auth);
app.use(auth.middleware.rbac('admin'));
app.use((ctx) => {
  const user: User | undefined = getUserInfo(ctx);
  ctx.body = user?.name ?? '';
});
export const provider: ProviderInfo | undefined = auth.providers.get('local');
export { ready };
`;

const SUBPATHS = `import { migrate, openStore } from 'authkoa/avatar-stores';
import { prune } from 'authkoa/stores'; // the former name, kept as an alias
import { memoryStateStore } from 'authkoa/state';
import type { DevOAuthServer } from 'authkoa/dev';
export const done: Promise<unknown> = Promise.all([migrate, openStore, prune, memoryStateStore]);
export type Dev = DevOAuthServer;
`;

for (const [module, resolution, type] of [
  ['commonjs', 'node10', 'commonjs'],
  ['node16', 'node16', 'module'],
  ['nodenext', 'nodenext', 'module'],
  ['esnext', 'bundler', 'module'],
] as const) {
  test(`TypeScript consumer type-checks with module ${module} (moduleResolution ${resolution})`, async (t) => {
    const project = join(dir, `ts-${module}`);
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'package.json'), JSON.stringify({ type }));
    await writeFile(join(project, 'app.ts'), TS_APP);
    // node10 resolution predates `exports`: subpaths are for the three modern settings.
    const files = ['app.ts'];
    if (resolution !== 'node10') {
      await writeFile(join(project, 'subpaths.ts'), SUBPATHS);
      // authkoa/client as a program uses it, from the tarball: spec/client/consumer.mts.
      await writeFile(join(project, 'client.mts'), await readFile(join(root, 'spec/client/consumer.mts'), 'utf8'));
      files.push('subpaths.ts', 'client.mts');
    }
    const tsconfig = {
      compilerOptions: {
        module,
        moduleResolution: resolution,
        target: 'es2022',
        strict: true,
        esModuleInterop: true,
        skipLibCheck: false,
        noEmit: true,
        types: ['node'],
        ...(resolution === 'node10' ? { ignoreDeprecations: '5.0' } : {}),
      },
      files,
    };
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
    const result = await run(process.execPath, [tsc, '-p', project], { cwd: project, env }).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
    t.is(result, '', result);
  });
}

test("every TypeScript block of README.md and docs/ type-checks under strict with the consumer's own tsc and getting-started's tsconfig", async (t) => {
  const project = join(dir, 'docs-check');
  await mkdir(project, { recursive: true });
  // getting-started: the examples are ES modules, checked by its tsconfig.json as written.
  const tsconfig = docBlocks().find(
    (b) => b.file === 'docs/getting-started.md' && b.lang === 'json' && b.code.includes('compilerOptions'),
  );
  if (!tsconfig) throw new Error('getting-started.md has no tsconfig.json block');
  await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(join(project, 'tsconfig.json'), tsconfig.code);
  const exported = JSON.parse(
    (await node(['--input-type=module', '-e', `console.log(JSON.stringify(Object.keys(await import('authkoa'))))`]))
      .stdout,
  ) as string[];
  const { blocks, sources, names } = checkedFiles(
    ['ts'],
    exported.filter((n) => n !== 'default'),
  );
  for (const [i, name] of names.entries()) await writeFile(join(project, name), sources[i]!.text);
  const tscBin = join(dir, 'node_modules', '.bin', 'tsc');
  const output = await run(tscBin, ['-p', project, '--pretty', 'false'], {
    cwd: project,
    env,
    maxBuffer: 16 << 20,
  }).then(
    ({ stdout }) => stdout,
    (err: { stdout?: string }) => err.stdout || String(err),
  );
  const { diagnostics, other } = parseTscOutput(output, names);
  t.deepEqual(blockProblems(blocks, sources, diagnostics), []);
  t.deepEqual(other, []);
  t.log(`${blocks.length - 1} blocks and the type test, ${(await run(tscBin, ['--version'], { env })).stdout.trim()}`);
});

test('a feature whose optional package is not installed fails at start-up with one line naming the package', async (t) => {
  const { stdout } = await node([
    '--input-type=module',
    '-e',
    `import { authKoa, emailSender } from 'authkoa';
    const base = { secret: 's'.repeat(32), url: 'http://127.0.0.1:1' };
    const direct = { kind: 'direct', name: 'local', checker: () => true };
    const cases = {
      mongodb: { ...base, avatarStore: 'mongodb://127.0.0.1:1/db', providers: [direct] },
      ioredis: { ...base, stateStore: 'redis://127.0.0.1:1/0', providers: [direct] },
      pg: { ...base, stateStore: 'postgres://127.0.0.1:1/db', providers: [direct] },
      '@opentelemetry/api': { ...base, telemetry: true, providers: [direct] },
      '@simplewebauthn/server': { ...base, url: 'http://localhost:1', providers: [{ kind: 'passkey', rpName: 'x' }] },
      'node-telegram-bot-api': { ...base, providers: [{ kind: 'telegram', token: '1:abc' }] },
      nodemailer: { ...base, providers: [{ kind: 'verified', name: 'email', sender: emailSender({ host: '127.0.0.1', from: 'a@b.example' }) }] },
      jimp: { ...base, avatarStore: 'lmdb://${join(dir, 'resize')}', avatarResizeLimit: 64, providers: [direct] },
      'koa-session': { ...base, providers: [{ kind: 'server', url: 'http://127.0.0.1:0', checker: () => true }] },
    };
    const out = {};
    for (const [pkg, opts] of Object.entries(cases)) {
      const auth = authKoa(opts);
      out[pkg] = await auth.ready.then(() => 'started', (err) => ({ message: err.message, stack: err.stack }));
      await auth.close();
    }
    console.log(JSON.stringify(out));`,
  ]);
  const results = JSON.parse(stdout) as Record<string, { message: string; stack: string }>;
  for (const pkg of OPTIONAL_PEERS) {
    const r = results[pkg]!;
    t.regex(
      r.message,
      new RegExp(`^authKoa: .* needs the package "${pkg}", which is not installed: npm install ${pkg}$`),
      pkg,
    );
    t.false(r.stack.includes('\n'), `${pkg}: the error prints as one line`);
  }
});

test('the installed authctl runs without optional packages; `authctl bot` names the one it needs', async (t) => {
  const authctl = join(dir, 'node_modules', '.bin', 'authctl');
  const secret = await run(authctl, ['secret'], { cwd: dir, env });
  t.regex(secret.stdout.trim(), /^[A-Za-z0-9_-]{43}$/);
  const bot = await run(authctl, ['bot', '--token', '1:abc', '--store', `lmdb://${join(dir, 'state')}`], {
    cwd: dir,
    env,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code: number; stderr: string }) => err,
  );
  t.is(bot.code, 1);
  t.is(
    bot.stderr,
    'authctl: the bot command needs the package "node-telegram-bot-api", which is not installed: npm install node-telegram-bot-api\n',
  );
});

/** The README's shell lines, comments dropped. */
function readmeShellLines(): string[] {
  return docBlocks()
    .filter((b) => b.file === 'README.md' && b.lang === 'sh')
    .flatMap((b) => b.code.split('\n'))
    .map((line) => line.replace(/\s#.*$/, '').trim());
}

/** Answers once `url` answers at all; rejects with the output when the process ends first. */
async function answering(child: ReturnType<typeof spawn>, url: string, output: () => string): Promise<void> {
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`the app exited: ${output()}`);
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("the README's TypeScript quick start works as written: its package.json setting and tsconfig, server.ts type-checked by tsc under strict and run by tsx", async (t) => {
  t.timeout(3 * 60_000);
  const project = join(dir, 'readme-app');
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'readme-app', private: true }));
  const lines = readmeShellLines();
  // Its packages were installed by the README's own commands (test.before); then its `npm pkg set` lines.
  for (const line of lines.filter((l) => l.startsWith('npm pkg set '))) await npm(line.split(/\s+/).slice(1), project);
  const readme = docBlocks().filter((b) => b.file === 'README.md');
  const tsconfig = readme.find((b) => b.lang === 'json' && b.code.includes('compilerOptions'));
  const server = readme.find((b) => b.lang === 'ts' && b.code.includes('.listen('));
  if (!tsconfig || !server) throw new Error('the README has no tsconfig.json block or no app block');
  t.regex(tsconfig.code, /"strict": true/);
  const run = lines.find((l) => l.endsWith('npx tsx server.ts'));
  t.truthy(run, 'the README runs the app with `npx tsx server.ts`');
  t.true(lines.includes('npx tsc'), 'the README type-checks it with `npx tsc`');
  await writeFile(join(project, 'tsconfig.json'), tsconfig.code);
  await writeFile(join(project, 'server.ts'), server.code);
  const bin = (name: string) => join(dir, 'node_modules', '.bin', name);
  // `npx tsc` in the app's folder: its tsconfig.json, the installed TypeScript.
  const checked = await promisify(execFile)(bin('tsc'), ['--pretty', 'false'], { cwd: project, env }).then(
    ({ stdout }) => stdout,
    (err: { stdout?: string }) => err.stdout || String(err),
  );
  t.is(checked, '', checked);
  // `AUTH_SECRET=$(npx authctl secret) npx tsx server.ts`, on a free port instead of 8080.
  t.regex(run ?? '', /^AUTH_SECRET=\$\(npx authctl secret\) /);
  const secret = (await promisify(execFile)(bin('authctl'), ['secret'], { cwd: project, env })).stdout.trim();
  const port = await freePort();
  await writeFile(join(project, 'server.ts'), server.code.replaceAll('8080', String(port)));
  // tsx runs the app in a child process of its own: the app is stopped with its process group.
  const child = spawn(bin('tsx'), ['server.ts'], {
    cwd: project,
    env: { ...env, AUTH_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const closed = once(child, 'close');
  t.teardown(async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group has ended already
    }
    await closed;
  });
  const base = `http://localhost:${port}`;
  await answering(child, `${base}/auth/list`, () => output);
  const login = await fetch(`${base}/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'demo', passwd: 'demo' }),
  });
  t.is(login.status, 200, output);
  const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN='))!.slice('XSRF-TOKEN='.length);
  const page = await fetch(`${base}/api/private`, { headers: { cookie: cookies.join('; '), 'x-xsrf-token': xsrf } });
  t.deepEqual({ status: page.status, body: await page.json() }, { status: 200, body: { hello: 'demo' } });
});

/** Every file under `path`, relative to it. */
async function filesIn(path: string, under = path): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    if (entry.isDirectory()) found.push(...(await filesIn(p, under)));
    else if (entry.isFile()) found.push(relative(under, p));
  }
  return found;
}

test("every source map reference of the installed package resolves: each sourceMappingURL names a file it ships, and each map's sources are inlined or shipped", async (t) => {
  const pkg = join(dir, 'node_modules', 'authkoa');
  const files = await filesIn(pkg);
  const problems: string[] = [];
  const maps = new Set(files.filter((f) => f.endsWith('.map')));
  let references = 0;
  for (const file of files.filter((f) => /\.(m|c)?js$|\.d\.(m|c)?ts$|\.css$/.test(f))) {
    // Only the comment that ends a file is a reference: the same words inside a bundle's code are not.
    const url = /[#@] sourceMappingURL=(\S+)\s*(\*\/)?\s*$/.exec(await readFile(join(pkg, file), 'utf8'))?.[1];
    if (!url) continue;
    references++;
    if (url.startsWith('data:')) continue; // an inline map: its sources are checked below only when in a file
    const map = relative(pkg, join(pkg, dirname(file), decodeURIComponent(url)));
    if (!existsSync(join(pkg, map))) problems.push(`${file}: its map ${url} is not in the package`);
    else maps.add(map);
  }
  for (const map of maps) {
    const {
      sources = [],
      sourcesContent = [],
      sourceRoot = '',
    } = JSON.parse(await readFile(join(pkg, map), 'utf8')) as {
      sources?: string[];
      sourcesContent?: (string | null)[];
      sourceRoot?: string;
    };
    sources.forEach((source, i) => {
      if (typeof sourcesContent[i] === 'string') return;
      if (!existsSync(join(pkg, dirname(map), sourceRoot, source)))
        problems.push(`${map}: its source ${source} is neither inlined nor in the package`);
    });
  }
  t.log(`${references} sourceMappingURL comments, ${maps.size} map files`);
  t.deepEqual(problems.slice(0, 10), [], `${problems.length} problems`);
});
