/**
 * The code in README.md and docs/*.md works when copied. The two complete apps (the README's wiring and
 * getting-started's) are run as written, only the port changed, and logged in to over HTTP; every other
 * TypeScript or JavaScript block is compiled, and may only use names it imports or defines, names the
 * package exports (a fragment's missing import), or names its own comments say are the reader's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import ts from 'typescript';
import * as authkoa from '../../lib/index.js';

const ROOT = join(import.meta.dirname, '..', '..');

interface Snippet {
  file: string;
  line: number;
  lang: string;
  code: string;
}

/** Every fenced block of README.md and docs/*.md, indentation of the fence removed. */
function snippets(): Snippet[] {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const found: Snippet[] = [];
  for (const file of files) {
    let open: { line: number; lang: string; indent: number; lines: string[] } | undefined;
    readFileSync(join(ROOT, file), 'utf8').split('\n').forEach((text, i) => {
      const fence = /^(\s*)```(\w*)\s*$/.exec(text);
      if (fence && !open) open = { line: i + 1, lang: fence[2]!, indent: fence[1]!.length, lines: [] };
      else if (fence && open) {
        found.push({ file, line: open.line, lang: open.lang, code: open.lines.join('\n') });
        open = undefined;
      } else open?.lines.push(text.slice(open.indent));
    });
  }
  return found;
}

/** The source file of each package entry point, from package.json's exports (./dist/lib/x.js → lib/x.ts). */
function packagePaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | { default: string }> };
  const paths: Record<string, string[]> = {};
  for (const [entry, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (file.startsWith('./dist/') && file.endsWith('.js')) paths[entry.replace(/^\./, 'authkoa')] = [join(ROOT, file.slice(7, -3) + '.ts')];
  }
  return paths;
}

/** A free port on 127.0.0.1, for an app whose source names its port. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** Answers once the app at `url` accepts connections; rejects when the process exits first. */
async function listening(child: ChildProcess, url: string, log: () => string): Promise<void> {
  let exited = false;
  child.once('exit', () => (exited = true));
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; ) {
    if (exited) throw new Error(`the snippet exited: ${log()}`);
    const up = await fetch(url).then(() => true, () => false);
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the snippet did not listen: ${log()}`);
}

/**
 * Runs a snippet as a user would after copying it into app.ts: in its own folder (under the repository,
 * so koa and @koa/router resolve), with `authkoa` pointing at this checkout and 8080 changed to a free port.
 */
async function runApp(t: ExecutionContext, s: Snippet, env: Record<string, string> = {}): Promise<{ base: string; dir: string }> {
  const dir = join(ROOT, 'spec', '.cache', `snippet-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const code = s.code.replace(/from 'authkoa'/g, `from '${join(ROOT, 'lib', 'index.ts')}'`).replaceAll('8080', String(port));
  writeFileSync(join(dir, 'app.ts'), code);
  writeFileSync(join(dir, '.auth-secret'), randomBytes(32).toString('base64url') + '\n');
  const child = spawn(process.execPath, ['--import=tsx', 'app.ts'], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  return { base, dir };
}

/** Logs in as demo/demo like the page of getting-started, then calls `path` with the XSRF header. */
async function loginAndCall(base: string, path: string): Promise<{ status: number; body: unknown }> {
  const login = await fetch(`${base}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'demo', passwd: 'demo' }) });
  if (login.status !== 200) return { status: login.status, body: await login.json() };
  const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN='))!.slice('XSRF-TOKEN='.length);
  const res = await fetch(base + path, { headers: { cookie: cookies.join('; '), 'x-xsrf-token': xsrf } });
  return { status: res.status, body: await res.json() };
}

const first = (file: string) => snippets().find((s) => s.file === file && s.lang === 'ts')!;

test("the README's app runs as copied: demo/demo logs in and the protected route answers", async (t) => {
  const { base } = await runApp(t, first('README.md'), { AUTH_SECRET: randomBytes(32).toString('base64url') });
  t.deepEqual(await loginAndCall(base, '/api/private'), { status: 200, body: { hello: 'demo' } });
});

