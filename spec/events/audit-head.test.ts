/**
 * Issue #60: the audit chain's end is anchored. The chain shows no cut at the end of a log, so the app keeps its
 * head beside it (`<file>.head`: the last line's number and SHA-256, MAC'd with `auditKey`). Real app runs write the
 * log and its head; `authctl audit verify` runs as a separate process and names a log cut at its end, a forged head
 * and a missing one, exiting 1; an intact log, and one the app wrote past its head, verify.
 */
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import test from 'ava';
import { lineHash } from '../../lib/events/audit-chain.js';
import type { AuthKoaOptions } from '../../lib/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { startSessionsApp } from '../sessions/fixtures.js';
import { UA, record } from './fixtures.js';

const KEY = 'audit-key-0123456789abcdef-0123456789';
const OTHER_KEY = 'another-key-0123456789abcdef-01234567';

/** An app run writing `path`: `logins` logins of alice, then closed (its head written). */
async function run(
  t: Parameters<typeof startSessionsApp>[0],
  path: string,
  logins: number,
  o: { key?: string | undefined; errors?: string[] } = { key: KEY },
) {
  const logger = { info() {}, warn() {}, error: (m: string) => o.errors?.push(m) };
  const app = await startSessionsApp(t, {
    audit: path,
    ...(o.key !== undefined && { auditKey: o.key }),
    logger,
  } as Partial<AuthKoaOptions>);
  const events = record(app.auth);
  for (let i = 0; i < logins; i++) await app.login('alice', UA);
  await events.until('login', logins);
  await app.auth.close();
}

const linesOf = (path: string) => readFileSync(path, 'utf8').split('\n').slice(0, -1);
const write = (path: string, lines: string[]) => writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
const headOf = (path: string) => JSON.parse(readFileSync(`${path}.head`, 'utf8')) as Record<string, unknown>;

/** A copy of the log at `path` cut by its last `n` lines, with the app's head beside it. */
function cutCopy(path: string, n: number, name: string): string {
  const file = join(path, '..', name);
  write(file, linesOf(path).slice(0, -n));
  copyFileSync(`${path}.head`, `${file}.head`);
  return file;
}

function verify(files: string[], key?: string, more: string[] = []) {
  return runCli(['audit', 'verify', ...files, ...(key ? ['--key', key] : []), ...more]);
}

test('the head names the last line written, its number and a mac; an intact log verifies, across a restart too', async (t) => {
  const path = join(tempDir(t), 'audit.jsonl');
  await run(t, path, 3);
  t.like(headOf(path), { count: 3, hash: lineHash(linesOf(path)[2]!) });
  await run(t, path, 2);
  const lines = linesOf(path);
  t.is(lines.length, 5);
  const head = headOf(path);
  t.like(head, { count: 5, hash: lineHash(lines[4]!) }, 'the restart counts on from the head');
  t.regex(head.mac as string, /^[0-9a-f]{64}$/);
  t.false(existsSync(`${path}.head.tmp`), 'written whole: the temporary file was renamed over the head');
  const ok = await verify([path], KEY);
  t.is(ok.code, 0, ok.stderr);
  t.regex(ok.stdout, /5 lines in 1 file\(s\), chain and macs hold/);
  t.regex(ok.stdout, /the head holds: its line 5 is in the log/);
});

test('a log cut at its end by 1 and by 3 lines: verify names the cut and exits 1, where the chain alone sees nothing', async (t) => {
  const path = join(tempDir(t), 'audit.jsonl');
  await run(t, path, 6);
  for (const n of [1, 3]) {
    const file = cutCopy(path, n, `cut-${n}.jsonl`);
    const res = await verify([file], KEY);
    t.is(res.code, 1, `cut by ${n}: ${res.stdout}`);
    t.true(
      res.stderr.includes(
        `${file}: the log ends at line ${6 - n} but its head says 6: lines were removed from its end`,
      ),
      res.stderr,
    );
  }
  const chainAlone = await verify([join(path, '..', 'cut-3.jsonl')], KEY, ['--no-head']);
  t.is(chainAlone.code, 0, 'the chain of a log cut at its end holds: only the head shows the cut');
});

