/**
 * `authctl webhooks`, run as a separate process: `list` and `replay` on the LMDB outbox an app's processes share (a
 * dead letter made here through the outbox itself), `test` against a receiver that checks the signature with the
 * third-party `standardwebhooks` package, `secret` giving one that package takes; bad arguments in one line.
 */
import test from 'ava';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { webhookOutbox } from '../../lib/webhooks/outbox.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { startReceiver } from '../webhooks/receiver.js';

test('list shows a dead letter without its body; replay puts it back in the outbox, due now', async (t) => {
  const path = join(tempDir(t, 'authkoa-wh-'), 'state');
  const store = new LmdbStateStore(path);
  t.teardown(() => store.close());
  const outbox = webhookOutbox(store, Date.now);
  await outbox.add([{ id: 'msg_dead1', endpoint: 'ep1', type: 'login', body: '{"secret":"no"}' }]);
  const [leased] = await outbox.lease(1, 10_000);
  await outbox.bury(leased!, 'endpoint answered 410 Gone');

  const empty = join(tempDir(t), 'empty');
  await new LmdbStateStore(empty).close();
  const none = await runCli(['webhooks', 'list', '--store', `lmdb://${empty}`]);
  t.regex(none.stdout, /no dead letters/);
  const listed = await runCli(['webhooks', 'list', '--store', `lmdb://${path}`]);
  t.is(listed.code, 0, listed.stderr);
  t.regex(listed.stdout, /^msg_dead1 {2}login {2}endpoint ep1 {2}0 tries {2}endpoint answered 410 Gone$/m);
  t.false(listed.stdout.includes('secret'), 'never the body');
  const json = await runCli(['webhooks', 'list', '--store', `lmdb://${path}`, '--json']);
  t.like(JSON.parse(json.stdout), [{ id: 'msg_dead1', type: 'login', endpoint: 'ep1' }]);

  const replayed = await runCli(['webhooks', 'replay', 'msg_dead1', '--store', `lmdb://${path}`]);
  t.is(replayed.code, 0, replayed.stderr);
  t.like(await outbox.lease(1, 10_000), [{ message: { id: 'msg_dead1', attempts: 0 } }], 'due now');
  const again = await runCli(['webhooks', 'replay', 'msg_dead1', '--store', `lmdb://${path}`]);
  t.is(again.code, 1);
  t.regex(again.stderr, /no dead letter msg_dead1/);
  const bad = await runCli(['webhooks', 'replay', 'x y', '--store', `lmdb://${path}`]);
  t.regex(bad.stderr, /<id> must be a message id/);
  const memory = await runCli(['webhooks', 'list', '--store', 'memory://']);
  t.not(memory.code, 0);
});

test('test sends a signed webhook.test that standardwebhooks verifies; secret makes a secret it takes', async (t) => {
  const made = await runCli(['webhooks', 'secret']);
  const secret = made.stdout.trim();
  t.regex(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.notThrows(() => new Webhook(secret));
  const r = await startReceiver(secret);
  t.teardown(() => r.close());
  const sent = await runCli(['webhooks', 'test', `${r.url}/in`, '--secret', secret]);
  t.is(sent.code, 0, sent.stderr);
  t.regex(sent.stdout, /answered 200 to msg_/);
  t.is(r.deliveries[0]!.refusal, undefined);
  t.like(r.deliveries[0]!.verified, { type: 'webhook.test' });
  r.status = 500;
  t.is((await runCli(['webhooks', 'test', r.url, '--secret', secret])).code, 1, 'a refusal exits 1');
  const wrong = await runCli(['webhooks', 'test', r.url, '--secret', 'hunter2']);
  t.is(wrong.code, 1);
  t.regex(wrong.stderr, /--secret must be whsec_/);
});
