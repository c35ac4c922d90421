/**
 * The code in README.md and docs/*.md works when copied. The complete apps (the README's wiring and
 * getting-started's two, with its page) are run as written, only the port changed, and logged in to over HTTP;
 * client.md's Node script runs against the reference app; every
 * TypeScript block is type-checked under `strict` against lib/ by the rules of ../package/doc-blocks.ts
 * (JavaScript blocks only for the names they use). consume.test.ts checks the same against the packed
 * tarball, with what the docs have a user install.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import ts from 'typescript';
import * as authkoa from '../../lib/index.js';
import { allDdl } from '../../bin/commands/db-schema.js';
import { startCheckedExample } from '../helpers/example.js';
import {
  ROOT,
  blockProblems,
  checkedFiles,
  docBlocks,
  type BlockDiagnostic,
  type DocBlock,
} from '../package/doc-blocks.js';
import { freePort } from '../helpers/ports.js';

/** The source file of each package entry point, from package.json's exports (./dist/lib/x.js → lib/x.ts). */
function packagePaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { default: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [entry, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (file.startsWith('./dist/') && file.endsWith('.js'))
      paths[entry.replace(/^\./, 'authkoa')] = [join(ROOT, file.slice(7, -3) + '.ts')];
  }
  return paths;
}

/** Answers once the app at `url` accepts connections; rejects when the process exits first. */
async function listening(child: ChildProcess, url: string, log: () => string): Promise<void> {
  let exited = false;
  child.once('exit', () => (exited = true));
  for (const deadline = Date.now() + 90_000; Date.now() < deadline;) {
    if (exited) throw new Error(`the snippet exited: ${log()}`);
    const up = await fetch(url).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the snippet did not listen: ${log()}`);
}

/**
 * Runs a snippet as a user would after copying it into app.ts: in its own folder (under the repository,
 * so koa and @koa/router resolve), with `authkoa` pointing at this checkout and 8080 changed to a free port.
 */
async function runApp(
  t: ExecutionContext,
  s: DocBlock,
  env: Record<string, string> = {},
  files: Record<string, string> = {},
): Promise<{ base: string; dir: string; output: () => string }> {
  const dir = join(ROOT, 'spec', '.cache', `snippet-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const code = s.code
    .replace(/from 'authkoa'/g, `from '${join(ROOT, 'lib', 'index.ts')}'`)
    .replaceAll('8080', String(port));
  writeFileSync(join(dir, 'app.ts'), code);
  writeFileSync(join(dir, '.auth-secret'), randomBytes(32).toString('base64url') + '\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const child = spawn(process.execPath, ['--import=tsx', 'app.ts'], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  });
  const base = `http://localhost:${port}`;
  await listening(child, `${base}/auth/list`, () => output);
  return { base, dir, output: () => output };
}

/** Logs in as demo/demo like the page of getting-started, then calls `path` with the XSRF header. */
async function loginAndCall(base: string, path: string): Promise<{ status: number; body: unknown }> {
  const login = await fetch(`${base}/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'demo', passwd: 'demo' }),
  });
  if (login.status !== 200) return { status: login.status, body: await login.json() };
  const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN='))!.slice('XSRF-TOKEN='.length);
  const res = await fetch(base + path, { headers: { cookie: cookies.join('; '), 'x-xsrf-token': xsrf } });
  return { status: res.status, body: await res.json() };
}

const first = (file: string) => docBlocks().find((s) => s.file === file && s.lang === 'ts')!;

test("the README's app runs as copied: demo/demo logs in and the protected route answers", async (t) => {
  const { base } = await runApp(t, first('README.md'), { AUTH_SECRET: randomBytes(32).toString('base64url') });
  t.deepEqual(await loginAndCall(base, '/api/private'), { status: 200, body: { hello: 'demo' } });
});

/** The addresses getting-started.md names (http://localhost:8080…), each once. */
function guideAddresses(): string[] {
  const guide = readFileSync(join(ROOT, 'docs', 'getting-started.md'), 'utf8');
  return [...new Set(guide.match(/http:\/\/localhost:8080[^\s`'")]*/g))];
}

/** getting-started's app of one kind (`password`: accounts, `direct`: its own checkPassword). */
const guideApp = (kind: 'password' | 'direct') =>
  docBlocks().find(
    (s) => s.file === 'docs/getting-started.md' && s.lang === 'ts' && s.code.includes(`kind: '${kind}'`),
  )!;
/** The routes only a password provider has: the checker's app answers them 404, as it should. */
const ACCOUNT_ROUTES = /\/auth\/local\/(signup|confirm|reset)/;

test("getting-started's app runs as copied: its own checkPassword lets demo/demo in, a wrong password not", async (t) => {
  const page = docBlocks().find((s) => s.file === 'docs/getting-started.md' && s.lang === 'html')!;
  const { base } = await runApp(t, guideApp('direct'), {}, { 'index.html': page.code });
  const me = await loginAndCall(base, '/api/me');
  t.is(me.status, 200, JSON.stringify(me.body));
  t.like(me.body, { name: 'demo' });
  const wrong = await fetch(`${base}/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'demo', passwd: 'nope' }),
  });
  t.is(wrong.status, 403);
  // Every address the guide names is one the app answers: the page at /, then the routes (none a 404); the
  // accounts' routes are the other app's, checked below.
  const addresses = guideAddresses().filter((a) => !ACCOUNT_ROUTES.test(a));
  t.true(addresses.includes('http://localhost:8080'), addresses.join(' '));
  for (const address of addresses) {
    const res = await fetch(address.replace('http://localhost:8080', base));
    t.not(res.status, 404, address);
  }
  const home = await fetch(`${base}/`);
  t.is(home.status, 200);
  t.regex(await home.text(), /<form id="login">/, 'the page of the guide is served at /');
});

test("getting-started's accounts app runs as copied: sign-up → the link it prints → confirmed and logged in; the page's login with the address", async (t) => {
  const page = docBlocks().find((s) => s.file === 'docs/getting-started.md' && s.lang === 'html')!;
  const { base, output } = await runApp(t, guideApp('password'), {}, { 'index.html': page.code });
  const json = { 'content-type': 'application/json' };
  const email = 'ann@example.com';
  const password = 'correct horse battery';
  const signup = await fetch(`${base}/auth/local/signup`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email, password, name: 'Ann' }),
  });
  t.is(signup.status, 202);
  let link: string | undefined;
  for (const deadline = Date.now() + 30_000; !link && Date.now() < deadline;) {
    link = /http:\/\/localhost:\d+\/auth\/local\/confirm\?token=\S+/.exec(output())?.[0];
    if (!link) await new Promise((r) => setTimeout(r, 100));
  }
  if (!link) return t.fail(`no link printed: ${output()}`);
  t.true(link.startsWith(`${base}/`), 'the link leads to the app');
  const confirmPage = await fetch(link);
  t.is(confirmPage.status, 200);
  t.regex(await confirmPage.text(), /<button[^>]*>Confirm</);
  const confirmed = await fetch(`${base}/auth/local/confirm`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ token: new URL(link).searchParams.get('token') }),
  });
  t.is(confirmed.status, 200);
  t.like(await confirmed.json(), { name: 'Ann', email });
  // The page's form, as a script posts it: the address in `user`.
  const login = await fetch(`${base}/auth/local/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ user: email, passwd: password }),
  });
  t.is(login.status, 200);
  const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN='))!.slice('XSRF-TOKEN='.length);
  const me = await fetch(`${base}/api/me`, { headers: { cookie: cookies.join('; '), 'x-xsrf-token': xsrf } });
  t.like(await me.json(), { name: 'Ann', email });
  // Every address the guide names is one this app answers too (none a 404), the accounts' routes included.
  for (const address of guideAddresses()) {
    const res = await fetch(address.replace('http://localhost:8080', base));
    t.not(res.status, 404, address);
  }
});

