import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { Jimp } from 'jimp';
import { manualClock, startApp, type TestApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { BOT_TOKEN, startFakeBotApi, type FakeBotApi, type TelegramUser } from '../helpers/telegram.js';

export const SECRET = 'telegram-test-secret-0123456789abcdef';
export const ALICE: TelegramUser = { id: 1234567890, first_name: 'Alice', last_name: 'Liddell', username: 'alice' };
export const BOB: TelegramUser = { id: 27385, first_name: 'Bob' };
export const SUCCESS = 'you are in';
export const ERROR = 'that did not work';

/** A real 8×8 PNG, as a profile photo. */
export async function pngPhoto(color = 0x3366ccff): Promise<Buffer> {
  return Buffer.from(await new Jimp({ width: 8, height: 8, color }).getBuffer('image/png'));
}

export interface TelegramSetup {
  api: FakeBotApi;
  app: TestApp;
  clock: ReturnType<typeof manualClock>;
  /** Every line the app logged. */
  logs: string[];
}

/** A telegram provider entry on the stand-in `api`: short long-polls and backoffs keep the tests quick. */
export function telegramEntry(api: FakeBotApi) {
  return {
    kind: 'telegram' as const,
    name: 'telegram',
    token: BOT_TOKEN,
    apiRoot: api.apiRoot,
    successMsg: SUCCESS,
    errorMsg: ERROR,
    pollTimeout: 1,
    backoff: { min: 20, max: 200 },
  };
}

/**
 * The stand-in Bot API plus an app with a telegram provider on it, a file avatar store and a manual
 * clock; both are stopped at teardown. Short long-polls and backoffs keep the tests quick.
 */
export async function startTelegram(
  t: ExecutionContext,
  provider: Record<string, unknown> = {},
  opts: { api?: FakeBotApi; app?: Record<string, unknown> } = {},
): Promise<TelegramSetup> {
  const api = opts.api ?? (await startFakeBotApi());
  if (!opts.api) t.teardown(() => api.close());
  const clock = manualClock(Date.now());
  const logs: string[] = [];
  const app = await startApp({
    secret: SECRET,
    clock,
    avatarStore: join(tempDir(t), 'avatars'),
    logger: (msg: string) => logs.push(msg),
    providers: [{ ...telegramEntry(api), ...provider }],
    ...opts.app,
  });
  t.teardown(() => app.close());
  return { api, app, clock, logs };
}
