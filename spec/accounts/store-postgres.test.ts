/**
 * The PostgreSQL account store against a real server (Debian's postgresql, started by the helper): the
 * AccountStore contract, each store on a table prefix of its own, and what the table holds.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { openPostgresAccountStore } from '../../lib/accounts/postgres-store.js';
import { rawClient, startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { account, accountStoreContract } from './store-contract.js';

let server: PostgresPeer;
test.before(async () => {
  server = await startPostgres();
});
test.after.always(() => server?.destroy());

/** A table of its own per store; 30 s to connect (a loaded machine took more than the default 5). */
const fresh = () => `${server.uri}?prefix=a${randomBytes(5).toString('hex')}_&timeout=30000`;

accountStoreContract(test, 'PostgreSQL', () => openPostgresAccountStore(fresh()));

test('PostgreSQL: the row holds the PHC string and the address, in columns a DBA can read', async (t) => {
  const uri = fresh();
  const store = await openPostgresAccountStore(uri);
  t.teardown(() => store.close());
  const a = account();
  await store.create(a);
  const client = await rawClient(t, server.uri);
  const prefix = new URL(uri).searchParams.get('prefix')!;
  const row = (await client.query(`SELECT * FROM "public"."${prefix}accounts" WHERE id = $1`, [a.id])).rows[0];
  t.is(row.email, a.email);
  t.is(row.password_hash, a.passwordHash);
  t.is(row.email_confirmed, false);
});

test('PostgreSQL: a server that is not there rejects at open, naming the option and not the password', async (t) => {
  const err = await t.throwsAsync(openPostgresAccountStore('postgres://u:s3cret@127.0.0.1:1/db'));
  t.regex(err!.message, /accounts\.store|127\.0\.0\.1:1/);
  t.false(err!.message.includes('s3cret'));
});