test('a forged head fails: a mac under another key, a mac removed, a deleted head; without --key a forged head is only unauthenticated', async (t) => {
  const path = join(tempDir(t), 'audit.jsonl');
  await run(t, path, 6);
  const file = cutCopy(path, 3, 'cut.jsonl');
  const kept = linesOf(file);
  // The forger moves the head back to the cut log's last line, but has not the key.
  const hash = lineHash(kept[2]!);
  const mac = createHmac('sha256', OTHER_KEY).update(`authkoa audit head\n3\n${hash}`).digest('hex');
  writeFileSync(`${file}.head`, JSON.stringify({ count: 3, hash, mac }));
  const forged = await verify([file], KEY);
  t.is(forged.code, 1);
  t.regex(forged.stderr, /cut\.jsonl: the head’s mac does not hold: it was forged or edited/);
  const unchecked = await verify([file]);
  t.is(unchecked.code, 0, 'without the key the mac cannot be checked');
  t.regex(unchecked.stdout, /the head’s mac was not checked \(no key given\)/);

  writeFileSync(`${file}.head`, JSON.stringify({ count: 3, hash }));
  const stripped = await verify([file], KEY);
  t.is(stripped.code, 1);
  t.regex(stripped.stderr, /the head has no mac, and a key was given/);

  rmSync(`${file}.head`);
  const missing = await verify([file], KEY);
  t.is(missing.code, 1);
  t.regex(missing.stderr, /no head \(.*cut\.jsonl\.head\): the log's end is not anchored/);
});

test('without auditKey the head is still written, without a mac: verify catches a cut and says the head is unauthenticated', async (t) => {
  const path = join(tempDir(t), 'audit.jsonl');
  await run(t, path, 4, { key: undefined });
  const head = headOf(path);
  t.deepEqual(head, { count: 4, hash: lineHash(linesOf(path)[3]!) });
  const ok = await verify([path]);
  t.is(ok.code, 0, ok.stderr);
  t.regex(ok.stdout, /the head is unauthenticated \(written without auditKey\)/);
  const cut = await verify([cutCopy(path, 1, 'cut.jsonl')]);
  t.is(cut.code, 1);
  t.regex(cut.stderr, /the log ends at line 3 but its head says 4: lines were removed from its end/);
});

test('lines written after the head’s last update (the app stopped before it) verify, with a note saying how many', async (t) => {
  const path = join(tempDir(t), 'audit.jsonl');
  await run(t, path, 3);
  const older = readFileSync(`${path}.head`);
  await run(t, path, 2);
  writeFileSync(`${path}.head`, older); // as if the app had stopped before writing the head of its last two lines
  const res = await verify([path], KEY);
  t.is(res.code, 0, res.stderr);
  t.regex(res.stdout, /2 line\(s\) after the head’s: written after its last update/);
});

test('an app started on a log cut while it was stopped (or beside a head that is not one) reports it, keeps that head aside, and starts a new head', async (t) => {
  const path = join(tempDir(t), 'audit.jsonl');
  await run(t, path, 4);
  const before = readFileSync(`${path}.head`, 'utf8');
  write(path, linesOf(path).slice(0, 2));
  const errors: string[] = [];
  await run(t, path, 1, { key: KEY, errors });
  t.true(
    errors.some((m) =>
      m.includes('audit.jsonl: it ends at line 2 but its head says 4: lines were removed from its end'),
    ),
    errors.join('\n'),
  );
  t.is(readFileSync(`${path}.head.stale`, 'utf8'), before, 'the old head is kept for whoever looks into it');
  t.like(headOf(path), { count: 3, hash: lineHash(linesOf(path)[2]!) });

  // A head that is not one (edited, another file) is kept aside the same way, not overwritten.
  writeFileSync(`${path}.head`, 'not a head\n');
  errors.length = 0;
  await run(t, path, 1, { key: KEY, errors });
  t.true(
    errors.some((m) => m.includes('audit.jsonl.head is not an audit head')),
    errors.join('\n'),
  );
  t.is(readFileSync(`${path}.head.stale`, 'utf8'), 'not a head\n');
  t.like(headOf(path), { count: 4, hash: lineHash(linesOf(path)[3]!) }, 'counted from the file');
});
