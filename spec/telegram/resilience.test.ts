import test from 'ava';
import { noopLogger } from '../../lib/logger.js';
import { memoryStateStore } from '../../lib/state/index.js';
import { LoginBot } from '../../lib/providers/telegram/bot.js';
import { LoginRequests } from '../../lib/providers/telegram/requests.js';
import { Client } from '../helpers/http.js';
import { BOT_TOKEN, startFakeBotApi, type FakeBotApi } from '../helpers/telegram.js';
import { ALICE, BOB, SUCCESS, pngPhoto, startTelegram } from './fixtures.js';

/** Every fragment of the token that would betray it: the whole, URL-encoded, and the secret half. */
const LEAKS = [BOT_TOKEN, encodeURIComponent(BOT_TOKEN), BOT_TOKEN.split(':')[1]!];

async function login(c: Client, api: FakeBotApi, who = ALICE, skip = 0): Promise<Response> {
  const { token } = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  api.pressStart(who, token);
  const msg = await api.nextMessage(who.id, skip);
  if (msg.text !== SUCCESS) throw new Error(`bot answered ${msg.text}`);
  return c.fetch(`/auth/telegram/login?token=${token}`);
}

/** Waits until the poller has made `n` more getUpdates calls than now, i.e. it kept trying. */
async function moreCalls(api: FakeBotApi, n: number): Promise<void> {
  await api.waitForCalls('getUpdates', (api.calls.get('getUpdates') ?? 0) + n);
}

test('the poller recovers after the Bot API answers 500s', async (t) => {
  const { app, api, logs } = await startTelegram(t);
  await api.waitForCalls('getUpdates', 1);
  api.mode = '500';
  await moreCalls(api, 6);
  api.mode = 'ok';
  const res = await login(new Client(app.url), api);
  t.is(res.status, 200);
  t.true(
    logs.some((l) => /getUpdates failed/.test(l) && /500/.test(l)),
    logs.join('\n'),
  );
  t.true(logs.some((l) => /works again/.test(l)));
});

test('the poller recovers after the Bot API drops connections', async (t) => {
  const { app, api, logs } = await startTelegram(t);
  await api.waitForCalls('getUpdates', 1);
  api.mode = 'drop';
  await moreCalls(api, 6);
  api.mode = 'ok';
  t.is((await login(new Client(app.url), api)).status, 200);
  t.true(
    logs.some((l) => /getUpdates failed/.test(l)),
    logs.join('\n'),
  );
});

test('an outage while the app starts: getMe is retried, and /login answers 503 until the bot is reachable', async (t) => {
  const api = await startFakeBotApi();
  t.teardown(() => api.close());
  api.mode = 'drop';
  const { app } = await startTelegram(t, {}, { api });
  await api.waitForCalls('getMe', 2);
  const c = new Client(app.url);
  const res = await c.fetch('/auth/telegram/login');
  t.is(res.status, 503);
  t.deepEqual(await res.json(), { error: 'telegram bot is unavailable', code: 'provider_unavailable' });
  api.mode = 'ok';
  t.is((await login(c, api)).status, 200);
});

test('a wrong bot token: 401s are logged with a hint, never the token, and the app keeps serving', async (t) => {
  const wrong = '987654321:WRONG-token-value-xyz';
  const { app, logs, api } = await startTelegram(t, { token: wrong });
  await api.waitForCalls('getMe', 3);
  const c = new Client(app.url);
  const res = await c.fetch('/auth/telegram/login');
  t.is(res.status, 503);
  t.is((await c.fetch('/auth/status')).status, 200, 'the rest of the app is untouched');
  t.true(
    logs.some((l) => /401/.test(l) && /bot token/.test(l)),
    logs.join('\n'),
  );
  for (const line of logs) t.false(line.includes('WRONG-token'), line);
});

