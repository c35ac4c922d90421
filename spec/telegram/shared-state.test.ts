import test from 'ava';
import { join } from 'node:path';
import { createStateStore } from '../../lib/state/index.js';
import { Client, startApp } from '../helpers/http.js';
import { BOT_TOKEN, startFakeBotApi } from '../helpers/telegram.js';
import { tempDir } from '../helpers/temp.js';
import { ALICE, SECRET, SUCCESS } from './fixtures.js';

test('one state store serves Telegram requests and the verified provider spent tokens, across two app instances', async (t) => {
  const api = await startFakeBotApi();
  t.teardown(() => api.close());
  const path = join(tempDir(t), 'state');
  const mails: string[] = [];
  // Two instances as two worker processes would be: each opens the shared LMDB store itself.
  const start = async (poll: boolean) => {
    const state = createStateStore(`lmdb://${path}`);
    const app = await startApp({
      secret: SECRET,
      providers: [
        {
          kind: 'telegram',
          token: BOT_TOKEN,
          apiRoot: api.apiRoot,
          successMsg: SUCCESS,
          poll,
          pollTimeout: 1,
          stateStore: state,
        },
        {
          kind: 'verified',
          name: 'email',
          template: '{{.Token}}',
          sender: (_address: string, text: string) => void mails.push(text),
          usedTokens: state,
        },
      ],
    });
    t.teardown(async () => {
      await app.close();
      await state.close();
    });
    return app;
  };
  const a = await start(true);
  const b = await start(false);

  const { token } = (await (await new Client(a.url).fetch('/auth/telegram/login')).json()) as { token: string };
  api.pressStart(ALICE, token);
  t.is((await api.nextMessage(ALICE.id)).text, SUCCESS);
  t.is((await new Client(b.url).fetch(`/auth/telegram/login?token=${token}`)).status, 200);

  t.is((await new Client(a.url).fetch('/auth/email/login?user=alice&address=alice@example.com')).status, 200);
  const confirmation = mails[0]!.trim();
  t.is(
    (await new Client(a.url).fetch(`/auth/email/login?token=${encodeURIComponent(confirmation)}`, { method: 'POST' }))
      .status,
    200,
  );
  const reuse = await new Client(b.url).fetch(`/auth/email/login?token=${encodeURIComponent(confirmation)}`, {
    method: 'POST',
  });
  t.is(reuse.status, 403, 'the other instance sees the token as spent');
  t.is(((await reuse.json()) as { code: string }).code, 'confirmation_used');
});
