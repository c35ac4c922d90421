/**
 * `authctl mfa status|reset` on the factor store an app with the `mfa` option writes. The factors are
 * made through the app's own routes (a set-up confirmed with a code the `otpauth` library computes, a
 * recovery code spent), the CLI runs as a separate process, and the store is read back afterwards.
 */
import test from 'ava';
import { join } from 'node:path';
import { stateFactorStore } from '../../lib/mfa/store.js';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { Client } from '../helpers/http.js';
import { startRedis } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp.js';
import { enrolledUser, passwordLogin, startMfaApp, type MfaApp } from '../mfa/fixtures.js';

/** The id the app gives `user` (the direct provider's `direct_<sha1>`), read from a login's answer. */
async function userIdOf(app: MfaApp, user: string): Promise<string> {
  const res = await passwordLogin(new Client(app.url), user);
  const body = (await res.json()) as { id?: string };
  if (!body.id) throw new Error(`${user} did not log in with a password alone: ${JSON.stringify(body)}`);
  return body.id;
}

/** No stack trace: one `authctl: …` line (or commander's usage error), nothing that looks like `    at f (file:…)`. */
function noStack(t: { false(v: boolean, m?: string): void }, r: CliResult): void {
  t.false(/^\s+at /m.test(r.stderr), `no stack trace in: ${r.stderr}`);
}

test('status shows TOTP, a pending set-up and the codes left; reset removes them while the app runs, and the next login needs the password alone', async (t) => {
  const dir = tempDir(t, 'authkoa-mfa-cli-');
  const uri = `lmdb://${join(dir, 'mfa')}`;
  const app = await startMfaApp({ mfa: { store: uri } });
  t.teardown(() => app.close());
  const [aliceId, bobId] = [await userIdOf(app, 'alice'), await userIdOf(app, 'bob')];

  const turnedOn = app.clock();
  const { recoveryCodes } = await enrolledUser(app, 'alice');
  // One recovery code spent through the second step: 9 left.
  const c = new Client(app.url);
  t.like(await (await passwordLogin(c, 'alice')).json(), { mfa_required: true });
  t.is((await c.fetch('/auth/mfa/verify', { method: 'POST', json: { recoveryCode: recoveryCodes[0] } })).status, 200);
  // Bob starts a set-up and never confirms it.
  const b = new Client(app.url);
  await passwordLogin(b, 'bob');
  const pendingAt = app.clock();
  t.is((await b.fetch('/auth/mfa/totp/setup', { method: 'POST', headers: b.xsrf() })).status, 200);

  const alice = await runCli(['mfa', 'status', aliceId, '--store', uri]);
  t.is(alice.code, 0, alice.stderr);
  t.is(
    alice.stdout,
    `user:            ${aliceId}\ntotp:            on since ${new Date(turnedOn).toISOString()}\nset-up pending:  no\nrecovery codes:  9 left\n`,
  );
  const bob = await runCli(['mfa', 'status', bobId, '--store', uri, '--json']);
  t.is(bob.code, 0, bob.stderr);
  // Exactly these keys: nothing sealed, no code hash, is printed.
  t.deepEqual(JSON.parse(bob.stdout), {
    userId: bobId,
    stored: true,
    totp: false,
    totpSince: null,
    setupPending: true,
    pendingSince: new Date(pendingAt).toISOString(),
    recoveryCodesLeft: 0,
  });
  const nobody = await runCli(['mfa', 'status', 'direct_nobody', '--store', uri]);
  t.is(nobody.code, 0, nobody.stderr);
  t.is(
    nobody.stdout,
    `authctl mfa: nothing is stored for direct_nobody in ${uri}: no second factor was set up there (is --store the apps' mfa.store?)\n`,
  );

  const reset = await runCli(['mfa', 'reset', aliceId, '--store', uri]);
  t.is(reset.code, 0, reset.stderr);
  t.is(reset.stdout, `authctl mfa: removed the TOTP key and 9 recovery codes of ${aliceId}\n`);
  // The running app reads the same LMDB files: alice's next login is a session at once.
  const after = new Client(app.url);
  const login = await passwordLogin(after, 'alice');
  t.like(await login.json(), { id: aliceId });
  t.truthy(after.jar.get('JWT'));
  const again = await runCli(['mfa', 'reset', aliceId, '--store', uri]);
  t.is(again.code, 0, again.stderr);
  t.is(again.stdout, `authctl mfa: ${aliceId} has no second factor stored: nothing removed\n`);
  t.is(
    (await runCli(['mfa', 'reset', bobId, '--store', uri])).stdout,
    `authctl mfa: removed a pending set-up of ${bobId}\n`,
  );

  await app.close();
  const state = new LmdbStateStore(join(dir, 'mfa'));
  t.teardown(() => state.close());
  const factors = stateFactorStore(state);
  t.is(await factors.get(aliceId), undefined);
  t.is(await factors.get(bobId), undefined);
});

