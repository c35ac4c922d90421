import { Command, InvalidArgumentError } from 'commander';
import { funcLogger } from '../../lib/logger.js';
import { loadWithPackage } from '../../lib/util/optional.js';
import type { StateTarget } from '../../lib/state/types.js';
import { checkSharedStore, openSharedStore, SHARED_STORES } from './shared-store.js';
import { LoginRequests } from '../../lib/providers/telegram/requests.js';

interface BotOptions {
  token?: string;
  store: string;
  apiRoot?: string;
  successMsg?: string;
  errorMsg?: string;
  pollTimeout: number;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 50)
    throw new InvalidArgumentError('must be a whole number of seconds from 0 to 50');
  return n;
}

/** Where the requests live, for the ready line: never a database URI, which may carry a password. */
function describeStore(target: StateTarget): string {
  return target.kind === 'lmdb' ? `lmdb://${target.path}` : target.kind;
}

/**
 * `authctl bot`: the Telegram poller as its own process, for apps whose providers run with
 * `poll: false` and the same `stateStore`. Runs until SIGINT or SIGTERM, then stops polling,
 * acknowledges the updates it handled and closes the store.
 */
export function botCommand(): Command {
  return new Command('bot')
    .description(
      'poll Telegram for bot logins and confirm them in a shared state store (apps run the provider with poll: false)',
    )
    .option(
      '--token <token>',
      'bot token from BotFather (default: $TELEGRAM_BOT_TOKEN, which keeps it out of the process list)',
    )
    .requiredOption('--store <uri>', `state store shared with the app: ${SHARED_STORES}`)
    .option('--api-root <url>', 'Bot API root (self-hosted Bot API server; default https://api.telegram.org)')
    .option('--success-msg <text>', 'reply after a successful Start')
    .option('--error-msg <text>', 'reply to an unknown or expired Start')
    .option('--poll-timeout <s>', 'long-poll wait per getUpdates call', seconds, 25)
    .action(async (opts: BotOptions) => {
      const token = opts.token ?? process.env.TELEGRAM_BOT_TOKEN;
      if (!token) throw new Error('a bot token is needed: --token or $TELEGRAM_BOT_TOKEN');
      const target = checkSharedStore(opts.store);
      if (opts.apiRoot !== undefined && !/^https?:\/\//.test(opts.apiRoot))
        throw new Error('--api-root must be an http(s) URL');
      // Loaded here, not with the CLI: the Telegram client is an optional package the other commands never need.
      const [{ LoginBot }, { startPolling }] = await loadWithPackage('node-telegram-bot-api', 'the bot command', () =>
        Promise.all([import('../../lib/providers/telegram/bot.js'), import('../../lib/providers/telegram/poller.js')]),
      ).catch((err: Error) => {
        throw new Error(err.message.replace(/^authKoa: /, ''));
      });
      const logger = funcLogger((msg) => process.stderr.write(`${new Date().toISOString()} ${msg}\n`));
      const store = await openSharedStore(target);
      const bot = new LoginBot({
        token,
        apiRoot: opts.apiRoot,
        successMsg: opts.successMsg,
        errorMsg: opts.errorMsg,
        requests: new LoginRequests(() => Promise.resolve(store), Date.now),
        logger,
      });
      const stop = new Promise<string>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      const poller = startPolling(bot, {
        logger,
        pollTimeout: opts.pollTimeout,
        onReady: (username) =>
          process.stdout.write(`authctl bot: @${username} polling for logins (state in ${describeStore(target)})\n`),
      });
      const signal = await stop;
      await poller.stop();
      await store.close();
      process.stdout.write(`authctl bot: stopped (${signal})\n`);
    });
}
