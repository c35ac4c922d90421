/**
 * Browser-test peers: a local HTTP server that serves jQuery and the built plugin and records
 * every other request, and headless Chromium (Debian's, never downloaded) driven by
 * playwright-core. One Chromium per test file; one reused page per jQuery version.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdir, readFile, readdir, rename, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestFn } from 'ava';
import type { JQueryLike, RestClientConstructor } from '../../browser/index.js';
import { withTempDir } from './temp.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const distDir = join(root, 'dist', 'browser');

/** The jQuery builds the suite runs against. */
export const JQUERIES = ['jq3', 'jq4'] as const;
export type JQ = (typeof JQUERIES)[number];

/** One request as the server saw it. */
export interface RecordedRequest {
  method: string;
  url: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
}

/** The recording server. */
export interface RestServer {
  readonly origin: string;
  /** The same server under another host name (localhost), i.e. a different origin for CORS tests. */
  readonly otherOrigin: string;
  readonly requests: RecordedRequest[];
  /** A fresh base path (`/t<k>/api`) so concurrent tests never see each other's requests. */
  newBase(): string;
  /** The recorded requests whose path starts with `prefix`. */
  under(prefix: string): RecordedRequest[];
  close(): Promise<void>;
}

const STATIC: Record<string, [string, string]> = {
  '/vendor/jq3.js': [join(root, 'node_modules/jquery3/dist/jquery.js'), 'text/javascript'],
  '/vendor/jq4.js': [join(root, 'node_modules/jquery/dist/jquery.js'), 'text/javascript'],
  '/vendor/jq4.module.js': [join(root, 'node_modules/jquery/dist-module/jquery.module.js'), 'text/javascript'],
  '/dist/jquery.rest.js': [join(distDir, 'jquery.rest.js'), 'text/javascript'],
  '/dist/jquery.rest.min.js': [join(distDir, 'jquery.rest.min.js'), 'text/javascript'],
  '/dist/index.js': [join(distDir, 'index.js'), 'text/javascript'],
};

function pageHtml(jq: string, bundle: string): string {
  return `<!doctype html><meta charset="utf-8"><title>${jq}</title>
<script src="/vendor/${jq}.js"></script><script src="/dist/${bundle}"></script>`;
}

