import test from 'ava';
import { authKoa } from '../../lib/index.js';
import { sha1 } from '../../lib/user.js';
import { Client, decodeJwt } from '../helpers/http.js';
import { BOT_TOKEN } from '../helpers/telegram.js';
import { ALICE, BOB, ERROR, SECRET, SUCCESS, pngPhoto, startTelegram } from './fixtures.js';

const TOKEN = /^[0-9a-f]{40}$/;

async function openRequest(c: Client): Promise<{ bot: string; token: string }> {
  const res = await c.fetch('/auth/telegram/login');
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { bot: string; token: string };
}

test('GET /login answers the bot username and a fresh 40-hex token, not cached', async (t) => {
  const { app, api } = await startTelegram(t);
  const c = new Client(app.url);
  const res = await c.fetch('/auth/telegram/login');
  t.is(res.status, 200);
  t.is(res.headers.get('cache-control'), 'no-store');
  const body = (await res.json()) as { bot: string; token: string };
  t.deepEqual(Object.keys(body), ['bot', 'token']);
  t.is(body.bot, api.username);
  t.regex(body.token, TOKEN);
  t.not((await openRequest(c)).token, body.token);
  t.deepEqual(res.headers.getSetCookie(), []);
});

test('full login: Start in the bot, then the poll sets the cookies and answers the User with the stored photo', async (t) => {
  const { app, api } = await startTelegram(t);
  const photo = await pngPhoto();
  api.setPhoto(ALICE.id, photo);
  const c = new Client(app.url);
  const { token } = await openRequest(c);

  api.pressStart(ALICE, token);
  t.deepEqual(await api.nextMessage(ALICE.id), { chat_id: ALICE.id, text: SUCCESS });

  const res = await c.fetch(`/auth/telegram/login?token=${token}`);
  t.is(res.status, 200);
  const id = `telegram_${sha1(String(ALICE.id))}`;
  const user = (await res.json()) as { name: string; id: string; picture: string };
  t.deepEqual(user, { name: 'Alice Liddell', id, picture: `${app.url}/avatar/${sha1(id)}.image` });
  t.true(c.jar.has('JWT'));
  t.is(c.jar.get('XSRF-TOKEN'), token);
  const claims = decodeJwt(c.jar.get('JWT')!);
  t.is(claims.jti, token);
  t.is(claims.auth_provider.name, 'telegram');
  t.is(claims.sess_only, undefined);
  t.truthy(c.cookie('JWT')!.attrs['max-age'], 'never a session-only cookie');

  const avatar = await c.fetch(new URL(user.picture).pathname);
  t.is(avatar.status, 200);
  t.deepEqual(Buffer.from(await avatar.arrayBuffer()), photo, 'the photo bytes, downloaded server-side');

  const me = await c.fetch('/auth/user', { headers: c.xsrf() });
  t.is(me.status, 200);
  t.is(((await me.json()) as { id: string }).id, id);
});

test('the poll answers 404 "not verified yet" while the request is pending', async (t) => {
  const { app } = await startTelegram(t);
  const c = new Client(app.url);
  const { token } = await openRequest(c);
  const res = await c.fetch(`/auth/telegram/login?token=${token}`);
  t.is(res.status, 404);
  t.deepEqual(await res.json(), { error: 'request is not verified yet', code: 'request_not_verified' });
  t.deepEqual(res.headers.getSetCookie(), []);
});

test('a confirmed request logs in once: the second poll is 404 not found', async (t) => {
  const { app, api } = await startTelegram(t);
  const c = new Client(app.url);
  const { token } = await openRequest(c);
  api.pressStart(BOB, token);
  await api.nextMessage(BOB.id);
  t.is((await c.fetch(`/auth/telegram/login?token=${token}`)).status, 200);
  const again = await new Client(app.url).fetch(`/auth/telegram/login?token=${token}`);
  t.is(again.status, 404);
  t.deepEqual(await again.json(), { error: 'request is not found', code: 'request_not_found' });
});

test('two polls racing for one confirmed request: exactly one logs in', async (t) => {
  const { app, api } = await startTelegram(t);
  const { token } = await openRequest(new Client(app.url));
  api.pressStart(BOB, token);
  await api.nextMessage(BOB.id);
  const statuses = await Promise.all(
    Array.from({ length: 8 }, () =>
      new Client(app.url).fetch(`/auth/telegram/login?token=${token}`).then((r) => r.status),
    ),
  );
  t.deepEqual(statuses.filter((s) => s === 200).length, 1);
  t.true(statuses.every((s) => s === 200 || s === 404));
});

test('an unknown token: Start gets ErrorMsg, a poll gets 404 not found', async (t) => {
  const { app, api } = await startTelegram(t);
  api.pressStart(BOB, 'f'.repeat(40));
  t.deepEqual(await api.nextMessage(BOB.id), { chat_id: BOB.id, text: ERROR });
  api.pressStart(BOB, 'not-a-token');
  t.is((await api.nextMessage(BOB.id, 1)).text, ERROR);
  api.pressStart(BOB, '');
  t.is((await api.nextMessage(BOB.id, 2)).text, ERROR, 'a bare /start is answered too');
  const c = new Client(app.url);
  for (const token of ['f'.repeat(40), 'nope', '../../etc']) {
    const res = await c.fetch(`/auth/telegram/login?token=${encodeURIComponent(token)}`);
    t.is(res.status, 404);
    t.is(((await res.json()) as { code: string }).code, 'request_not_found');
  }
});

