/**
 * PostgreSQL over TLS: a real server started with a self-signed certificate that takes TCP logins
 * only over TLS (`hostssl`). The URI's TLS parameters (`sslmode`, `sslrootcert`) reach node-postgres
 * as they are, and so do the `ssl` options given in code; a certificate that does not verify, or a
 * client that does not ask for TLS, is a start-up error naming the URI (no retry would fix it).
 */
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgresStateStore } from '../../lib/state/postgres.js';
import { PostgresStore } from '../../lib/avatar/stores/postgres.js';
import { startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { selfSignedCert } from '../helpers/tls.js';
import { tempDir } from '../helpers/temp.js';

let server: PostgresPeer;
let cert: { key: string; cert: string };
test.before(async () => {
  cert = await selfSignedCert();
  server = await startPostgres({ password: 'tls-test-pw', tls: cert });
});
test.after.always(() => server?.destroy());

/** The connections the server holds now, and whether each is over TLS: read by the server, not by us. */
async function tlsOfConnections(): Promise<boolean[]> {
  const admin = new pg.Client({ connectionString: server.uri, ssl: { rejectUnauthorized: false } });
  await admin.connect();
  try {
    const res = await admin.query<{ ssl: boolean }>(
      "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'tls-store' AND a.pid <> pg_backend_pid()",
    );
    return res.rows.map((r) => r.ssl);
  } finally {
    await admin.end();
  }
}

test('sslmode=verify-full with sslrootcert: the state store and the avatar store work, over TLS', async (t) => {
  const ca = join(tempDir(t), 'ca.pem');
  writeFileSync(ca, cert.cert);
  const uri = `${server.uri}?sslmode=verify-full&sslrootcert=${encodeURIComponent(ca)}&application_name=tls-store`;
  const state = await openPostgresStateStore(uri);
  const avatars = await PostgresStore.open(uri);
  t.teardown(() => Promise.all([state.close(), avatars.close()]));
  t.true(await state.create('ns', 'k', { over: 'tls' }, Date.now() + 60_000));
  t.deepEqual((await state.get('ns', 'k'))?.value, { over: 'tls' });
  const id = await avatars.put('user-1', Buffer.from('bytes over tls'));
  t.is((await avatars.get(id))?.data.toString(), 'bytes over tls');
  const seen = await tlsOfConnections();
  t.true(seen.length > 0, 'the server sees the stores connected');
  t.true(seen.every(Boolean), 'every connection of the stores is encrypted');
});

test('the ssl option given in code (a CA) is used when the URI names no TLS parameter', async (t) => {
  const state = await openPostgresStateStore(`${server.uri}?application_name=tls-store`, {
    ssl: { ca: cert.cert, servername: 'localhost' },
  });
  t.teardown(() => state.close());
  t.true(await state.create('ns', 'code', 1, Date.now() + 60_000));
  t.true((await tlsOfConnections()).every(Boolean));
});

test('a certificate that does not verify (no CA given) is a start-up TypeError naming the redacted URI', async (t) => {
  const err = await t.throwsAsync(openPostgresStateStore(`${server.uri}?sslmode=verify-full`), {
    instanceOf: TypeError,
  });
  t.regex(
    err!.message,
    /^authKoa: stateStore postgres:\/\/authkoa:\*\*\*@127\.0\.0\.1:\d+\/authkoa\?sslmode=verify-full: .*self[- ]signed/i,
  );
  t.false(err!.message.includes('tls-test-pw'));
});

test('a client that does not ask for TLS is refused by the server: a start-up TypeError (pg_hba), password redacted', async (t) => {
  const err = await t.throwsAsync(PostgresStore.open(server.uri), { instanceOf: TypeError });
  t.regex(err!.message, /^authKoa: avatarStore postgres:\/\/authkoa:\*\*\*@.*no pg_hba\.conf entry/);
  t.false(err!.message.includes('tls-test-pw'));
});

test('an sslrootcert file that does not exist is a start-up TypeError, not an outage', async (t) => {
  const err = await t.throwsAsync(
    openPostgresStateStore(`${server.uri}?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem`),
    { instanceOf: TypeError },
  );
  t.regex(err!.message, /ENOENT|no such file/);
});
