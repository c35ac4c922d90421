/**
 * Issue #37's audit sink: `audit: '<file>'` appends every event as one JSON line, in order, keeping what
 * the file held, and auth.close() closes it; `audit: <stream>` writes there; a bad option is a start-up
 * TypeError naming `audit`; a file that cannot be written is reported through the logger, once, and
 * logins go on.
 */
import { readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import test from 'ava';
import type { AuthKoaOptions } from '../../lib/index.js';
import { started } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { DIRECT, SECRET, startSessionsApp, type SessionsApp } from '../sessions/fixtures.js';
import { UA, record, type Recorder } from './fixtures.js';

/** The files this process holds open (Linux: /proc/self/fd). */
function openFiles(): string[] {
  const held: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      held.push(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // closed while listing (the listing's own descriptor)
    }
  }
  return held;
}

/** A line's event: its JSON without the chain's `prev` (audit-chain.test.ts checks the chain). */
function eventOf(line: string): unknown {
  const { prev, ...event } = JSON.parse(line) as { prev?: unknown };
  if (typeof prev !== 'string') throw new Error(`a line without prev: ${line}`);
  return event;
}

/** A login, a refused login and a logout of alice: five events of four types, in order. */
async function someActivity(app: SessionsApp, events: Recorder): Promise<void> {
  const device = await app.login('alice', UA);
  await device.c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'alice', passwd: 'wrong' } });
  await device.c.fetch('/auth/logout', { headers: device.c.xsrf() });
  await app.login('bob', UA);
  await events.until('login', 2);
  await events.until('logout');
}

test('audit: a file path gets one JSON line per event, in order, after what the file held; auth.close() closes it', async (t) => {
  const path = join(tempDir(t), 'audit.log');
  writeFileSync(path, 'a line from before\n');
  const app = await startSessionsApp(t, { audit: path } as Partial<AuthKoaOptions>);
  t.true(openFiles().includes(path), 'the file is open while the instance runs');
  const events = record(app.auth);
  await someActivity(app, events);
  t.deepEqual(
    events.all.map((e) => e.type),
    ['login', 'login_failed', 'logout', 'login'],
  );
  await app.auth.close();
  // close() resolves when the last line is written ('finish'); the descriptor goes right after ('close').
  const deadline = Date.now() + 10_000;
  while (openFiles().includes(path) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  t.false(openFiles().includes(path), 'auth.close() closed it');
  const [before, ...lines] = readFileSync(path, 'utf8').split('\n');
  t.is(before, 'a line from before', 'appended: the content it had is kept');
  t.is(lines.pop(), '', 'each line ends with a newline');
  t.deepEqual(lines.map(eventOf), JSON.parse(JSON.stringify(events.all)), 'the events, one per line, in order');
});

test('audit: a stream (a PassThrough) gets the same JSON lines', async (t) => {
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
  const app = await startSessionsApp(t, { audit: stream } as Partial<AuthKoaOptions>);
  const events = record(app.auth);
  await someActivity(app, events);
  const lines = written.split('\n');
  t.is(lines.pop(), '');
  t.deepEqual(lines.map(eventOf), JSON.parse(JSON.stringify(events.all)));
  t.is(events.all.length, 4);
  await app.auth.close();
  t.false(stream.writableEnded, 'a stream passed in is its owner’s to end');
});

test('a bad audit option is a start-up TypeError naming audit', async (t) => {
  for (const audit of [42, '', '   ', true, {}, { write: 'not a function' }, ['x.log']]) {
    await t.throwsAsync(
      started({ secret: SECRET, url: 'http://127.0.0.1:1', providers: [DIRECT], audit } as unknown as AuthKoaOptions),
      { instanceOf: TypeError, message: /\baudit\b/ },
      JSON.stringify(audit),
    );
  }
});

test('an audit path that cannot be written (a directory) is reported through the logger once, and logins go on', async (t) => {
  const dir = tempDir(t);
  const errors: string[] = [];
  const logger = { info() {}, warn() {}, error: (m: string) => errors.push(m) };
  const app = await startSessionsApp(t, { audit: dir, logger } as Partial<AuthKoaOptions>);
  const events = record(app.auth);
  const first = await app.login('alice', UA);
  await events.until('login');
  const deadline = Date.now() + 10_000;
  while (errors.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  t.is(errors.length, 1, errors.join('\n'));
  t.regex(errors[0]!, /^authkoa: audit: cannot write: .*EISDIR/);
  const second = await app.login('bob', UA);
  t.not(second.sid, first.sid);
  t.is((await second.c.fetch('/private', { headers: second.c.xsrf() })).status, 201, 'the session works');
  await events.until('login', 2);
  t.is(errors.length, 1, 'reported once');
});
