/**
 * `authctl tokens list` and `revoke`, run as a separate process on the LMDB environment an app (in this process)
 * keeps its state in: what they read and revoke, the app refusing the token within its revocation delay on the
 * app's injected clock, and how they refuse bad arguments.
 */
import test from 'ava';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { bearer, loggedIn, newToken, tokensRig } from '../personal-tokens/rig.js';

test('list shows the live tokens without secrets; revoke ends one, and the app refuses it once its delay has passed', async (t) => {
  const state = `lmdb://${join(tempDir(t, 'authkoa-tokens-'), 'state')}`;
  const r = await tokensRig(t, { tokens: { revocationDelay: '30s' }, service: { stateStore: state } });
  await loggedIn(r);
  const made = await newToken(r.client, { name: 'CI deploy', scopes: ['repo:read'] });
  const me = (await (await r.client.fetch('/api/me', { headers: r.client.xsrf() })).json()) as { user: { id: string } };
  t.is((await bearer(r.app.url, '/api/me', made.token)).status, 200, 'cached as live');

  const listed = await runCli(['tokens', 'list', me.user.id, '--store', state, '--json']);
  t.is(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
  t.like(rows, [{ id: made.id, name: 'CI deploy', scopes: ['repo:read'], expires: null }]);
  t.false(listed.stdout.includes(made.token), 'never the secret');
  const text = await runCli(['tokens', 'list', me.user.id, '--store', state]);
  t.regex(text.stdout, new RegExp(`^${made.id}  "CI deploy"  scopes repo:read  created `, 'm'));
  t.regex(text.stdout, /1 token of /);

  const revoked = await runCli(['tokens', 'revoke', me.user.id, made.id, '--store', state]);
  t.is(revoked.code, 0, revoked.stderr);
  t.is(revoked.stdout, `authctl tokens: token ${made.id} of ${me.user.id} is revoked\n`);
  t.is((await bearer(r.app.url, '/api/me', made.token)).status, 200, 'this process believes its cache for 30 s');
  r.clock.advance(30_000);
  t.is((await bearer(r.app.url, '/api/me', made.token)).status, 401, 'then asks the store again');
  const again = await runCli(['tokens', 'revoke', me.user.id, made.id, '--store', state]);
  t.not(again.code, 0);
  t.regex(again.stderr, /no live token pat_\S+ of /);
  const none = await runCli(['tokens', 'list', me.user.id, '--store', state]);
  t.regex(none.stdout, /no live personal tokens of /);
});

test('revoke --all ends every token of the user', async (t) => {
  const state = `lmdb://${join(tempDir(t, 'authkoa-tokens-'), 'state')}`;
  const r = await tokensRig(t, { tokens: { revocationDelay: '1s' }, service: { stateStore: state } });
  await loggedIn(r);
  const a = await newToken(r.client, { name: 'a' });
  const b = await newToken(r.client, { name: 'b' });
  const me = (await (await r.client.fetch('/api/me', { headers: r.client.xsrf() })).json()) as { user: { id: string } };
  const res = await runCli(['tokens', 'revoke', me.user.id, '--all', '--store', state]);
  t.is(res.code, 0, res.stderr);
  t.is(res.stdout, `authctl tokens: 2 tokens of ${me.user.id} revoked\n`);
  r.clock.advance(1000);
  for (const x of [a, b]) t.is((await bearer(r.app.url, '/api/me', x.token)).status, 401);
});

test('bad arguments are refused naming them', async (t) => {
  const [memory, missing, both, neither, badId] = await Promise.all([
    runCli(['tokens', 'list', 'u', '--store', 'memory://']),
    runCli(['tokens', 'list', 'u']),
    runCli(['tokens', 'revoke', 'u', 'pat_x', '--all', '--store', 'lmdb:///tmp/authkoa-none']),
    runCli(['tokens', 'revoke', 'u', '--store', 'lmdb:///tmp/authkoa-none']),
    runCli(['tokens', 'revoke', 'u', 'pat x/..', '--store', 'lmdb:///tmp/authkoa-none']),
  ]);
  t.not(memory.code, 0);
  t.regex(memory.stderr, /--store must be the apps' shared store/);
  t.regex(missing.stderr, /required option '--store <uri>'/);
  t.regex(both.stderr, /give a <token-id> or --all, not both/);
  t.regex(neither.stderr, /give the <token-id> to revoke, or --all/);
  t.regex(badId.stderr, /<token-id> must be an id/);
  for (const r of [both, neither, badId]) t.false(/\n\s+at /.test(r.stderr), 'no stack trace');
});