test("getting-started's app runs as copied: its own checkPassword lets demo/demo in, a wrong password not", async (t) => {
  const { base } = await runApp(t, first('docs/getting-started.md'));
  const me = await loginAndCall(base, '/api/me');
  t.is(me.status, 200, JSON.stringify(me.body));
  t.like(me.body, { name: 'demo' });
  const wrong = await fetch(`${base}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'demo', passwd: 'nope' }) });
  t.is(wrong.status, 403);
});

/**
 * The text of every comment of a snippet, found by TypeScript's scanner (a regular expression would take
 * the `//` of `redis://…` for one). Template literals are rescanned at each `}` that closes a `${`.
 */
function commentsOf(text: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const found: string[] = [];
  const braces: boolean[] = []; // per open brace: whether it is a template's `${`
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) found.push(scanner.getTokenText());
    else if (kind === ts.SyntaxKind.TemplateHead || kind === ts.SyntaxKind.OpenBraceToken) braces.push(kind === ts.SyntaxKind.TemplateHead);
    else if (kind === ts.SyntaxKind.CloseBraceToken && braces.pop() && scanner.reScanTemplateToken(false) === ts.SyntaxKind.TemplateMiddle) braces.push(true);
  }
  return found.join('\n');
}

/**
 * Whether a comment of the snippet says `name` is the reader's: a comment line naming it (not as part
 * of a path such as /auth/*) and saying "your", "yours" or "above" (defined in an earlier snippet).
 */
function isMarkedAsYours(name: string, comments: string): boolean {
  const named = new RegExp(`(?<![/.\\w])${name}(?![/\\w])`);
  return comments.split('\n').some((c) => named.test(c) && /\byours?\b|\babove\b/i.test(c));
}

/** Undefined names (and, in complete programs, untyped parameters) of one compiled snippet. */
const UNDEFINED = new Set([2304, 2552, 18004, 2663]);
const UNTYPED = new Set([7006, 7031]);

/**
 * The source a snippet is compiled as. A fragment (no import) gets the package's exports imported, its
 * elisions (`…`, a lone `...`) dropped, and a bare object literal wrapped in parentheses to be an expression.
 */
function compiledSource(s: Snippet): { text: string; before: number } {
  if (/^import /m.test(s.code)) return { text: `${s.code}\nexport {};\n`, before: 0 };
  const names = Object.keys(authkoa).filter((n) => n !== 'default');
  let code = s.code.replace(/…/g, '').replace(/^\s*\.\.\.\s*$/gm, '').replace(/\.\.\.(?=\s*[}\]])/g, '');
  // `{ kind: … }` would parse as a block, `gitlab: { … },` (an object's member) as a label.
  const body = code.replace(/^(\s*\/\/[^\n]*\n)*/, '');
  let before = 1; // the import line
  if (/^\s*\{/.test(body)) code = `(${code})`;
  else if (/^\s*\w+:\s*\{/.test(body)) [code, before] = [`({\n${code}\n})`, 2];
  return { text: `import { ${names.join(', ')} } from 'authkoa';\n${code}\nexport {};\n`, before };
}

test('every TypeScript and JavaScript snippet defines, imports or marks as the reader\'s each name it uses', (t) => {
  const dir = join(ROOT, 'spec', '.cache', `snippets-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const blocks = snippets().filter((s) => s.lang === 'ts' || s.lang === 'js');
  const sources = blocks.map(compiledSource);
  const files = sources.map(({ text }, i) => {
    const file = join(dir, `s${i}.ts`);
    writeFileSync(file, text);
    return file;
  });
  const program = ts.createProgram(files, {
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
  const problems: string[] = [];
  blocks.forEach((s, i) => {
    const source = program.getSourceFile(files[i]!)!;
    // The reader's own names are the ones a comment of the snippet mentions (`// users: your user store`).
    const comments = commentsOf(s.code);
    const complete = sources[i]!.before === 0;
    for (const d of program.getSemanticDiagnostics(source)) {
      if (!UNDEFINED.has(d.code) && !(complete && UNTYPED.has(d.code))) continue;
      const name = source.text.slice(d.start!, d.start! + d.length!);
      if (UNDEFINED.has(d.code) && isMarkedAsYours(name, comments)) continue;
      const line = s.line + 1 + source.getLineAndCharacterOfPosition(d.start!).line - sources[i]!.before;
      problems.push(`${s.file}:${line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
  });
  t.deepEqual(problems, []);
});
