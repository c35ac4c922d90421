/**
 * The second factor across two app processes (separate `node` processes, spec/mfa/fixtures/app-process.ts)
 * on one real redis-server, which is both their stateStore and their mfa.store, with one secret: what
 * one process spent (a TOTP step, a partial login) or counted (failed codes) holds in the other. The
 * processes run on the real clock, so each code is computed right before it is sent. Each test has a user
 * of its own, so they share the two processes.
 */
import test from 'ava';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { spawnTs, waitForLine } from '../helpers/cli.js';
import { Client } from '../helpers/http.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import { appCode, errorCode, verify, wrongCode } from './fixtures.js';

const APP = fileURLToPath(new URL('./fixtures/app-process.ts', import.meta.url));
const STEP_MS = 30_000;

interface AppProcess {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

let redis: RedisPeer;
let A: AppProcess;
let B: AppProcess;

async function appProcess(stateStore: string, mfaStore: string): Promise<AppProcess> {
  const child = spawnTs(APP, [stateStore, mfaStore]);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = (await waitForLine(child, /^listening (http:\/\/\S+)/m))[1]!;
  return { url, child, stderr: () => stderr };
}

/** Stops an app process and checks it exited 0 (its close() worked). */
async function stop(p: AppProcess | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null) return;
  p.child.kill('SIGTERM');
  const [code] = await once(p.child, 'close');
  if (code !== 0) throw new Error(`app process exited ${code}: ${p.stderr()}`);
}

test.before(async () => {
  redis = await startRedis();
  const prefix = randomBytes(5).toString('hex');
  const state = `${redis.uri}/0?prefix=st${prefix}:`;
  const factors = `${redis.uri}/0?prefix=mfa${prefix}:`;
  [A, B] = await Promise.all([appProcess(state, factors), appProcess(state, factors)]);
});
test.after.always(async () => {
  await Promise.all([stop(A), stop(B)]);
  await redis?.stop();
});

const stepOf = (ms: number) => Math.floor(ms / STEP_MS);

/**
 * A code of the user's key the server accepts now: of the steps within the window (±1) one not spent
 * yet, the one valid longest first. Step−1 is skipped in the last 2 s of a step (it could be past the
 * window when it arrives); when nothing is left, this waits for the next step, as a person would.
 */
async function codeNow(otpauthUrl: string, spent: Set<number>): Promise<{ code: string; step: number }> {
  for (;;) {
    const now = Date.now();
    const current = stepOf(now);
    const left = (current + 1) * STEP_MS - now;
    for (const step of [current + 1, current, current - 1]) {
      if (spent.has(step) || (step < current && left < 2000)) continue;
      spent.add(step);
      return { code: appCode(otpauthUrl, step * STEP_MS), step };
    }
    await delay(left + 50);
  }
}

const login = (c: Client, user: string) =>
  c.fetch('/auth/direct/login', { method: 'POST', json: { user, passwd: `${user}-pw` } });

/** Turns TOTP on for `user` through process A: the key URI and the steps spent so far. */
async function enrolOnA(user: string): Promise<{ otpauthUrl: string; spent: Set<number> }> {
  const c = new Client(A.url);
  if ((await login(c, user)).status !== 200) throw new Error('login');
  const { otpauthUrl } = (await (
    await c.fetch('/auth/mfa/totp/setup', { method: 'POST', headers: c.xsrf() })
  ).json()) as { otpauthUrl: string };
  const spent = new Set<number>();
  const { code } = await codeNow(otpauthUrl, spent);
  const confirmed = await c.fetch('/auth/mfa/totp/confirm', { method: 'POST', headers: c.xsrf(), json: { code } });
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${await confirmed.text()}`);
  return { otpauthUrl, spent };
}

/** A login of `user` on the process of `c`, which must stop at the second step. */
async function pendingLogin(c: Client, user: string): Promise<void> {
  const res = await login(c, user);
  const body = (await res.json()) as { mfa_required?: boolean };
  if (res.status !== 200 || body.mfa_required !== true)
    throw new Error(`expected a second step, got ${res.status} ${JSON.stringify(body)}`);
}

test('a code accepted on process A (finishing a login) is refused on process B for a second login in the same step: 403 invalid_code', async (t) => {
  const { otpauthUrl, spent } = await enrolOnA('alice');
  const [onA, onB] = [new Client(A.url), new Client(B.url)];
  await pendingLogin(onA, 'alice');
  await pendingLogin(onB, 'alice'); // B sees the factor A turned on: one mfa.store
  const { code, step } = await codeNow(otpauthUrl, spent);
  t.is((await verify(onA, { code })).status, 200);
  t.true(onA.jar.has('JWT'));
  const replay = await verify(onB, { code });
  t.true(
    stepOf(Date.now()) <= step + 1,
    'B answered while the code was still inside the window: refused as spent, not as late',
  );
  t.is(replay.status, 403);
  t.is(await errorCode(replay), 'invalid_code');
  t.false(onB.jar.has('JWT'));
});

test('a partial login started on A is finished on B; replaying that partial on A afterwards is 401 mfa_session_invalid', async (t) => {
  const { otpauthUrl, spent } = await enrolOnA('bob');
  const onA = new Client(A.url);
  await pendingLogin(onA, 'bob');
  const partial = onA.jar.get('JWT-MFA');
  t.truthy(partial);
  const onB = new Client(B.url);
  onB.jar.set('JWT-MFA', partial!);
  const finished = await verify(onB, { code: (await codeNow(otpauthUrl, spent)).code });
  t.is(finished.status, 200);
  t.like(await finished.json(), { name: 'bob' });
  t.true(onB.jar.has('JWT'), 'B started the session');
  t.is((await onB.fetch('/auth/user', { headers: onB.xsrf() })).status, 200);

  const replay = await verify(onA, { code: (await codeNow(otpauthUrl, spent)).code });
  t.is(replay.status, 401);
  t.is(await errorCode(replay), 'mfa_session_invalid');
  t.false(onA.jar.has('JWT'));
});

test('5 wrong codes spread over A and B lock the user out on both (429, even with the right code)', async (t) => {
  const { otpauthUrl, spent } = await enrolOnA('carol');
  const [onA, onB] = [new Client(A.url), new Client(B.url)];
  await pendingLogin(onA, 'carol');
  await pendingLogin(onB, 'carol');
  const statuses = [];
  for (const c of [onA, onB, onA, onB, onA])
    statuses.push((await verify(c, { code: wrongCode(otpauthUrl, Date.now()) })).status);
  t.deepEqual(statuses, [403, 403, 403, 403, 403]);
  const { code } = await codeNow(otpauthUrl, spent);
  const lockedB = await verify(onB, { code });
  t.is(lockedB.status, 429, 'locked on B by failures on both');
  t.is(await errorCode(lockedB), 'rate_limited');
  t.regex(lockedB.headers.get('retry-after') ?? '', /^\d+$/);
  t.is((await verify(onA, { code })).status, 429, 'and on A');
  const other = new Client(B.url);
  const { otpauthUrl: davesUrl, spent: davesSpent } = await enrolOnA('dave');
  await pendingLogin(other, 'dave');
  t.is(
    (await verify(other, { code: (await codeNow(davesUrl, davesSpent)).code })).status,
    200,
    'another user is not locked out',
  );
});
