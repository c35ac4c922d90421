/**
 * The CLI's commands on the apps' shared store when it is PostgreSQL, each a separate `authctl` process
 * against an app in this process on the same database: what one writes the other reads, and every
 * command exits once done (its pool ended, nothing left holding the process).
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { runCli } from '../helpers/cli.js';
import { Client, startApp } from '../helpers/http.js';
import { startPostgres, type PostgresPeer } from '../helpers/postgres.js';

const SECRET = 'postgres-cli-test-secret-0123456789abcdef';

let server: PostgresPeer;
test.before(async () => {
  server = await startPostgres();
});
test.after.always(() => server?.destroy());

test("authctl sessions list and revoke on postgres://: the app's session is listed, revoked, and refused at its next refresh", async (t) => {
  const uri = `${server.uri}?prefix=t${randomBytes(4).toString('hex')}_`;
  let now = Date.now();
  const app = await startApp({
    secret: SECRET,
    stateStore: uri,
    clock: () => now,
    providers: [{ kind: 'direct', name: 'local', checker: () => true }],
  });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const user = (await (
    await c.fetch('/auth/local/login', { method: 'POST', json: { user: 'alice', passwd: 'pw' } })
  ).json()) as { id: string };

  const listed = await runCli(['sessions', 'list', user.id, '--store', uri, '--json']);
  t.is(listed.code, 0, listed.stderr);
  const sessions = JSON.parse(listed.stdout) as Array<{ sid: string; provider: string }>;
  t.is(sessions.length, 1);
  t.is(sessions[0]!.provider, 'local');

  const revoked = await runCli(['sessions', 'revoke', user.id, '--store', uri]);
  t.is(revoked.code, 0, revoked.stderr);
  now += 16 * 60_000; // past the token's 15 minutes: the next request refreshes it, and the revocation is read
  const res = await c.fetch('/auth/user', { headers: c.xsrf() });
  t.is(res.status, 401);
  t.is(((await res.json()) as { code: string }).code, 'session_revoked');
});

test('authctl mfa status on postgres:// answers for an unknown user and exits; a refused database is one line without the password', async (t) => {
  const uri = `${server.uri}?prefix=t${randomBytes(4).toString('hex')}_`;
  const status = await runCli(['mfa', 'status', 'local_nobody', '--store', uri, '--json']);
  t.is(status.code, 0, status.stderr);
  t.like(JSON.parse(status.stdout), { totp: false });
  const bad = await runCli([
    'mfa',
    'status',
    'u',
    '--store',
    server.uri.replace('authkoa@', 'authkoa:hunter2@').replace(/\/authkoa$/, '/no_such_db'),
  ]);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /^authctl: .*no_such_db.*does not exist\n$/);
  t.false(bad.stderr.includes('hunter2'));
});
