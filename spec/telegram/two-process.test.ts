import test from 'ava';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha1 } from '../../lib/user.js';
import { runCli, spawnCli, spawnTs, waitForLine } from '../helpers/cli.js';
import { Client } from '../helpers/http.js';
import { BOT_TOKEN, startFakeBotApi } from '../helpers/telegram.js';
import { tempDir } from '../helpers/temp.js';
import { ALICE, BOB, ERROR, SUCCESS, pngPhoto, startTelegram } from './fixtures.js';

const APP_PROCESS = fileURLToPath(new URL('./fixtures/app-process.ts', import.meta.url));

test('two processes: `authctl bot` polls into an LMDB store while the app (poll: false) logs the user in through it', async (t) => {
  const api = await startFakeBotApi();
  t.teardown(() => api.close());
  const store = `lmdb://${join(tempDir(t), 'state')}`;
  const child = spawnCli([
    'bot',
    '--token',
    BOT_TOKEN,
    '--store',
    store,
    '--api-root',
    api.apiRoot,
    '--poll-timeout',
    '1',
    '--success-msg',
    SUCCESS,
    '--error-msg',
    ERROR,
  ]);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  await waitForLine(child, /@authkoa_test_bot polling for logins \(state in lmdb:\/\//);

  const { app } = await startTelegram(t, { poll: false, stateStore: store }, { api });
  const photo = await pngPhoto(0xcc3366ff);
  api.setPhoto(ALICE.id, photo);
  const c = new Client(app.url);
  const { token } = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  t.is((await c.fetch(`/auth/telegram/login?token=${token}`)).status, 404, 'pending');

  api.pressStart(ALICE, token);
  t.is((await api.nextMessage(ALICE.id)).text, SUCCESS, 'the child process confirmed it');
  const res = await c.fetch(`/auth/telegram/login?token=${token}`);
  t.is(res.status, 200);
  const user = (await res.json()) as { id: string; name: string; picture: string };
  t.is(user.id, `telegram_${sha1(String(ALICE.id))}`);
  const avatar = await c.fetch(new URL(user.picture).pathname);
  t.deepEqual(Buffer.from(await avatar.arrayBuffer()), photo, 'the photo crossed processes through the store');
  t.is((await c.fetch(`/auth/telegram/login?token=${token}`)).status, 404, 'consumed');

  api.pressStart(BOB, 'e'.repeat(40));
  t.is((await api.nextMessage(BOB.id)).text, ERROR);

  child.kill('SIGTERM');
  // 'close', not 'exit': the child's last lines may still be in the pipes when it has exited.
  const [code] = await once(child, 'close');
  t.is(code, 0);
  t.regex(output, /stopped \(SIGTERM\)/);
  t.false(output.includes(BOT_TOKEN.split(':')[1]!), 'the token is not printed');
  t.is(api.pendingUpdates(), 0, 'handled updates were acknowledged on the way out');
});

test('two app processes on one LMDB store: a request opened by one is claimed through the other', async (t) => {
  const api = await startFakeBotApi();
  t.teardown(() => api.close());
  const store = `lmdb://${join(tempDir(t), 'state')}`;
  // Process A, a separate `node`, polls; process B (this one, poll: false) only serves logins, as a second worker would.
  const child = spawnTs(APP_PROCESS, [api.apiRoot, store, join(tempDir(t), 'avatars')]);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const a = new Client((await waitForLine(child, /listening (http:\/\/\S+)/))[1]!);
  const b = await startTelegram(t, { poll: false, stateStore: store }, { api });
  await api.until(() => api.longPolls.some((p) => p.state === 'waiting'), 'process A polling');

  const { token } = (await (await a.fetch('/auth/telegram/login')).json()) as { token: string };
  api.pressStart(BOB, token);
  t.is((await api.nextMessage(BOB.id)).text, SUCCESS, 'process A confirmed the request it opened');
  const res = await new Client(b.app.url).fetch(`/auth/telegram/login?token=${token}`);
  t.is(res.status, 200, 'process B claims it');
  t.is(((await res.json()) as { id: string }).id, `telegram_${sha1(String(BOB.id))}`);
  t.is((await a.fetch(`/auth/telegram/login?token=${token}`)).status, 404, 'and process A sees it consumed');

  child.kill('SIGTERM');
  const [code] = await once(child, 'close'); // after its output is read to the end, unlike 'exit'
  t.is(code, 0, stderr);
});

test('authctl bot refuses a missing token, a memory store and a bad URI', async (t) => {
  const env = { TELEGRAM_BOT_TOKEN: '' };
  const [noToken, memory, bad] = await Promise.all([
    runCli(['bot', '--store', 'lmdb://x'], { env }),
    runCli(['bot', '--token', 'x:y', '--store', 'memory://'], { env }),
    runCli(['bot', '--token', 'x:y', '--store', 'etcd://u:hunter2@h'], { env }),
  ]);
  t.is(noToken.code, 1);
  t.regex(noToken.stderr, /bot token is needed/);
  t.not(memory.code, 0);
  t.regex(memory.stderr, /shared with the app/);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /--store must be lmdb:\/\/<path>, redis:\/\/…, mongodb:\/\/… or postgres:\/\//);
  t.false(bad.stderr.includes('hunter2'));
});