test('an expired request: Start gets ErrorMsg and the poll answers 404 "request expired"', async (t) => {
  const { app, api, clock } = await startTelegram(t);
  const c = new Client(app.url);
  const { token } = await openRequest(c);
  clock.advance(10 * 60_000 + 1);
  api.pressStart(ALICE, token);
  t.deepEqual(await api.nextMessage(ALICE.id), { chat_id: ALICE.id, text: ERROR });
  const res = await c.fetch(`/auth/telegram/login?token=${token}`);
  t.is(res.status, 404);
  t.deepEqual(await res.json(), { error: 'request expired', code: 'request_expired' });
});

test('the lifetime option sets how long a request waits', async (t) => {
  const { app, api, clock } = await startTelegram(t, { lifetime: '30s' });
  const c = new Client(app.url);
  const first = await openRequest(c);
  const second = await openRequest(c);
  clock.advance(29_000);
  api.pressStart(ALICE, first.token);
  t.is((await api.nextMessage(ALICE.id)).text, SUCCESS);
  clock.advance(2_000);
  api.pressStart(BOB, second.token);
  t.is((await api.nextMessage(BOB.id)).text, ERROR);
});

test('a confirmed request expires too if nobody polls for it in time', async (t) => {
  const { app, api, clock } = await startTelegram(t);
  const c = new Client(app.url);
  const { token } = await openRequest(c);
  api.pressStart(ALICE, token);
  await api.nextMessage(ALICE.id);
  clock.advance(10 * 60_000);
  const res = await c.fetch(`/auth/telegram/login?token=${token}`);
  t.is(res.status, 404);
  t.is(((await res.json()) as { code: string }).code, 'request_expired');
});

test('without a profile photo the user gets an identicon; a first name alone is the name', async (t) => {
  const { app, api } = await startTelegram(t);
  const c = new Client(app.url);
  const { token } = await openRequest(c);
  api.pressStart(BOB, token);
  await api.nextMessage(BOB.id);
  const user = (await (await c.fetch(`/auth/telegram/login?token=${token}`)).json()) as {
    name: string;
    id: string;
    picture: string;
  };
  t.is(user.name, 'Bob');
  t.is(user.id, `telegram_${sha1('27385')}`);
  const avatar = await c.fetch(new URL(user.picture).pathname);
  t.is(avatar.status, 200);
  t.deepEqual([...Buffer.from(await avatar.arrayBuffer()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG identicon');
});

test('Start pressed twice by the same user answers SuccessMsg twice; another user cannot take the request', async (t) => {
  const { app, api } = await startTelegram(t);
  const c = new Client(app.url);
  const { token } = await openRequest(c);
  api.pressStart(ALICE, token);
  t.is((await api.nextMessage(ALICE.id)).text, SUCCESS);
  api.pressStart(ALICE, token);
  t.is((await api.nextMessage(ALICE.id, 1)).text, SUCCESS);
  api.pressStart(BOB, token);
  t.is((await api.nextMessage(BOB.id)).text, ERROR);
  const user = (await (await c.fetch(`/auth/telegram/login?token=${token}`)).json()) as { name: string };
  t.is(user.name, 'Alice Liddell');
});

test('messages outside private chats, and texts other than /start, are ignored', async (t) => {
  const { app, api } = await startTelegram(t);
  const c = new Client(app.url);
  const { token } = await openRequest(c);
  api.pressStart(ALICE, token, 'group');
  api.push({
    message: { message_id: 1, date: 0, chat: { id: ALICE.id, type: 'private' }, from: ALICE, text: `hello ${token}` },
  });
  api.push({
    edited_message: {
      message_id: 1,
      date: 0,
      chat: { id: ALICE.id, type: 'private' },
      from: ALICE,
      text: `/start ${token}`,
    },
  });
  api.pressStart(BOB, token); // the first one that counts
  t.is((await api.nextMessage(BOB.id)).text, SUCCESS);
  t.deepEqual(
    api.sent.filter((m) => m.chat_id === ALICE.id),
    [],
  );
  t.is(((await (await c.fetch(`/auth/telegram/login?token=${token}`)).json()) as { name: string }).name, 'Bob');
});

test('site= becomes the token audience', async (t) => {
  const { app, api } = await startTelegram(t);
  const c = new Client(app.url);
  const { token } = await openRequest(c);
  api.pressStart(BOB, token);
  await api.nextMessage(BOB.id);
  t.is((await c.fetch(`/auth/telegram/login?token=${token}&site=blog`)).status, 200);
  t.is(decodeJwt(c.jar.get('JWT')!).aud, 'blog');
});

test('logout clears the cookies', async (t) => {
  const { app } = await startTelegram(t);
  const c = new Client(app.url);
  c.jar.set('JWT', 'x');
  const res = await c.fetch('/auth/telegram/logout');
  t.is(res.status, 200);
  t.false(c.jar.has('JWT'));
});

test('bad options fail at start-up with the option named', async (t) => {
  const make = (p: Record<string, unknown>) => () =>
    authKoa({
      secret: SECRET,
      url: 'http://127.0.0.1',
      providers: [{ kind: 'telegram', token: BOT_TOKEN, poll: false, ...p }],
    }).ready;
  await t.throwsAsync(make({ token: undefined }), {
    instanceOf: TypeError,
    message: /providers\[0\] \(telegram\): token/,
  });
  await t.throwsAsync(make({ poll: true, webhook: { secret: 's3cret' } }), { message: /poll and webhook/ });
  await t.throwsAsync(make({ webhook: { secret: 'has spaces' } }), { message: /webhook/ });
  await t.throwsAsync(make({ stateStore: 'etcd://localhost' }), {
    message: /stateStore has unsupported scheme "etcd:\/\/"/,
  });
  await t.throwsAsync(make({ stateStore: 'lmdb://' }), { message: /stateStore/ });
  await t.throwsAsync(make({ lifetime: 'soon' }), { message: /lifetime/ });
  await t.throwsAsync(make({ apiRoot: 'ftp://x' }), { message: /apiRoot/ });
});
