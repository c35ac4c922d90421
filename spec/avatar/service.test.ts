/** The proxy inside authKoa(): a real login through the direct provider, then the avatar route. */
import test from 'ava';
import { join } from 'node:path';
import { avatarId } from '../../lib/avatar/stores/index.js';
import { identicon } from '../../lib/avatar/identicon.js';
import { Client, rawGet, startApp } from '../helpers/http.js';
import { baseOptions } from '../core/fixtures.js';
import { tempDir } from '../helpers/temp.js';

test('a login with an avatar store gets a proxied identicon, served by the avatar route', async (t) => {
  const dir = tempDir(t, 'authkoa-svc-');
  const app = await startApp(baseOptions({ avatarStore: `lmdb://${join(dir, 'ava')}`, avatarResizeLimit: 100 }));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const login = await c.fetch('/auth/direct/login?user=dev_direct&passwd=password');
  t.is(login.status, 200);
  const user = (await login.json()) as { id: string; picture: string };
  t.is(user.picture, `${app.url}/avatar/${avatarId(user.id)}`);
  const res = await c.fetch(new URL(user.picture).pathname);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'image/png');
  t.deepEqual(Buffer.from(await res.arrayBuffer()), identicon(user.id, 100));
  const missing = await c.fetch(`/avatar/${avatarId('nobody')}`);
  t.is(missing.status, 404);
  t.is(((await missing.json()) as { code: string }).code, 'avatar_not_found');
  // Sent raw: fetch() would resolve the dot segments and ask for /etc/passwd instead.
  const traversal = await rawGet(app.port, '/avatar/../../etc/passwd');
  t.is(traversal.status, 400);
  t.deepEqual(JSON.parse(traversal.text), { error: "can't load avatar", code: 'invalid_avatar_id' });
});
