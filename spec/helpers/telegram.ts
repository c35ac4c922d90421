/**
 * A local stand-in for the Telegram Bot API over real HTTP, enough for bot login: getMe, getUpdates
 * (long poll, the offset rule: updates below the asked offset are confirmed and dropped), sendMessage
 * (recorded), getUserProfilePhotos, getFile, setWebhook (recorded), and file downloads at
 * `/file/bot<token>/<path>`. A wrong token answers 401 as Telegram does. Switches make every Bot API
 * call answer 500 or drop the connection, to exercise the poller's recovery. Each long poll is recorded
 * with its fate (answered, or closed by the client first), and hold() parks the next call of a method.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serve, type Served } from './http.js';

export const BOT_TOKEN = '123456789:AAF-test_Token-SECRET-0123456789abcd';

/**
 * How long nextMessage(), waitForCalls() and until() wait by default. They resolve on the event itself;
 * this is only the safety net that names what never came, well inside ava's 60 s, and long enough that a
 * loaded machine never reaches it.
 */
const WAIT_MS = 30_000;

export interface SentMessage {
  chat_id: number;
  text: string;
}

export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

export type FailMode = 'ok' | '500' | 'drop';

interface Waiter {
  offset: number;
  limit: number;
  wake: () => void;
}

/** A getUpdates call the stand-in held open because no update was there to give (a long poll). */
export interface LongPoll {
  /** The offset it asked for. */
  readonly offset: number | undefined;
  /** 'waiting' while held open; 'answered' once the stand-in replied (an update came, or its timeout ran out); 'client-closed' when the client hung up first. */
  state: 'waiting' | 'answered' | 'client-closed';
  /** Resolves when the state leaves 'waiting'. */
  readonly settled: Promise<void>;
}

/** A hold on the next call of one Bot API method, from hold(). */
export interface Hold {
  /** Resolves when the held call has arrived (and is being held). */
  readonly reached: Promise<void>;
  /** Lets the held call be answered. */
  release(): void;
}

export interface FakeBotApi extends Served {
  /** The Bot API root to give the library (`apiRoot`). */
  readonly apiRoot: string;
  readonly token: string;
  readonly username: string;
  /** Every sendMessage, in order. */
  readonly sent: SentMessage[];
  /** setWebhook calls. */
  readonly webhooks: Record<string, string>[];
  /** Calls per method, counting failed ones. */
  readonly calls: Map<string, number>;
  /** The raw `offset` of each getUpdates, in order (undefined when absent). */
  readonly offsets: Array<number | undefined>;
  /** Every getUpdates that had to wait for an update, in order, with what became of it. */
  readonly longPolls: LongPoll[];
  /** 'ok', or make every Bot API call answer 500 / drop the connection. */
  mode: FailMode;
  /** Queues an update (update_id is assigned) and wakes a waiting getUpdates. */
  push(update: Record<string, unknown>): number;
  /** Queues `/start <payload>` from `user` in a private chat (or another chat type). */
  pressStart(user: TelegramUser, payload: string, chatType?: string): number;
  /** Gives `userId` a profile photo: two sizes, the larger one with these bytes. */
  setPhoto(userId: number, bytes: Buffer): void;
  /** Resolves with the first message (already sent or coming) to `chatId` after the `skip` first ones. */
  nextMessage(chatId: number, skip?: number, timeoutMs?: number): Promise<SentMessage>;
  /** Resolves once `method` was called `count` times in total. */
  waitForCalls(method: string, count: number, timeoutMs?: number): Promise<void>;
  /** Resolves once `check()` holds; checked after every call and recorded message. */
  until(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Updates not yet confirmed by an offset. */
  pendingUpdates(): number;
  /**
   * Holds the next call of `method` (after it is counted and its token checked) until release(), or
   * until the client gives up on it; `'file'` holds the next file download (a hanging file server).
   */
  hold(method: string): Hold;
}

export async function startFakeBotApi(opts: { token?: string; username?: string } = {}): Promise<FakeBotApi> {
  const token = opts.token ?? BOT_TOKEN;
  const username = opts.username ?? 'authkoa_test_bot';
  const updates: Array<{ update_id: number } & Record<string, unknown>> = [];
  const waiters = new Set<Waiter>();
  const photos = new Map<number, Buffer>();
  const files = new Map<string, Buffer>();
  const sent: SentMessage[] = [];
  const webhooks: Record<string, string>[] = [];
  const calls = new Map<string, number>();
  const offsets: Array<number | undefined> = [];
  const longPolls: LongPoll[] = [];
  const holds = new Map<string, { arrived: () => void; released: Promise<void> }>();
  const listeners = new Set<() => void>();
  let nextId = 1000;
  let messageId = 1;
  const notify = () => listeners.forEach((l) => l());

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const ok = (res: ServerResponse, result: unknown) => reply(res, 200, { ok: true, result });
  const fail = (res: ServerResponse, code: number, description: string) =>
    reply(res, code, { ok: false, error_code: code, description });

  async function readBody(req: IncomingMessage): Promise<Record<string, string>> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const type = req.headers['content-type'] ?? '';
    if (type.includes('json')) {
      const json = JSON.parse(text || '{}') as Record<string, unknown>;
      return Object.fromEntries(
        Object.entries(json).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      );
    }
    return Object.fromEntries(new URLSearchParams(text));
  }