test("client.md's Node block runs as written against the reference app: logged in, the route answers, then no_token", async (t) => {
  const block = docBlocks().find(
    (s) => s.file === 'docs/client.md' && s.lang === 'ts' && /baseURL: 'http:\/\/[^']+:8080'/.test(s.code),
  );
  if (!block) throw new Error('client.md has no Node block with a baseURL on port 8080');
  const dir = join(ROOT, 'spec', '.cache', `client-snippet-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(dir, 'var'),
    env: {},
    log: () => {},
  });
  t.teardown(() => app.close());
  t.regex(app.url, /^http:\/\/localhost:\d+$/);
  // Only the port changes: the host is the doc's, and the reference app answers at one address.
  const code = block.code
    .replace(`from 'authkoa/client'`, `from '${join(ROOT, 'browser', 'client.ts')}'`)
    .replaceAll(':8080', `:${new URL(app.url).port}`);
  writeFileSync(join(dir, 'client.ts'), code);
  const child = spawn(process.execPath, ['--import=tsx', 'client.ts'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const [exitCode] = (await once(child, 'exit')) as [number];
  t.is(exitCode, 0, output);
  const lines = output.trim().split('\n');
  t.regex(lines[0]!, /^200 /, output);
  t.regex(output, /name: 'demo'/);
  t.is(lines.at(-1), 'no_token', output);
});

/**
 * The repository has jQuery 4 (no types of its own) but not @types/jquery, which rest-client.md has a
 * TypeScript reader install: this stands in for it with the part `restClient($)` reads.
 */
const JQUERY_STAND_IN = `declare module 'jquery' {
  const jQuery: { ajax(settings: object): unknown; param(data: object): string };
  export default jQuery;
}
`;

test('every TypeScript block type-checks under strict against lib/, and every JavaScript block names only what it has', (t) => {
  const dir = join(ROOT, 'spec', '.cache', `snippets-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { blocks, sources, names } = checkedFiles(
    ['ts', 'js'],
    Object.keys(authkoa).filter((n) => n !== 'default'),
  );
  const files = names.map((name, i) => {
    writeFileSync(join(dir, name), sources[i]!.text);
    return join(dir, name);
  });
  writeFileSync(join(dir, 'jquery.d.ts'), JQUERY_STAND_IN);
  const program = ts.createProgram([...files, join(dir, 'jquery.d.ts')], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    paths: packagePaths(),
  });
  const diagnostics: BlockDiagnostic[] = files.flatMap((file, block) => {
    const source = program.getSourceFile(file)!;
    return ts.getPreEmitDiagnostics(program, source).map((d) => ({
      block,
      line: source.getLineAndCharacterOfPosition(d.start ?? 0).line,
      code: d.code,
      message: ts.flattenDiagnosticMessageText(d.messageText, ' '),
    }));
  });
  t.deepEqual(blockProblems(blocks, sources, diagnostics), []);
});

test("docs/scaling.md's PostgreSQL DDL is what `authctl db migrate --print` and the stores create, for the default schema and prefix", (t) => {
  const doc = readFileSync(join(ROOT, 'docs', 'scaling.md'), 'utf8');
  const blocks = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]);
  t.is(blocks.length, 1, 'one sql block');
  t.is(
    blocks[0],
    allDdl({ schema: 'public', prefix: 'authkoa_' })
      .map((s) => `${s};\n`)
      .join(''),
  );
});
