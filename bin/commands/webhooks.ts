import { randomBytes } from 'node:crypto';
import { Command } from 'commander';
import { FetchError, safePost } from '../../lib/http/safe-request.js';
import type { Outbox } from '../../lib/outbox/state-outbox.js';
import type { StateStore } from '../../lib/state/types.js';
import { webhookOutbox } from '../../lib/webhooks/outbox.js';
import { secretKey, webhookHeaders } from '../../lib/webhooks/sign.js';
import { checkSharedStore, openSharedStore, SHARED_STORES } from './shared-store.js';

const STORE_HELP = `the apps' stateStore, where the outbox is: ${SHARED_STORES}`;

/** Opens `--store` (never creating it when `readOnly`), runs `use` with the outbox kept there, and closes it. */
async function withOutbox<T>(uri: string, readOnly: boolean, use: (outbox: Outbox) => Promise<T>): Promise<T> {
  const store: StateStore = await openSharedStore(checkSharedStore(uri), { readOnly });
  try {
    return await use(webhookOutbox(store, Date.now));
  } finally {
    await store.close();
  }
}

/**
 * `authctl webhooks list|replay|test|secret` (docs/events.md#webhooks): the dead letters in the outbox the apps share,
 * one sent back to it, a signed test message to a receiver, and a new `whsec_` secret.
 */
export function webhooksCommand(): Command {
  const webhooks = new Command('webhooks').description("the webhooks' outbox, and a receiver's test");
  webhooks
    .command('list')
    .description('list the dead letters: messages that ran out of tries (never their bodies)')
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--json', 'print JSON')
    .action(async (o: { store: string; json?: boolean }) => {
      const dead = await withOutbox(o.store, true, (outbox) => outbox.dead());
      const rows = dead.map((m) => ({
        id: m.id,
        type: m.type,
        endpoint: m.endpoint,
        attempts: m.attempts,
        ...(m.lastError && { lastError: m.lastError }),
      }));
      if (o.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else if (rows.length === 0) process.stdout.write('authctl webhooks: no dead letters\n');
      else
        for (const r of rows)
          process.stdout.write(
            `${r.id}  ${r.type}  endpoint ${r.endpoint}  ${r.attempts} tries  ${r.lastError ?? ''}\n`,
          );
    });
  webhooks
    .command('replay')
    .description('send a dead letter back to the outbox: the apps deliver it, with its id')
    .argument('<id>', 'the message id, as `list` prints it (msg_…)')
    .requiredOption('--store <uri>', STORE_HELP)
    .action(async (id: string, o: { store: string }) => {
      if (!/^msg_[A-Za-z0-9_-]{1,64}$/.test(id)) throw new Error('<id> must be a message id as `list` prints it');
      if (!(await withOutbox(o.store, false, (outbox) => outbox.replay(id)))) throw new Error(`no dead letter ${id}`);
      process.stdout.write(`authctl webhooks: ${id} is back in the outbox\n`);
    });
  webhooks
    .command('test')
    .description('POST a signed webhook.test message to a receiver and print its answer')
    .argument('<url>', "the receiver's URL")
    .requiredOption('--secret <whsec>', 'the endpoint secret (whsec_…)')
    .option('--timeout <ms>', 'the time limit', '10000')
    .action(async (url: string, o: { secret: string; timeout: string }) => {
      let key: Buffer;
      try {
        key = secretKey(o.secret, '--secret');
      } catch (err) {
        throw new Error((err as Error).message.replace(/^authKoa: /, ''));
      }
      const id = `msg_${randomBytes(16).toString('base64url')}`;
      const now = Date.now();
      const body = JSON.stringify({ type: 'webhook.test', timestamp: new Date(now).toISOString(), data: {} });
      const headers = { 'user-agent': 'authkoa-webhooks', ...webhookHeaders(key, id, Math.floor(now / 1000), body) };
      const limits = { timeoutMs: Number(o.timeout), maxBytes: 64 * 1024, allowed: () => true };
      const status = await safePost(url, body, headers, limits).catch((err: unknown) => {
        throw new Error(`the receiver did not answer: ${err instanceof FetchError ? err.reason : String(err)}`);
      });
      process.stdout.write(`authctl webhooks: ${url} answered ${status} to ${id}\n`);
      if (status < 200 || status >= 300) process.exitCode = 1;
    });
  webhooks
    .command('secret')
    .description('print a new endpoint secret: whsec_ and the base64 of 32 random bytes')
    .action(() => {
      process.stdout.write(`whsec_${randomBytes(32).toString('base64')}\n`);
    });
  return webhooks;
}
