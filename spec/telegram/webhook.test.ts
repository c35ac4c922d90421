import test from 'ava';
import { Client } from '../helpers/http.js';
import { ALICE, ERROR, SUCCESS, startTelegram } from './fixtures.js';

const HOOK_SECRET = 'hook-Secret_123';

function startUpdate(updateId: number, from: typeof ALICE, payload: string) {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 0,
      chat: { id: from.id, type: 'private' },
      from: { is_bot: false, ...from },
      text: `/start ${payload}`,
    },
  };
}

async function push(c: Client, update: unknown, secret: string | null = HOOK_SECRET): Promise<Response> {
  return c.fetch('/auth/telegram/webhook', {
    method: 'POST',
    headers: secret === null ? {} : { 'X-Telegram-Bot-Api-Secret-Token': secret },
    json: update,
  });
}

test('webhook mode: an update pushed with the secret header confirms the request, and the poll logs in', async (t) => {
  const { app, api } = await startTelegram(t, { webhook: { secret: HOOK_SECRET } });
  const c = new Client(app.url);
  const { token } = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  const res = await push(c, startUpdate(1, ALICE, token));
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { ok: true });
  t.deepEqual(api.sent, [{ chat_id: ALICE.id, text: SUCCESS }], 'the reply is sent before the webhook answers');
  const login = await c.fetch(`/auth/telegram/login?token=${token}`);
  t.is(login.status, 200);
  t.is(((await login.json()) as { name: string }).name, 'Alice Liddell');
  t.is(api.calls.get('getUpdates'), undefined, 'no polling beside the webhook');
});

test('webhook mode: a missing or wrong secret is 401 and changes nothing; GET is 405', async (t) => {
  const { app, api } = await startTelegram(t, { webhook: { secret: HOOK_SECRET } });
  const c = new Client(app.url);
  const { token } = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
  for (const secret of [null, 'wrong', HOOK_SECRET + 'x', '']) {
    const res = await push(c, startUpdate(2, ALICE, token), secret);
    t.is(res.status, 401);
    t.deepEqual(await res.json(), { error: 'bad webhook secret', code: 'webhook_unauthorized' });
  }
  t.is((await c.fetch('/auth/telegram/webhook')).status, 405);
  t.deepEqual(api.sent, []);
  t.is((await c.fetch(`/auth/telegram/login?token=${token}`)).status, 404);
});

test('webhook mode: bad bodies are refused, unknown tokens answered with ErrorMsg, other updates ignored', async (t) => {
  const { app, api } = await startTelegram(t, { webhook: { secret: HOOK_SECRET } });
  const c = new Client(app.url);
  const bad = await c.fetch('/auth/telegram/webhook', {
    method: 'POST',
    headers: { 'X-Telegram-Bot-Api-Secret-Token': HOOK_SECRET, 'content-type': 'application/json' },
    body: '{not json',
  });
  t.is(bad.status, 400);
  t.is((await push(c, { update_id: 3, callback_query: { id: 'x' } })).status, 200);
  t.is((await push(c, { update_id: 4, message: { chat: 'nonsense', text: 42 } })).status, 200);
  t.deepEqual(api.sent, []);
  t.is((await push(c, startUpdate(5, ALICE, 'b'.repeat(40)))).status, 200);
  t.deepEqual(api.sent, [{ chat_id: ALICE.id, text: ERROR }]);
});

test('webhook.register calls setWebhook with the route URL and the secret', async (t) => {
  const { app, api } = await startTelegram(t, { webhook: { secret: HOOK_SECRET, register: true } });
  await api.until(() => api.webhooks.length > 0, 'setWebhook');
  t.is(api.webhooks.length, 1);
  t.is(api.webhooks[0]!.url, `${app.url}/auth/telegram/webhook`);
  t.is(api.webhooks[0]!.secret_token, HOOK_SECRET);
});

test('without the webhook option the webhook route is 404', async (t) => {
  const { app } = await startTelegram(t);
  const res = await push(new Client(app.url), startUpdate(6, ALICE, 'c'.repeat(40)));
  t.is(res.status, 404);
});