  function available(offset: number, limit: number) {
    return updates.filter((u) => u.update_id >= offset).slice(0, limit);
  }

  async function getUpdates(params: Record<string, string>, req: IncomingMessage, res: ServerResponse) {
    const offset = params.offset === undefined ? undefined : Number(params.offset);
    offsets.push(offset);
    // The offset rule: asking for `offset` confirms every update below it, for good.
    if (offset !== undefined)
      for (let i = updates.length - 1; i >= 0; i--) if (updates[i]!.update_id < offset) updates.splice(i, 1);
    const from = offset ?? 0;
    const limit = Number(params.limit ?? 100);
    const timeout = Number(params.timeout ?? 0);
    let got = available(from, limit);
    if (got.length === 0 && timeout > 0) {
      let settle!: () => void;
      const poll: LongPoll = { offset, state: 'waiting', settled: new Promise<void>((resolve) => (settle = resolve)) };
      longPolls.push(poll);
      notify();
      const clientClosed = await new Promise<boolean>((resolve) => {
        const w: Waiter = { offset: from, limit, wake: () => done(false) };
        const timer = setTimeout(() => done(false), timeout * 1000);
        const onClose = () => done(true); // the client gave up (abort on close())
        const done = (closed: boolean) => {
          clearTimeout(timer);
          waiters.delete(w);
          res.off('close', onClose);
          resolve(closed);
        };
        waiters.add(w);
        // The response closes before it was written only when the connection went away under it.
        res.on('close', onClose);
      });
      got = available(from, limit);
      if (clientClosed || res.destroyed) poll.state = 'client-closed';
      else {
        ok(res, got);
        poll.state = 'answered';
      }
      settle();
      notify();
      return;
    }
    if (!res.destroyed) ok(res, got);
  }

  async function api(method: string, params: Record<string, string>, req: IncomingMessage, res: ServerResponse) {
    switch (method) {
      case 'getMe':
        return ok(res, { id: 42, is_bot: true, first_name: 'Test bot', username });
      case 'getUpdates':
        return getUpdates(params, req, res);
      case 'sendMessage': {
        const m = { chat_id: Number(params.chat_id), text: String(params.text) };
        sent.push(m);
        notify();
        return ok(res, { message_id: messageId++, date: 0, chat: { id: m.chat_id, type: 'private' }, text: m.text });
      }
      case 'getUserProfilePhotos': {
        const userId = Number(params.user_id);
        const bytes = photos.get(userId);
        if (!bytes) return ok(res, { total_count: 0, photos: [] });
        return ok(res, {
          total_count: 1,
          photos: [
            [
              { file_id: `small-${userId}`, file_unique_id: `us${userId}`, width: 160, height: 160, file_size: 10 },
              {
                file_id: `big-${userId}`,
                file_unique_id: `ub${userId}`,
                width: 640,
                height: 640,
                file_size: bytes.length,
              },
            ],
          ],
        });
      }
      case 'getFile': {
        const id = String(params.file_id);
        const userId = Number(id.replace(/^\w+-/, ''));
        const bytes = id.startsWith('big-') ? photos.get(userId) : Buffer.from('small');
        if (!bytes) return fail(res, 400, 'Bad Request: invalid file_id');
        const path = `photos/file_${userId}.png`;
        files.set(path, bytes);
        return ok(res, { file_id: id, file_unique_id: `u${id}`, file_size: bytes.length, file_path: path });
      }
      case 'setWebhook':
        webhooks.push(params);
        notify();
        return ok(res, true);
      default:
        return fail(res, 404, 'Not Found');
    }
  }

