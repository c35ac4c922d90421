import { TelegramApiError } from 'node-telegram-bot-api';
import type { Logger } from '../../logger.js';
import type { LoginBot } from './bot.js';

/** Updates handled at once. */
const CONCURRENCY = 8;

/** Options of startPolling(). */
export interface PollerOptions {
  /** Long-poll wait per getUpdates call, in seconds. Default 25. */
  pollTimeout?: number;
  /** First wait after a failed getUpdates, in ms; doubles per failure in a row. Default 500. */
  backoffMin?: number;
  /** Longest wait between failed calls, in ms. Default 30 000. */
  backoffMax?: number;
  logger: Logger;
  /** Called once the bot's username is known and polling has begun. */
  onReady?: (username: string) => void;
}

/** A running poll loop. */
export interface Poller {
  /** Resolves with the bot username once polling began (never rejects; failures are retried). */
  readonly ready: Promise<string>;
  /** Stops the loop: the pending long poll is aborted, the update in hand is finished or cut. */
  stop(): Promise<void>;
}

/** One poll loop's state: what it calls, its limits, its failure streak and where it is in the update stream. */
interface Loop {
  readonly bot: LoginBot;
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly pollTimeout: number;
  /** First and longest wait after a failure, in ms. */
  readonly min: number;
  readonly max: number;
  /** Failed Bot API calls in a row. */
  failures: number;
  /** The next update wanted. */
  offset?: number;
  /** The offset Telegram last saw from us. */
  acked?: number;
}

/**
 * Long-polls getUpdates and hands each update to the bot. The offset rule: an update is acknowledged
 * by the next call's `offset = last update_id + 1`, so one that was fetched but not yet handled when
 * the process died is delivered again. Failures of any kind (5xx, 401, 409, dropped connections,
 * timeouts) are logged once per streak and retried with doubling, jittered waits; the loop never
 * throws, so a Bot API outage can never take the application down.
 */
export function startPolling(bot: LoginBot, opts: PollerOptions): Poller {
  const controller = new AbortController();
  const min = opts.backoffMin ?? 500;
  const loop: Loop = {
    bot,
    log: opts.logger,
    signal: controller.signal,
    pollTimeout: opts.pollTimeout ?? 25,
    min,
    max: Math.max(min, opts.backoffMax ?? 30_000),
    failures: 0,
  };
  let resolveReady!: (name: string) => void;
  const ready = new Promise<string>((resolve) => (resolveReady = resolve));
  const done = run(loop, (username) => {
    resolveReady(username);
    opts.onReady?.(username);
  }).catch((err: unknown) => {
    // Unreachable by design; kept so a bug here is a log line, not an unhandled rejection.
    loop.log.error(`telegram: poller stopped: ${bot.describe(err)}`);
  });
  let stopping: Promise<void> | undefined;
  return {
    ready,
    stop() {
      stopping ??= (async () => {
        controller.abort();
        await done;
        await acknowledge(loop);
      })();
      return stopping;
    },
  };
}

/** The bot's username first (getMe, retried), then getUpdates until the loop is stopped. */
async function run(loop: Loop, onReady: (username: string) => void): Promise<void> {
  let username: string | undefined;
  while (!loop.signal.aborted && username === undefined) {
    try {
      username = await loop.bot.username();
    } catch (err) {
      await failed(loop, 'getMe', err);
    }
  }
  if (username === undefined) return;
  if (loop.failures > 0) loop.log.info(`telegram: Bot API reachable again`);
  loop.failures = 0;
  onReady(username);
  await pollUpdates(loop);
}

/** The getUpdates loop: each batch fetched after the last one is handled, failures waited out. */
async function pollUpdates(loop: Loop): Promise<void> {
  const { bot, signal } = loop;
  while (!signal.aborted) {
    let updates: Array<{ update_id: number }>;
    try {
      const asked = loop.offset;
      updates = await bot.api.getUpdates(
        { offset: asked, timeout: loop.pollTimeout, allowed_updates: ['message'] },
        signal,
      );
      loop.acked = asked;
    } catch (err) {
      if (signal.aborted) break;
      await failed(loop, 'getUpdates', err);
      continue;
    }
    if (loop.failures > 0) loop.log.info(`telegram: getUpdates works again after ${loop.failures} failure(s)`);
    loop.failures = 0;
    await dispatch(loop, updates);
  }
}

/**
 * Hands a batch to the bot a few at a time: one slow photo download must not hold up every other
 * login, and a burst of updates must not start a hundred 10 MiB downloads at once.
 */
async function dispatch(loop: Loop, updates: Array<{ update_id: number }>): Promise<void> {
  const { bot, signal } = loop;
  for (let i = 0; i < updates.length && !signal.aborted; i += CONCURRENCY) {
    const batch = updates.slice(i, i + CONCURRENCY);
    await Promise.all(batch.map((u) => bot.handleUpdate(u, signal))); // never throws
    // Acknowledged even if handling failed: a poisoned update must not come back forever.
    loop.offset = batch[batch.length - 1].update_id + 1;
  }
}

/**
 * Counts a failed call and waits before the next: the wait doubles per failure in a row up to the
 * longest, with jitter. The first failure of a streak is logged and then every tenth, so an outage
 * does not flood the log.
 */
function failed(loop: Loop, what: string, err: unknown): Promise<void> {
  const failures = ++loop.failures;
  if (failures === 1 || failures % 10 === 0) {
    const api = err instanceof TelegramApiError ? err : (err as Error | undefined)?.cause;
    const hint = api instanceof TelegramApiError && api.errorCode === 401 ? ' (is the bot token right?)' : '';
    loop.log.warn(`telegram: ${what} failed (${failures} in a row)${hint}: ${loop.bot.describe(err)}`);
  }
  const wait = Math.min(loop.max, loop.min * 2 ** Math.min(failures - 1, 20));
  return sleep(wait * (0.5 + Math.random() * 0.5), loop.signal);
}

/**
 * Tells Telegram which updates were handled before we go: without it the next poller (a restart,
 * another `authctl bot`) would get the last batch again and answer those users twice.
 */
async function acknowledge({ bot, offset, acked }: Loop): Promise<void> {
  if (offset === undefined || offset === acked) return;
  try {
    await bot.api.getUpdates(
      { offset, timeout: 0, limit: 1, allowed_updates: ['message'] },
      AbortSignal.timeout(2_000),
    );
  } catch {
    // Best effort: the worst case is a repeated reply.
  }
}

/** Resolves after `ms`, or at once when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
