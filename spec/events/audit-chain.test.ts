/**
 * The tamper-evident audit log (issue #51): each line carries the SHA-256 of the line before and, with `auditKey`,
 * an HMAC. Real app runs write the file (logins through the direct provider over HTTP); `authctl audit verify` runs
 * as a separate process and names the first line that was edited, removed, moved, inserted or cut, exiting 1; the
 * chain continues across a restart on the same file and across a copytruncate rotation.
 */
import { copyFileSync, readFileSync, truncateSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { checkChain, lineHash } from '../../lib/events/audit-chain.js';
import type { AuthKoaOptions } from '../../lib/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { startSessionsApp } from '../sessions/fixtures.js';
import { UA, record } from './fixtures.js';

const KEY = 'audit-key-0123456789abcdef-0123456789';

/** An app run writing `path`: `logins` logins of alice, then closed; the lines it wrote are in the file. */
async function run(t: Parameters<typeof startSessionsApp>[0], path: string, logins: number, key = KEY) {
  const app = await startSessionsApp(t, { audit: path, auditKey: key } as Partial<AuthKoaOptions>);
  const events = record(app.auth);
  for (let i = 0; i < logins; i++) await app.login('alice', UA);
  await events.until('login', logins);
  await app.auth.close();
}

const linesOf = (path: string) => readFileSync(path, 'utf8').split('\n').slice(0, -1);
const write = (path: string, lines: string[]) => writeFileSync(path, lines.map((l) => `${l}\n`).join(''));

async function verify(files: string[], key?: string) {
  return runCli(['audit', 'verify', ...files, ...(key ? ['--key', key] : [])]);
}

test('every line carries the SHA-256 of the line before and its mac; verify says the count and exits 0', async (t) => {
  const path = join(tempDir(t), 'audit.jsonl');
  await run(t, path, 3);
  const lines = linesOf(path);
  t.is(lines.length, 3);
  t.is((JSON.parse(lines[0]!) as { prev: string }).prev, '0'.repeat(64), 'a new file starts the chain');
  for (let i = 1; i < lines.length; i++)
    t.is((JSON.parse(lines[i]!) as { prev: string }).prev, lineHash(lines[i - 1]!));
  t.regex(lines[0]!, /,"mac":"[0-9a-f]{64}"\}$/);
  const ok = await verify([path], KEY);
  t.is(ok.code, 0, ok.stderr);
  t.regex(ok.stdout, /3 lines in 1 file\(s\), chain and macs hold/);
  const wrongKey = await verify([path], 'another-key-0123456789abcdef-01234567');
  t.is(wrongKey.code, 1);
  t.regex(wrongKey.stderr, /audit\.jsonl:1: mac does not hold/);
});

test('an app restarted on the same file continues its chain; a copytruncate rotation links the new file to the old', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'audit.jsonl');
  await run(t, path, 2);
  await run(t, path, 2);
  const lines = linesOf(path);
  t.is(lines.length, 4);
  t.is((JSON.parse(lines[2]!) as { prev: string }).prev, lineHash(lines[1]!), 'the restart links to the last line');
  t.is((await verify([path], KEY)).code, 0);

  // logrotate's copytruncate while the app runs: the next line links to the last one, now in audit.jsonl.1.
  const app = await startSessionsApp(t, { audit: path, auditKey: KEY } as Partial<AuthKoaOptions>);
  const events = record(app.auth);
  await app.login('alice', UA);
  await events.until('login');
  // The line reaches the file a moment after the event: copytruncate copies what is on disk, so wait for it (a line
  // written between logrotate's copy and its truncate is lost, and a check then names the break).
  while (linesOf(path).length < 5) await new Promise((resolve) => setImmediate(resolve));
  copyFileSync(path, `${path}.1`);
  truncateSync(path, 0);
  await app.login('bob', UA);
  await events.until('login', 2);
  await app.auth.close();
  const both = await verify([`${path}.1`, path], KEY);
  t.is(both.code, 0, both.stderr);
  t.regex(both.stdout, /6 lines in 2 file\(s\)/);
  t.is((await verify([path], KEY)).code, 0, 'the current file alone: its first prev is taken as given');
  const reversed = await verify([path, `${path}.1`], KEY);
  t.is(reversed.code, 1, 'in the wrong order the chain breaks');
  t.regex(reversed.stderr, /audit\.jsonl\.1:1: prev is not/);
});