test('the bot token is absent from every response body and header and from every log line', async (t) => {
  const { app, api, logs } = await startTelegram(t);
  api.setPhoto(ALICE.id, await pngPhoto());
  api.setPhoto(BOB.id, Buffer.from('<html>not an image</html>')); // the avatar proxy refuses it: logged
  const seen: string[] = [];
  const c = new Client(app.url);
  const fetch0 = c.fetch.bind(c);
  c.fetch = async (path, init) => {
    const res = await fetch0(path, init);
    const body = Buffer.from(await res.clone().arrayBuffer()).toString('latin1');
    const headers: string[] = [];
    res.headers.forEach((v, k) => headers.push(`${k}: ${v}`));
    seen.push(`${res.status} ${headers.join('\n')}\n${body}`);
    return res;
  };
  t.is((await login(c, api, ALICE)).status, 200);
  const picture = ((await (await c.fetch('/auth/user', { headers: c.xsrf() })).json()) as { picture: string }).picture;
  await c.fetch(new URL(picture).pathname);
  t.is((await login(c, api, BOB)).status, 200);
  api.mode = '500';
  await moreCalls(api, 3);
  api.mode = 'drop';
  await moreCalls(api, 3);
  api.mode = 'ok';
  await c.fetch('/auth/telegram/login?token=' + 'a'.repeat(40));
  await c.fetch('/auth/telegram/login');
  await c.fetch('/auth/telegram/webhook', { method: 'POST' });
  t.true(logs.length >= 3, 'errors were logged');
  t.true(
    logs.some((l) => /profile photo of .* not stored/.test(l)),
    logs.join('\n'),
  );
  for (const text of [...seen, ...logs]) for (const leak of LEAKS) t.false(text.includes(leak), text);
});

test('error texts that carry the token, raw or URL-encoded, are redacted before logging', (t) => {
  const bot = new LoginBot({
    token: BOT_TOKEN,
    requests: new LoginRequests(async () => memoryStateStore(), Date.now),
    logger: noopLogger,
  });
  const err = new Error(`GET http://x/file/bot${BOT_TOKEN}/photos/a.png failed`, {
    cause: new Error(`connect to /bot${encodeURIComponent(BOT_TOKEN)}/getFile refused`),
  });
  const text = bot.describe(err);
  t.regex(text, /bot<redacted>\/photos/);
  t.regex(text, /bot<redacted>\/getFile/);
  for (const leak of LEAKS.slice(0, 2)) t.false(text.includes(leak));
});

/** Resolves after `n` turns of the event loop: no clock involved. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

const totalCalls = (api: FakeBotApi) => [...api.calls.values()].reduce((a, b) => a + b, 0);

test('close() stops the poller: the pending long poll is cut and no call follows', async (t) => {
  const { app, api } = await startTelegram(t, { pollTimeout: 30 });
  t.is((await login(new Client(app.url), api, BOB)).status, 200);
  // No update is coming: the stand-in holds the poller's next getUpdates open for up to 30 s.
  await api.until(() => api.longPolls.some((p) => p.state === 'waiting'), 'a long poll held open');
  const poll = api.longPolls.find((p) => p.state === 'waiting')!;
  await app.close();
  t.not(poll.state, 'answered', 'close() resolved before the stand-in answered the long poll');
  await poll.settled; // unless the client hangs up, the stand-in answers at 30 s: ava's test timeout bounds this
  t.is(poll.state, 'client-closed', 'the client cut the long poll');
  const calls = totalCalls(api);
  await turns(50); // a call made after close() shows up within these (checked by hand with a stray request)
  t.is(totalCalls(api), calls, 'no Bot API call after close()');
});

test('close() while an update is in hand: the update is acknowledged before close() resolves', async (t) => {
  const { app, api } = await startTelegram(t, { pollTimeout: 30 });
  await api.until(() => api.longPolls.some((p) => p.state === 'waiting'), 'a long poll held open');
  const reply = api.hold('sendMessage');
  t.teardown(() => reply.release());
  const id = api.pressStart(BOB, 'e'.repeat(40)); // an unknown login token: the bot answers with the error text
  await reply.reached; // the poller fetched the update and is handling it; nothing has confirmed it yet
  t.is(api.pendingUpdates(), 1);
  const closing = app.close();
  reply.release(); // close() has begun: the reply in flight is either cut or finishes now
  await closing;
  t.is(api.pendingUpdates(), 0, 'confirmed on the way out: a next poller is not handed it again');
  t.is(api.offsets.at(-1), id + 1);
});
