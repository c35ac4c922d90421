/** Hostile request bodies on direct login: oversized (413) and prototype pollution (changes nothing). */
import test from 'ava';
import { Client, startApp } from '../helpers/http.js';

const providers = [
  { kind: 'direct' as const, name: 'direct', checker: (u: string, p: string) => u === 'alice' && p === 'pw' },
];
const secret = 'security-suite-secret-0123456789';

test('an oversized login body is refused with 413 JSON, declared or streamed, and the app stays up', async (t) => {
  const app = await startApp({ secret, providers });
  t.teardown(() => app.close());
  const big = JSON.stringify({ user: 'alice', passwd: 'pw', pad: 'x'.repeat(2 * 1024 * 1024) });
  const declared = await new Client(app.url).fetch('/auth/direct/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: big,
  });
  t.is(declared.status, 413);
  t.is(((await declared.json()) as { code: string }).code, 'body_too_large');
  // Chunked: no Content-Length to trust, the cap is counted while reading.
  const stream = new ReadableStream({
    start(c) {
      for (let i = 0; i < 40; i++) c.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
      c.close();
    },
  });
  const chunked = await fetch(`${app.url}/auth/direct/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  t.is(chunked.status, 413);
  const ok = await new Client(app.url).fetch('/auth/direct/login', {
    method: 'POST',
    json: { user: 'alice', passwd: 'pw' },
  });
  t.is(ok.status, 200);
});

test('a __proto__ / constructor.prototype payload pollutes nothing and grants nothing', async (t) => {
  const app = await startApp({ secret, providers });
  t.teardown(() => app.close());
  const payloads = [
    '{"user":"alice","passwd":"pw","__proto__":{"admin":true,"role":"admin","polluted":1}}',
    '{"user":"alice","passwd":"pw","constructor":{"prototype":{"polluted":1}}}',
    '{"__proto__":{"user":"alice","passwd":"pw"}}',
  ];
  const statuses: number[] = [];
  for (const body of payloads) {
    const c = new Client(app.url);
    const res = await c.fetch('/auth/direct/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    statuses.push(res.status);
    if (res.status === 200) {
      const user = (await res.json()) as Record<string, unknown>;
      t.is(user.role, undefined);
      t.is(user.attrs, undefined);
      t.is((await c.fetch('/admin', { headers: c.xsrf() })).status, 403, 'no admin from the payload');
    }
  }
  t.deepEqual(statuses, [200, 200, 400], 'credentials hidden under __proto__ are not credentials');
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.is((Object.prototype as Record<string, unknown>).admin, undefined);
});
