/**
 * The demo answers under one address. Listening on 127.0.0.1 it publishes http://localhost:<port>
 * (passkeys need a host name); a browser sent to http://127.0.0.1:<port>, as the README once said, is
 * redirected there first, so every flow works from either address, and a POST there is told where to go.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { publicUrl, type RunningExample } from '../../example/app.js';
import { startCheckedExample } from '../helpers/example.js';
import { tempDir } from '../helpers/temp.js';

async function demo(
  t: Parameters<typeof tempDir>[0],
): Promise<{ app: RunningExample; direct: string; lines: string[] }> {
  const dir = tempDir(t, 'authkoa-public-host-');
  const lines: string[] = [];
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(dir, 'var'),
    env: {},
    log: (l) => lines.push(l),
  });
  t.teardown(() => app.close());
  return { app, direct: app.url.replace('localhost', '127.0.0.1'), lines };
}

/** A browser in miniature: one cookie jar per host name, redirects followed, the last response returned. */
class Browser {
  readonly jars = new Map<string, Map<string, string>>();

  async go(
    url: string,
    init: { method?: string; form?: Record<string, string>; origin?: string } = {},
  ): Promise<{ url: string; res: Response }> {
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hops = 0; hops < 10; hops++) {
      const jar = this.jar(url);
      const headers: Record<string, string> = { accept: 'text/html' };
      if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      if (method === 'POST') headers.origin = init.origin ?? new URL(url).origin;
      const res = await fetch(url, { method, headers, body, redirect: 'manual' });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const i = pair!.indexOf('=');
        const [name, value] = [pair!.slice(0, i), pair!.slice(i + 1)];
        if (value === '' || /max-age=0/i.test(c)) jar.delete(name);
        else jar.set(name, value);
      }
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { url, res };
      url = new URL(location, url).href;
      if (res.status !== 307 && res.status !== 308) [method, body] = ['GET', undefined];
    }
    throw new Error('too many redirects');
  }

  jar(url: string): Map<string, string> {
    const host = new URL(url).hostname;
    if (!this.jars.has(host)) this.jars.set(host, new Map());
    return this.jars.get(host)!;
  }
}

test('GET and HEAD under the listen address are redirected to the same path on the public URL', async (t) => {
  const { app, direct } = await demo(t);
  t.regex(app.url, /^http:\/\/localhost:\d+$/);
  for (const [path, method] of [
    ['/', 'GET'],
    ['/auth/dev/login?from=%2F&site=x', 'GET'],
    ['/outbox', 'HEAD'],
    ['//evil.example/x', 'GET'],
  ] as const) {
    const res = await fetch(direct + path, { method, redirect: 'manual' });
    t.is(res.status, 302, path);
    // A path that looks like a host (//evil.example) stays a path on the demo's own host.
    t.is(res.headers.get('location'), app.url + path, path);
  }
  const page = await fetch(`${app.url}/`);
  t.is(page.status, 200, 'the public URL itself is served');
});

test('a POST under the listen address is a 421 JSON naming the public URL, not a half-done login', async (t) => {
  const { app, direct } = await demo(t);
  const res = await fetch(`${direct}/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: direct },
    body: JSON.stringify({ user: 'demo', passwd: 'demo' }),
  });
  t.is(res.status, 421);
  t.deepEqual(res.headers.getSetCookie(), []);
  const body = (await res.json()) as { error: string; code: string };
  t.is(body.code, 'wrong_host');
  t.true(body.error.includes(`open ${app.url}/`), body.error);
});

test('the dev login started at http://127.0.0.1:<port> ends logged in, as at the public URL', async (t) => {
  const { app, direct } = await demo(t);
  for (const start of [direct, app.url]) {
    const browser = new Browser();
    // Before the redirect existed, the state cookie was set on 127.0.0.1 and the callback came back to
    // localhost without it: raw JSON invalid_handshake.
    const form = await browser.go(`${start}/auth/dev/login?from=%2F`);
    t.is(form.res.status, 200, start);
    const html = await form.res.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!.replace(/&#38;/g, '&');
    const done = await browser.go(new URL(action, form.url).href, { method: 'POST', form: { username: 'alice' } });
    t.is(done.res.status, 200, start);
    t.is(done.url, `${app.url}/`, start);
    const jar = browser.jar(app.url);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const user = await fetch(`${app.url}/auth/user`, {
      headers: { cookie, 'x-xsrf-token': jar.get('XSRF-TOKEN') ?? '' },
    });
    t.is(user.status, 200);
    t.is(((await user.json()) as { name: string }).name, 'alice');
  }
});

test('the demo, the README and getting-started name one address: http://localhost:8080', async (t) => {
  const { app, direct, lines } = await demo(t);
  const port = new URL(app.url).port;
  t.true(lines.includes(`authkoa example listening on http://localhost:${port} (address 127.0.0.1)`), lines.join('\n'));
  t.true(lines.includes(`  open:      http://localhost:${port}/ (${direct}/ redirects here)`), lines.join('\n'));
  t.is(publicUrl('127.0.0.1', 8080).url, 'http://localhost:8080', 'what `npm start` publishes');
  const root = join(import.meta.dirname, '..', '..');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const gettingStarted = readFileSync(join(root, 'docs', 'getting-started.md'), 'utf8');
  // Every line that tells where the demo (npm start) runs names the address it publishes.
  const demoLines = readme
    .split('\n')
    .filter((l) => /npm start|reference app/.test(l) && /https?:\/\/[\w.[\]:]+:8080/.test(l));
  t.true(demoLines.length >= 2, demoLines.join('\n'));
  for (const line of demoLines) t.notRegex(line, /127\.0\.0\.1:8080/, line);
  for (const line of demoLines) t.regex(line, /http:\/\/localhost:8080/, line);
  // The app the guides build publishes the address it is opened at, the same one.
  for (const text of [readme, gettingStarted]) {
    t.regex(text, /url: 'http:\/\/localhost:8080'/);
    t.notRegex(text, /url: 'http:\/\/127\.0\.0\.1:8080'/);
  }
});
