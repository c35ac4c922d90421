import test from 'ava';
import { Client } from '../helpers/http.js';
import type { FakeBotApi, TelegramUser } from '../helpers/telegram.js';
import { ALICE, BOB, SUCCESS, pngPhoto, startTelegram } from './fixtures.js';

async function picture(c: Client, api: FakeBotApi, who: TelegramUser): Promise<Buffer> {
  const { token } = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  api.pressStart(who, token);
  await api.nextMessage(who.id);
  const user = (await (await c.fetch(`/auth/telegram/login?token=${token}`)).json()) as { picture: string };
  return Buffer.from(await (await c.fetch(new URL(user.picture).pathname)).arrayBuffer());
}

test('a hanging photo download times out into an identicon, and other logins are not held up meanwhile', async (t) => {
  const { app, api } = await startTelegram(t, { timeout: 1500 });
  const photo = await pngPhoto();
  api.setPhoto(ALICE.id, photo);
  api.fileDelayMs = 60_000;
  const c = new Client(app.url);
  const alice = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  const bob = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  api.pressStart(ALICE, alice.token);
  api.pressStart(BOB, bob.token);
  t.is((await api.nextMessage(BOB.id)).text, SUCCESS);
  t.is(api.sent.filter((m) => m.chat_id === ALICE.id).length, 0, 'Bob was answered while Alice’s photo still hung');
  t.is((await api.nextMessage(ALICE.id)).text, SUCCESS, 'Alice logs in all the same');
  const user = (await (await c.fetch(`/auth/telegram/login?token=${alice.token}`)).json()) as { picture: string };
  const stored = Buffer.from(await (await c.fetch(new URL(user.picture).pathname)).arrayBuffer());
  t.notDeepEqual(stored, photo);
  t.deepEqual([...stored.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'an identicon');
});

test('photo sizes over maxPhotoBytes are not downloaded at all', async (t) => {
  const { app, api } = await startTelegram(t, { maxPhotoBytes: 5 });
  const photo = await pngPhoto();
  api.setPhoto(ALICE.id, photo);
  const stored = await picture(new Client(app.url), api, ALICE);
  t.notDeepEqual(stored, photo);
  t.is(api.calls.get('file'), undefined);
});
