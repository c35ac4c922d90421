/** The outbound helpers every third-party call goes through: request() and the capped fetch given to the Telegram client. */
import test from 'ava';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cappedFetch, HttpError, request } from '../../lib/http/client.js';
import { serve } from '../helpers/http.js';

/** A peer that answers by path: a big body (declared or streamed), a redirect, a small JSON, a hang. */
async function peer() {
  let hung: ServerResponse | undefined;
  const served = await serve((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/big-declared')
      return void res.writeHead(200, { 'content-length': String(2 << 20) }).end(Buffer.alloc(2 << 20, 1));
    if (req.url === '/big-streamed') {
      res.writeHead(200);
      for (let i = 0; i < 32; i++) res.write(Buffer.alloc(64 << 10, 1));
      return void res.end();
    }
    if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
    if (req.url === '/hang') {
      hung = res;
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result: [1, 2, 3] }));
  });
  return { url: served.url, close: () => (hung?.destroy(), served.close()) };
}

test('cappedFetch: a body over the cap is refused whether declared or streamed; a small one reads as usual', async (t) => {
  const p = await peer();
  t.teardown(() => p.close());
  const f = cappedFetch(1 << 20);
  for (const path of ['/big-declared', '/big-streamed']) {
    const err = await t.throwsAsync(f(p.url + path), { instanceOf: HttpError }, path);
    t.is(err!.reason, 'too_large', path);
  }
  const ok = await f(p.url + '/json');
  t.is(ok.status, 200);
  t.deepEqual(await ok.json(), { ok: true, result: [1, 2, 3] });
});

test('cappedFetch does not follow redirects: the 302 itself is the answer', async (t) => {
  const p = await peer();
  t.teardown(() => p.close());
  const res = await cappedFetch(1 << 20)(p.url + '/redirect');
  t.is(res.status, 302);
  t.is(res.headers.get('location'), 'http://127.0.0.1:1/elsewhere');
});

test("request(): the caller's signal abandons a call the peer never answers", async (t) => {
  const p = await peer();
  t.teardown(() => p.close());
  const controller = new AbortController();
  const pending = request(p.url + '/hang', { timeoutMs: 60 * 60_000, signal: controller.signal });
  controller.abort();
  const err = await t.throwsAsync(pending, { instanceOf: HttpError });
  t.is(err!.reason, 'network', 'abandoned by the signal, not by the hour-long deadline');
});
