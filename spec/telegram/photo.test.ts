import test from 'ava';
import { Client } from '../helpers/http.js';
import type { FakeBotApi, TelegramUser } from '../helpers/telegram.js';
import { ALICE, BOB, SUCCESS, pngPhoto, startTelegram } from './fixtures.js';

/** Claims the confirmed request `token` and reads the avatar of the user it logs in. */
async function picture(c: Client, token: string): Promise<Buffer> {
  const user = (await (await c.fetch(`/auth/telegram/login?token=${token}`)).json()) as { picture: string };
  return Buffer.from(await (await c.fetch(new URL(user.picture).pathname)).arrayBuffer());
}

/** A whole login of `who`, then the avatar it got. */
async function loginPicture(c: Client, api: FakeBotApi, who: TelegramUser): Promise<Buffer> {
  const { token } = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  api.pressStart(who, token);
  await api.nextMessage(who.id);
  return picture(c, token);
}

test('a photo download that hangs does not hold up other logins: Bob is answered while Alice’s download is held', async (t) => {
  // No clock races here: Alice's download is held by the stand-in until the test lets it go, and the bot's
  // own deadline is far off, so nothing depends on which of two timers a loaded machine runs first.
  const { app, api } = await startTelegram(t, { timeout: 120_000 });
  const photo = await pngPhoto();
  api.setPhoto(ALICE.id, photo);
  const download = api.hold('file');
  t.teardown(() => download.release());
  const c = new Client(app.url);
  const alice = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  const bob = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  // Pressed together, so both arrive in one getUpdates batch, Alice's first.
  api.pressStart(ALICE, alice.token);
  api.pressStart(BOB, bob.token);
  await download.reached;
  t.is((await api.nextMessage(BOB.id)).text, SUCCESS, 'Bob is answered while Alice’s photo download hangs');
  t.is(api.sent.filter((m) => m.chat_id === ALICE.id).length, 0, 'Alice waits for her photo');
  download.release();
  t.is((await api.nextMessage(ALICE.id)).text, SUCCESS, 'Alice logs in once the download finishes');
  t.deepEqual(await picture(c, alice.token), photo, 'with her photo');
});

test('a photo download that never answers times out into an identicon', async (t) => {
  // `timeout` bounds every Bot API call as well: long enough for a loaded machine's ordinary calls, and
  // the one wait this test pays, on the download that never answers.
  const { app, api, logs } = await startTelegram(t, { timeout: 3000 });
  const photo = await pngPhoto();
  api.setPhoto(ALICE.id, photo);
  const download = api.hold('file'); // never released: the download hangs until the bot gives up
  t.teardown(() => download.release());
  const c = new Client(app.url);
  const { token } = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  api.pressStart(ALICE, token);
  await download.reached;
  t.is((await api.nextMessage(ALICE.id)).text, SUCCESS, 'Alice logs in all the same');
  t.true(
    logs.some((l) => /profile photo not used \(identicon instead\): .*no complete answer within 3000 ms/.test(l)),
    logs.join('\n'),
  );
  const stored = await picture(c, token);
  t.notDeepEqual(stored, photo);
  t.deepEqual([...stored.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'an identicon');
});

test('photo sizes over maxPhotoBytes are not downloaded at all', async (t) => {
  const { app, api } = await startTelegram(t, { maxPhotoBytes: 5 });
  const photo = await pngPhoto();
  api.setPhoto(ALICE.id, photo);
  const stored = await loginPicture(new Client(app.url), api, ALICE);
  t.notDeepEqual(stored, photo);
  t.is(api.calls.get('file'), undefined);
});
