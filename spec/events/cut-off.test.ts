/**
 * A refusal told after its connection is gone: a streamed login body cut off at the size cap leaves the
 * request without a socket, and Koa's `ctx.ip` would throw when the event reads it. The answer stays the
 * 413 JSON, and the event still comes (its `ip` empty when the socket is already gone).
 */
import test from 'ava';
import type { LoginFailedEvent } from '../../lib/index.js';
import { startApp } from '../helpers/http.js';

test('an oversized streamed login body: 413 JSON with a login_failed listener, and the event still comes', async (t) => {
  const app = await startApp({
    secret: 'events-cut-off-secret-0123456789',
    telemetry: false,
    providers: [{ kind: 'direct', name: 'direct', checker: () => true }],
  });
  t.teardown(() => app.close());
  const failed: LoginFailedEvent[] = [];
  app.auth.on('login_failed', (e) => void failed.push(e));
  const stream = new ReadableStream({
    start(c) {
      for (let i = 0; i < 40; i++) c.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
      c.close();
    },
  });
  const res = await fetch(`${app.url}/auth/direct/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  t.is(res.status, 413);
  t.deepEqual(await res.json(), { error: 'request body is too large', code: 'body_too_large' });
  for (let i = 0; i < 100 && failed.length === 0; i++) await new Promise((r) => setImmediate(r));
  t.is(failed.length, 1);
  t.like(failed[0], { provider: 'direct', reason: 'body_too_large', status: 413 });
  t.is(typeof failed[0]!.ip, 'string');
});