test('status on a store that holds no second factors says nothing is stored there, not "totp: off"; --json says stored: false', async (t) => {
  const redis = await startRedis({ password: 'hunter2' });
  t.teardown(() => redis.stop());
  const uri = `${redis.uri}/0`;
  const text = await runCli(['mfa', 'status', 'local_alice', '--store', uri]);
  t.is(text.code, 0, text.stderr);
  const shown = uri.replace(':hunter2@', ':***@');
  t.is(
    text.stdout,
    `authctl mfa: nothing is stored for local_alice in ${shown}: no second factor was set up there (is --store the apps' mfa.store?)\n`,
  );
  t.false(/totp|recovery codes/.test(text.stdout), 'no factor reported as off');
  const json = await runCli(['mfa', 'status', 'local_alice', '--store', uri, '--json']);
  t.is(json.code, 0, json.stderr);
  t.like(JSON.parse(json.stdout), { userId: 'local_alice', stored: false, totp: false, recoveryCodesLeft: 0 });
});

test('status and reset on a real redis-server', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  const uri = `${redis.uri}/0?prefix=mfa:`;
  const app = await startMfaApp({ mfa: { store: uri } });
  t.teardown(() => app.close());
  const aliceId = await userIdOf(app, 'alice');
  await enrolledUser(app, 'alice');

  const status = await runCli(['mfa', 'status', aliceId, '--store', uri, '--json']);
  t.is(status.code, 0, status.stderr);
  t.like(JSON.parse(status.stdout), { userId: aliceId, totp: true, setupPending: false, recoveryCodesLeft: 10 });
  const reset = await runCli(['mfa', 'reset', aliceId, '--store', uri]);
  t.is(reset.code, 0, reset.stderr);
  t.is(reset.stdout, `authctl mfa: removed the TOTP key and 10 recovery codes of ${aliceId}\n`);
  t.like(JSON.parse((await runCli(['mfa', 'status', aliceId, '--store', uri, '--json'])).stdout), {
    totp: false,
    recoveryCodesLeft: 0,
  });
  t.like(await (await passwordLogin(new Client(app.url), 'alice')).json(), { id: aliceId });
});

test('bad arguments: a message naming the argument, a non-zero exit, no stack trace, no password echoed', async (t) => {
  const dir = tempDir(t, 'authkoa-mfa-cli-');
  const uri = `lmdb://${join(dir, 'mfa')}`;
  const [memory, bad, missing, empty, unknown] = await Promise.all([
    runCli(['mfa', 'status', 'u', '--store', 'memory://']),
    runCli(['mfa', 'reset', 'u', '--store', 'etcd://u:hunter2@h']),
    runCli(['mfa', 'status', 'u']),
    runCli(['mfa', 'reset', '', '--store', uri]),
    runCli(['mfa', 'wipe', 'u', '--store', uri]),
  ]);
  t.not(memory.code, 0);
  t.regex(memory.stderr, /--store must be the apps' shared store/);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /--store must be lmdb:\/\/<path>, redis:\/\/…, mongodb:\/\/… or postgres:\/\//);
  t.false(bad.stderr.includes('hunter2'));
  t.not(missing.code, 0);
  t.regex(missing.stderr, /required option '--store <uri>'/);
  t.not(empty.code, 0);
  t.regex(empty.stderr, /<user> must not be empty: a user id/);
  t.not(unknown.code, 0);
  t.regex(unknown.stderr, /unknown command 'wipe'/);
  for (const r of [memory, bad, missing, empty, unknown]) {
    t.is(r.stdout, '');
    noStack(t, r);
  }
});
