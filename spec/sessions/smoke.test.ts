import test from 'ava';
import { Client, decodeJwt, startApp } from '../helpers/http.js';

test('smoke: three logins listed, one ended', async (t) => {
  const app = await startApp({ secret: 'sessions-test-secret-0123456789abcdef', providers: [{ kind: 'direct', name: 'direct', checker: () => true }] });
  t.teardown(() => app.close());
  const clients = [new Client(app.url), new Client(app.url), new Client(app.url)];
  for (const [i, c] of clients.entries()) {
    const r = await c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'alice', passwd: 'x' }, headers: { 'user-agent': ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36', 'curl/8.0', 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0'][i]! } });
    t.is(r.status, 200);
  }
  const list = await clients[0]!.fetch('/auth/sessions', { headers: clients[0]!.xsrf() });
  t.is(list.status, 200);
  const body = (await list.json()) as Array<{ sid: string; current: boolean; device: string }>;
  t.is(body.length, 3);
  t.deepEqual(body.map((s) => s.current), [false, false, true]);
  t.log(body.map((s) => s.device));
  const sid1 = decodeJwt(clients[1]!.jar.get('JWT')!).sid;
  const del = await clients[0]!.fetch(`/auth/sessions/${sid1}`, { method: 'DELETE', headers: clients[0]!.xsrf() });
  t.is(del.status, 204);
  t.is(((await (await clients[0]!.fetch('/auth/sessions', { headers: clients[0]!.xsrf() })).json()) as unknown[]).length, 2);
});