  const fake = {} as FakeBotApi;
  const served = await serve((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (file) {
        count('file');
        if (decodeURIComponent(file[1]!) !== token) return fail(res, 401, 'Unauthorized');
        const bytes = files.get(decodeURIComponent(file[2]!));
        if (!bytes) return fail(res, 404, 'Not Found');
        await held('file', res);
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length });
        return res.end(bytes);
      }
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
      if (!m) return fail(res, 404, 'Not Found');
      const method = m[2]!;
      count(method);
      if (fake.mode === 'drop') return req.socket.destroy();
      if (fake.mode === '500') return fail(res, 500, 'Internal Server Error');
      if (decodeURIComponent(m[1]!) !== token) return fail(res, 401, 'Unauthorized');
      const params = await readBody(req);
      await held(method, res);
      if (res.destroyed) return;
      await api(method, params, req, res);
    })().catch((err: unknown) => {
      if (!res.headersSent) fail(res, 500, String(err));
    });
  });

  /** Waits while a hold() is on `method`: until the test releases it or the client hangs up. */
  async function held(method: string, res: ServerResponse): Promise<void> {
    const hold = holds.get(method);
    if (!hold) return;
    holds.delete(method);
    hold.arrived();
    await new Promise<void>((resolve) => {
      void hold.released.then(resolve);
      res.once('close', () => resolve()); // the client gave up on it meanwhile
    });
  }

  function count(method: string) {
    calls.set(method, (calls.get(method) ?? 0) + 1);
    notify();
  }

  function waitUntil(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (check()) return resolve();
      const timer = setTimeout(() => {
        listeners.delete(listener);
        reject(new Error(`stand-in Bot API: timed out waiting for ${what}`));
      }, timeoutMs);
      const listener = () => {
        if (!check()) return;
        clearTimeout(timer);
        listeners.delete(listener);
        resolve();
      };
      listeners.add(listener);
    });
  }

  return Object.assign(fake, served, {
    apiRoot: served.url,
    token,
    username,
    sent,
    webhooks,
    calls,
    offsets,
    longPolls,
    mode: 'ok' as FailMode,
    push(update: Record<string, unknown>) {
      const update_id = nextId++;
      updates.push({ ...update, update_id });
      for (const w of [...waiters]) if (available(w.offset, w.limit).length > 0) w.wake();
      return update_id;
    },
    pressStart(user: TelegramUser, payload: string, chatType = 'private') {
      return fake.push({
        message: {
          message_id: messageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: user.id, type: chatType, first_name: user.first_name },
          from: { is_bot: false, ...user },
          text: payload ? `/start ${payload}` : '/start',
          entities: [{ type: 'bot_command', offset: 0, length: 6 }],
        },
      });
    },
    setPhoto(userId: number, bytes: Buffer) {
      photos.set(userId, bytes);
    },
    async nextMessage(chatId: number, skip = 0, timeoutMs = WAIT_MS) {
      const mine = () => sent.filter((m) => m.chat_id === chatId);
      await waitUntil(() => mine().length > skip, `message #${skip + 1} to chat ${chatId}`, timeoutMs);
      return mine()[skip]!;
    },
    waitForCalls(method: string, n: number, timeoutMs = WAIT_MS) {
      return waitUntil(() => (calls.get(method) ?? 0) >= n, `${n} ${method} call(s)`, timeoutMs);
    },
    until: (check: () => boolean, what: string, timeoutMs = WAIT_MS) => waitUntil(check, what, timeoutMs),
    pendingUpdates: () => updates.length,
    hold(method: string): Hold {
      let arrived!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.set(method, { arrived, released });
      return { reached, release };
    },
    async close() {
      for (const w of [...waiters]) w.wake();
      await served.close();
    },
  });
}
