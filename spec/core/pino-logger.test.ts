/**
 * The `logger` option with a real pino logger writing JSON to a stream: authkoa's messages arrive as
 * structured records, the fields (provider, code, status, user id) as properties beside `msg`, not
 * only inside the text. Other logger shapes keep working: a console-like object gets the fields as a
 * second argument, a printf-like function the text alone.
 */
import test from 'ava';
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { toLogger } from '../../lib/logger.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import { Client, startApp } from '../helpers/http.js';

const SECRET = 'pino-logger-test-secret-0123456789abcdef';

/** A pino logger writing into memory; the records, parsed, as they arrive. */
function pinoToMemory() {
  const stream = new PassThrough();
  const records: Array<Record<string, unknown>> = [];
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      records.push(JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>);
      buffered = buffered.slice(nl + 1);
    }
  });
  // A PassThrough in flowing mode hands each write on at once: a record is in `records` when the log call returns.
  return { logger: pino({ level: 'debug' }, stream), records };
}

test('pino receives structured records: a checker that throws is logged at error with provider, status, code, method and path as fields', async (t) => {
  const { logger, records } = pinoToMemory();
  const app = await startApp({
    secret: SECRET,
    logger,
    providers: [
      {
        kind: 'direct',
        name: 'local',
        checker: () => {
          throw new Error('user database is down');
        },
      },
    ],
  });
  t.teardown(() => app.close());
  const res = await new Client(app.url).fetch('/auth/local/login?user=alice&passwd=pw');
  t.is(res.status, 500);
  await new Promise((r) => setImmediate(r));
  const rec = records.find((r) => r.code === 'checker_failed');
  t.truthy(rec, JSON.stringify(records));
  t.is(rec!.level, 50, 'pino level error');
  t.is(rec!.provider, 'local', 'a record about a provider route names the provider (docs/events.md)');
  t.is(rec!.status, 500);
  t.is(rec!.method, 'GET');
  t.is(rec!.path, '/auth/local/login');
  t.regex(String(rec!.msg), /GET \/auth\/local\/login: failed to check user credentials: user database is down/);
});

test('pino: a login whose session list cannot be written is a warning carrying the provider of the route, code and user id', async (t) => {
  const { logger, records } = pinoToMemory();
  const memory = memoryStateStore();
  // The session list's namespace fails to write (a store failing mid-login); everything else works.
  const failing = (ns: string) => (ns === 'sessions' ? Promise.reject(new Error('sessions table is down')) : undefined);
  const stateStore: StateStore = {
    ...memory,
    create: (ns, ...rest) => failing(ns) ?? memory.create(ns, ...rest),
    replace: (ns, ...rest) => failing(ns) ?? memory.replace(ns, ...rest),
  };
  const app = await startApp({
    secret: SECRET,
    logger,
    stateStore,
    providers: [{ kind: 'direct', name: 'local', checker: () => true }],
  });
  t.teardown(() => app.close());
  const res = await new Client(app.url).fetch('/auth/local/login', {
    method: 'POST',
    json: { user: 'alice', passwd: 'pw' },
  });
  t.is(res.status, 200, 'the login goes on');
  const rec = records.find((r) => /not recorded in the state store/.test(String(r.msg)));
  t.truthy(rec, JSON.stringify(records));
  t.is(rec!.level, 40, 'pino level warn');
  t.is(rec!.provider, 'local');
  t.is(rec!.code, 'state_store_unavailable');
  t.regex(String(rec!.userId), /^local_/);
});

test('pino: wrong basic-auth credentials are a warning carrying provider, code and the user name as fields', async (t) => {
  const { logger, records } = pinoToMemory();
  const app = await startApp({
    secret: SECRET,
    logger,
    adminPasswd: 'right-password',
    providers: [{ kind: 'direct', name: 'local', checker: () => false }],
  });
  t.teardown(() => app.close());
  const res = await new Client(app.url).fetch('/auth/user', {
    headers: { authorization: `Basic ${Buffer.from('admin:wrong-password').toString('base64')}` },
  });
  t.is(res.status, 401);
  const rec = records.find((r) => r.code === 'bad_credentials');
  t.truthy(rec, JSON.stringify(records));
  t.is(rec!.level, 40, 'pino level warn');
  t.is(rec!.provider, 'basic');
  t.is(rec!.userName, 'admin');
  t.false(JSON.stringify(records).includes('wrong-password'), 'no password in any record');
});

test('a console-like logger gets the fields as a second argument; a printf-like function gets the text alone', (t) => {
  const calls: unknown[][] = [];
  const objectLogger = toLogger({
    info: (...a: unknown[]) => void calls.push(a),
    warn: (...a: unknown[]) => void calls.push(a),
    error: (...a: unknown[]) => void calls.push(a),
  });
  objectLogger.warn('text', { provider: 'local', code: 'bad_credentials' });
  objectLogger.info('plain');
  t.deepEqual(calls, [['text', { provider: 'local', code: 'bad_credentials' }], ['plain']]);
  const lines: unknown[][] = [];
  const funcLogger = toLogger((...a: unknown[]) => void lines.push(a));
  funcLogger.error('text', { code: 'x' });
  t.deepEqual(lines, [['[ERROR] text']]);
});

test('pino called as a method: its own `this` is kept (a child logger with bindings works)', (t) => {
  const { logger, records } = pinoToMemory();
  const child = logger.child({ component: 'auth' });
  toLogger(child).info('hello', { userId: 'local_1' });
  t.is(records.length, 1);
  t.like(records[0], { component: 'auth', userId: 'local_1', msg: 'hello', level: 30 });
});
