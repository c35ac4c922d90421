/**
 * Two separate `node` processes (spec/authorization-server/fixtures/grant-process.ts) on one state store, a real
 * redis-server or one LMDB file, act as one authorization server: a code issued by one is redeemed at the other, a
 * refresh token rotated by one and reused at the other revokes the family, and a process started again loses nothing.
 */
import test, { type ExecutionContext } from 'ava';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CodeGrant, Family } from '../../lib/authorization-server/grant-store.js';
import { spawnTs, waitForLine } from '../helpers/cli.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp.js';
import { codeGrant, pkce, REDIRECT } from './rig.js';

const CHILD = fileURLToPath(new URL('./fixtures/grant-process.ts', import.meta.url));
/** Every process's clock: one instant, so what they answer does not depend on when each started. */
const CLOCK = String(Date.now());

let redis: RedisPeer;
test.before(async () => {
  redis = await startRedis();
});
test.after.always(() => redis?.stop());

interface Peer {
  /** Calls the grant store method in that process. */
  call<T = unknown>(method: string, ...args: unknown[]): Promise<T>;
  /** Resolves the first `revoked …` line it printed (its stdout and its answers travel apart: waited for). */
  revoked(): Promise<string>;
  stop(): Promise<void>;
}

/** One grant-store process on `uri`, stopped (and checked to exit 0) at teardown if still running. */
async function peer(t: ExecutionContext, uri: string): Promise<Peer> {
  const child = spawnTs(CHILD, [uri], { AUTHKOA_TEST_CLOCK: CLOCK });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.on('data', (d) => (stdout += d));
  const revoked = async () => {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      const line = /^revoked .*$/m.exec(stdout)?.[0];
      if (line) return line;
    }
    throw new Error(`no revoked line within 10 s: ${stdout}`);
  };
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    const [code] = await once(child, 'close');
    if (code !== 0) throw new Error(`grant process exited ${code}: ${stderr}`);
  };
  t.teardown(stop);
  const base = (await waitForLine(child, /^listening (http:\/\/\S+)/m))[1]!;
  return {
    revoked,
    stop,
    async call<T>(method: string, ...args: unknown[]) {
      const res = await fetch(`${base}/${method}`, { method: 'POST', body: JSON.stringify(args) });
      const body = (await res.json()) as T;
      if (res.status !== 200) throw new Error(`${method}: ${res.status} ${JSON.stringify(body)}`);
      return body;
    },
  };
}

type Redeemed = { grant: CodeGrant; family: Family } | { error: string; description: string };
type Refreshed = { family: Family; refreshToken: string } | { error: string; description: string };

const STORES: Array<[string, (t: ExecutionContext) => string]> = [
  ['redis', () => `${redis.uri}/0?prefix=as${randomBytes(5).toString('hex')}:`],
  ['one LMDB file', (t) => `lmdb://${join(tempDir(t), 'state')}`],
];

for (const [label, storeUri] of STORES) {
  test(`two processes on ${label}: a code issued by one is redeemed at the other; replayed at the first, it revokes the family there too`, async (t) => {
    const uri = storeUri(t);
    const [a, b] = await Promise.all([peer(t, uri), peer(t, uri)]);
    const { verifier, challenge } = await pkce();
    const code = await a.call<string>('issueCode', codeGrant(challenge));
    const check = { clientId: 'app', redirectURI: REDIRECT, verifier };
    const onB = await b.call<Redeemed>('redeemCode', code, check);
    if ('error' in onB) return t.fail(onB.description);
    t.is(onB.family.userId, 'alice');
    t.false(await a.call<boolean>('isRevoked', onB.family.id), 'A sees the family B started');

    const onA = await a.call<Redeemed>('redeemCode', code, check);
    t.deepEqual(onA, { error: 'invalid_grant', description: 'code is unknown, expired or already used' });
    t.is(await a.revoked(), `revoked code_replay ${onB.family.id}`, 'A, where the replay came, revoked it');
    t.true(await b.call<boolean>('isRevoked', onB.family.id), 'and B sees it revoked');
  });

  test(`two processes on ${label}: a refresh token rotated by one and reused at the other revokes the family for both`, async (t) => {
    const uri = storeUri(t);
    const [a, b] = await Promise.all([peer(t, uri), peer(t, uri)]);
    const { verifier, challenge } = await pkce();
    const code = await a.call<string>('issueCode', codeGrant(challenge));
    const redeemed = await a.call<Redeemed>('redeemCode', code, { clientId: 'app', redirectURI: REDIRECT, verifier });
    if ('error' in redeemed) return t.fail(redeemed.description);
    const first = await a.call<string>('issueRefresh', redeemed.family);
    const rotated = await a.call<Refreshed>('refresh', first, { clientId: 'app' });
    if ('error' in rotated) return t.fail(rotated.description);

    const reused = await b.call<Refreshed>('refresh', first, { clientId: 'app' });
    t.deepEqual(reused, { error: 'invalid_grant', description: 'refresh_token is unknown, expired or revoked' });
    t.is(await b.revoked(), `revoked refresh_reuse ${redeemed.family.id}`);
    t.true(await a.call<boolean>('isRevoked', redeemed.family.id));
    const newest = await a.call<Refreshed>('refresh', rotated.refreshToken, { clientId: 'app' });
    t.is('error' in newest && newest.error, 'invalid_grant', 'the token A rotated to is refused at A too');
  });

  test(`two processes on ${label}: one token refreshed at both at once wins at exactly one; a process started again loses nothing`, async (t) => {
    const uri = storeUri(t);
    const [a, b] = await Promise.all([peer(t, uri), peer(t, uri)]);
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) {
      const f = await a.call<Family>('startFamily', { userId: 'alice', clientId: `c${i}`, scopes: [], resources: [] });
      tokens.push(await a.call<string>('issueRefresh', f));
    }
    const answers = await Promise.all(
      tokens.map((tok) =>
        Promise.all([a, b].map((p) => p.call<Refreshed>('refresh', tok, { clientId: `c${tokens.indexOf(tok)}` }))),
      ),
    );
    for (const pair of answers) t.is(pair.filter((x) => !('error' in x)).length, 1, JSON.stringify(pair));

    // B is stopped and another process started on the same store: what B issued is all there.
    const { verifier, challenge } = await pkce();
    const code = await b.call<string>('issueCode', codeGrant(challenge));
    const kept = await b.call<string>(
      'issueRefresh',
      await b.call<Family>('startFamily', {
        userId: 'bob',
        clientId: 'app',
        scopes: ['read'],
        resources: [],
      }),
    );
    await b.stop();
    const c = await peer(t, uri);
    const redeemed = await c.call<Redeemed>('redeemCode', code, { clientId: 'app', redirectURI: REDIRECT, verifier });
    t.false('error' in redeemed, JSON.stringify(redeemed));
    const refreshed = await c.call<Refreshed>('refresh', kept, { clientId: 'app' });
    t.false('error' in refreshed, JSON.stringify(refreshed));
    t.deepEqual(
      (await c.call<Array<{ clientId: string }>>('listGrants', 'bob')).map((g) => g.clientId),
      ['app'],
    );
  });
}