const PAGES: Record<string, string> = {
  '/page/jq3.html': pageHtml('jq3', 'jquery.rest.js'),
  '/page/jq4.html': pageHtml('jq4', 'jquery.rest.js'),
  '/page/jq3.min.html': pageHtml('jq3', 'jquery.rest.min.js'),
  '/page/jq4.min.html': pageHtml('jq4', 'jquery.rest.min.js'),
  '/page/bare.html': '<!doctype html><meta charset="utf-8"><title>bare</title>',
  '/page/esm.html': `<!doctype html><meta charset="utf-8"><title>esm</title>
<script type="module">
import $ from '/vendor/jq4.module.js';
import restClient, { VERSION } from '/dist/index.js';
window.esm = { $, RestClient: restClient($), again: restClient($), VERSION, globalJQuery: typeof window.jQuery };
</script>`,
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Starts the server on 127.0.0.1 (random port). Any path outside /vendor, /dist and /page is
 * recorded and answered with JSON `{n, method, url}` (with CORS headers for the request's Origin; OPTIONS preflights are recorded and answered 204) (n counts recorded requests, so a cached
 * answer shows an old n). A `status=<code>` query parameter sets the response status.
 */
export async function startRestServer(): Promise<RestServer> {
  const requests: RecordedRequest[] = [];
  let bases = 0;
  const server: Server = createServer(async (req, res) => {
    const url = req.url ?? '/';
    const [path = '/', query = ''] = url.split(/\?(.*)/s);
    const page = PAGES[path];
    if (page !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      return;
    }
    const file = STATIC[path];
    if (file) {
      try {
        res.writeHead(200, { 'content-type': file[1], 'cache-control': 'no-store' }).end(await readFile(file[0]));
      } catch {
        res.writeHead(404).end();
      }
      return;
    }
    const origin = req.headers.origin;
    const cors: Record<string, string> = origin
      ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' }
      : {};
    const body = await readBody(req);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
    requests.push({ method: req.method ?? '', url, path, query, headers, body });
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...cors,
        'access-control-allow-methods': req.headers['access-control-request-method'] ?? 'GET',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
      });
      res.end();
      return;
    }
    const status = Number(new URLSearchParams(query).get('status') ?? 200) || 200;
    const json = JSON.stringify({ n: requests.length, method: req.method, url });
    res.writeHead(status, { ...cors, 'content-type': 'application/json' });
    res.end(req.method === 'HEAD' ? undefined : json);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    otherOrigin: `http://localhost:${port}`,
    requests,
    newBase: () => `/t${++bases}/api`,
    under: (prefix) => requests.filter((r) => r.path.startsWith(prefix + '/') || r.path === prefix),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function mtime(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * Builds the bundles with browser/build.mjs when one is missing (a fresh clone has no dist/) or older
 * than a browser/*.ts or browser/client/*.ts source. It builds into a private folder under dist/ and renames each file into
 * dist/browser, so test files starting at once never serve a half-written bundle: each rename is
 * atomic, and the last one wins with the same bytes.
 */
export async function ensureBrowserBundle(): Promise<void> {
  const srcDir = join(root, 'browser');
  // The sources: browser/*.ts and build.mjs, and the client's modules under browser/client/.
  const sources = [
    ...(await readdir(srcDir)),
    ...(await readdir(join(srcDir, 'client'))).map((f) => join('client', f)),
  ].filter((f) => f.endsWith('.ts') || f.endsWith('.mjs'));
  const newestSource = Math.max(...(await Promise.all(sources.map((f) => mtime(join(srcDir, f))))));
  const mod = (await import(pathToFileURL(join(srcDir, 'build.mjs')).href)) as {
    bundles: string[];
    buildBrowser(o: { dir: string; declarations: boolean }): Promise<string>;
  };
  const built = await Promise.all(mod.bundles.map((f) => mtime(join(distDir, f))));
  if (built.every((t) => t >= newestSource)) return;
  // A fresh clone has no dist/ at all until something builds it.
  await mkdir(join(root, 'dist'), { recursive: true });
  await withTempDir(
    '.browser-build-',
    async (tmp) => {
      await mod.buildBrowser({ dir: tmp, declarations: false });
      await mkdir(distDir, { recursive: true });
      for (const f of mod.bundles) await rename(join(tmp, f), join(distDir, f));
    },
    join(root, 'dist'),
  );
}

/**
 * One Chromium for a test file: built bundles and a browser before the first test, closed after the
 * last. Returns the getter the tests call.
 */
export function useChromium(test: TestFn): () => Browser {
  let browser: Browser | undefined;
  test.before(async () => {
    await ensureBrowserBundle();
    browser = await launchChromium();
  });
  test.after.always(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/**
 * Gives `page`'s context a CDP virtual authenticator, as a platform passkey store would be: CTAP2,
 * built in, resident keys, user verification done and presence confirmed without a prompt.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

/** Launches Debian's headless Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

/** jQuery as seen inside the test page, with the plugin attached. */
export type PageJQuery = JQueryLike & { RestClient: RestClientConstructor; fn: { jquery: string } };

/** What a settled verb deferred delivered to its callbacks. */
export interface Settled {
  ok: boolean;
  data: any;
  textStatus: string;
  status: number;
  /** The third done argument had the XHR surface (status, getResponseHeader). */
  xhrLike: boolean;
}

/** What in-page test code receives. */
export interface PageEnv<A> {
  $: PageJQuery;
  base: string;
  arg: A;
  /** Waits for a deferred and reports what its done/fail callbacks received. */
  settle(deferred: any): Promise<Settled>;
  /** Runs `fn` and returns the thrown error's message and code (or null if nothing was thrown). */
  caught(fn: () => unknown): { message: string; code: string; name: string } | null;
}

// tsx (esbuild, keepNames) may wrap functions in `__name(...)`; serialised functions need it in the page.
const INIT = `
window.__name = (f) => f;
window.__settle = (d) => new Promise((resolve) => {
  d.done((data, textStatus, xhr) => resolve({ ok: true, data, textStatus, status: xhr && xhr.status,
      xhrLike: !!xhr && typeof xhr.status === 'number' && typeof xhr.getResponseHeader === 'function' }))
   .fail((xhr, textStatus) => resolve({ ok: false, data: null, textStatus, status: xhr && xhr.status, xhrLike: !!xhr }));
});
window.__caught = (fn) => { try { fn(); return null; } catch (e) { return { message: String(e && e.message), code: String(e && e.code), name: String(e && e.name) }; } };
`;

/** Opens a page that has `jq` and the plugin loaded. */
export async function openPluginPage(browser: Browser, server: RestServer, page: string): Promise<Page> {
  const p = await browser.newPage();
  await p.addInitScript(INIT);
  p.on('pageerror', (err) => console.error(`[${page}] page error: ${err.message}`));
  await p.goto(`${server.origin}/page/${page}.html`);
  return p;
}

/** Runs `fn` inside the page with a fresh base path; returns its value and the requests under that base. */
export async function runInPage<A, R>(
  page: Page,
  server: RestServer,
  fn: (env: PageEnv<A>) => R | Promise<R>,
  arg?: A,
): Promise<{ value: Awaited<R>; requests: RecordedRequest[]; base: string }> {
  const base = server.newBase();
  const value = (await page.evaluate(
    async ({ src, base, arg }) => {
      const w = window as any;
      const run = (0, eval)(`(${src})`);
      return await run({ $: w.jQuery, base, arg, settle: w.__settle, caught: w.__caught });
    },
    { src: fn.toString(), base, arg },
  )) as Awaited<R>;
  return { value, requests: server.under(base), base };
}

/** Per-file harness: one server, one Chromium, one page per jQuery version. */
export interface Harness {
  server: RestServer;
  browser: Browser;
  pages: Record<JQ, Page>;
  run<A, R>(jq: JQ, fn: (env: PageEnv<A>) => R | Promise<R>, arg?: A): ReturnType<typeof runInPage<A, R>>;
}

/** Registers before/after hooks that start and stop the peers; the harness is ready inside tests. */
export function useBrowserHarness(test: TestFn): Harness {
  const h = {} as Harness;
  test.before(async () => {
    await ensureBrowserBundle();
    h.server = await startRestServer();
    h.browser = await launchChromium();
    const [jq3, jq4] = await Promise.all(JQUERIES.map((jq) => openPluginPage(h.browser, h.server, jq)));
    h.pages = { jq3: jq3!, jq4: jq4! };
    h.run = (jq, fn, arg) => runInPage(h.pages[jq], h.server, fn, arg);
  });
  test.after.always(async () => {
    await h.browser?.close();
    await h.server?.close();
  });
  return h;
}