test('verify --key names the first bad line of each tampering and exits 1', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'audit.jsonl');
  await run(t, path, 6);
  const clean = linesOf(path);
  t.is(clean.length, 6);
  const edit = (line: string) => line.replace('"userId":"direct_', '"userId":"direct_0');
  /** The lines after `from` given new prev values, as a forger without the key would. */
  const rechained = (lines: string[], from: number) => {
    const out = [...lines];
    for (let i = from + 1; i < out.length; i++) {
      const o = JSON.parse(out[i]!) as Record<string, unknown>;
      out[i] = JSON.stringify({ ...o, prev: lineHash(out[i - 1]!) });
    }
    return out;
  };
  const cases: Array<[string, string[], number, RegExp]> = [
    ['an edited field', clean.map((l, i) => (i === 2 ? edit(l) : l)), 3, /mac does not hold/],
    ['a removed line', clean.filter((_, i) => i !== 2), 3, /prev is not/],
    ['two lines swapped', [clean[0]!, clean[2]!, clean[1]!, ...clean.slice(3)], 2, /prev is not/],
    ['an inserted line', [...clean.slice(0, 3), clean[1]!, ...clean.slice(3)], 4, /prev is not/],
    ['the last line cut mid-way', [...clean.slice(0, 5), clean[5]!.slice(0, 40)], 6, /not a whole JSON line/],
    [
      'an edit with the chain recomputed after it',
      rechained(
        clean.map((l, i) => (i === 2 ? edit(l) : l)),
        2,
      ),
      3,
      /mac/,
    ],
  ];
  for (const [what, lines, bad, reason] of cases) {
    const file = join(dir, `${what.replace(/\W+/g, '-')}.jsonl`);
    write(file, lines);
    const res = await verify([file], KEY);
    t.is(res.code, 1, what);
    t.true(res.stderr.includes(`${file}:${bad}:`), `${what}: names line ${bad}: ${res.stderr}`);
    t.regex(res.stderr, reason, what);
  }
  // Without the key the chain alone catches all but a forger who recomputed it: why the key is worth keeping. (These
  // files have no head beside them: --no-head checks the chain alone; audit-head.test.ts checks heads.)
  const forged = join(dir, 'forged.jsonl');
  write(
    forged,
    rechained(
      clean.map((l, i) => (i === 2 ? edit(l) : l)),
      2,
    ),
  );
  t.is((await runCli(['audit', 'verify', forged, '--no-head'])).code, 0);
});

test('the chain check is what catches a removed line: without it, the same file passes', (t) => {
  const lines = (text: string[]) => text.map((l, i) => ({ file: 'f', line: i + 1, text: l }));
  const a = JSON.stringify({ type: 'login', prev: '0'.repeat(64) });
  const b = JSON.stringify({ type: 'logout', prev: lineHash(a) });
  const c = JSON.stringify({ type: 'login', prev: lineHash(b) });
  t.deepEqual(checkChain(lines([a, b, c])), { lines: 3 });
  t.like(checkChain(lines([a, c])), { bad: { line: 2 } });
  t.deepEqual(checkChain(lines([a, c]), undefined, { chain: false }), { lines: 2 }, 'unseen without the check');
});

test('a line cut by a crash is ended when the app starts again: verify names it, and the chain goes on after it', async (t) => {
  const path = join(tempDir(t), 'audit.jsonl');
  await run(t, path, 2);
  const [, last] = linesOf(path);
  appendFileSync(path, last!.slice(0, 30)); // a write cut short, no newline
  await run(t, path, 1);
  const lines = linesOf(path);
  t.is(lines.length, 4);
  t.is(lines[2], last!.slice(0, 30), 'the cut line stands on a line of its own');
  t.is((JSON.parse(lines[3]!) as { prev: string }).prev, lineHash(lines[1]!), 'chained to the last whole line');
  const res = await verify([path], KEY);
  t.is(res.code, 1);
  t.regex(res.stderr, /audit\.jsonl:3: not a whole JSON line/);
});

test('auditKey: at least 32 characters, and only with audit; verify refuses a short --key and names a missing file', async (t) => {
  const { started } = await import('../helpers/http.js');
  const base = {
    secret: 'x'.repeat(32),
    url: 'http://127.0.0.1:1',
    providers: [{ name: 'dev', kind: 'dev', port: 0 }],
  };
  await t.throwsAsync(started({ ...base, audit: join(tempDir(t), 'a'), auditKey: 'short' } as AuthKoaOptions), {
    instanceOf: TypeError,
    message: /auditKey must be a string of at least 32/,
  });
  await t.throwsAsync(started({ ...base, auditKey: KEY } as AuthKoaOptions), {
    instanceOf: TypeError,
    message: /auditKey signs the audit log: set audit/,
  });
  const short = await verify([join(tempDir(t), 'none')], 'short');
  t.is(short.code, 1);
  t.regex(short.stderr, /--key must be the auditKey option/);
  const missing = await verify([join(tempDir(t), 'none.jsonl')], KEY);
  t.is(missing.code, 1);
  t.regex(missing.stderr, /cannot read .*none\.jsonl: ENOENT/);
});
