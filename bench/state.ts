/**
 * What the state store costs a login: verified-login step 2 (spends the token: one store write) and a
 * direct login, with the service's `stateStore` on memory, LMDB, a real redis-server and a real
 * PostgreSQL server, in one run.
 * Each login is one HTTP request to an app in this process, sent one at a time, so the figure is a
 * login's latency and (store − memory) is what the store adds to it. Stores alternate within each
 * round, in an order that rotates, so drift during the run falls on all of them alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { authKoa } from './built.js';
import { startPostgres } from '../spec/helpers/postgres.js';
import { startRedis } from '../spec/helpers/redis.js';

export interface StateRow {
  store: string;
  /** Median µs per verified step 2 (token spent, session issued). */
  verifiedUs: number;
  /** Median µs per direct login. */
  directUs: number;
}

const SECRET = 'bench-secret-0123456789abcdef0123456789';

async function app(stateStore: string, webhook?: string) {
  const sent: string[] = [];
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const auth = authKoa({
    secret: SECRET,
    url,
    stateStore,
    telemetry: false, // installed here for the tests; the rows measure the store alone
    ...(webhook && {
      webhooks: [{ url: webhook, secret: `whsec_${'A'.repeat(43)}=`, events: ['*'], allowPrivate: true }],
    }),
    providers: [
      {
        kind: 'verified',
        name: 'email',
        template: '{{.Token}}',
        rateLimit: false,
        sender: async (_a: string, text: string) => void sent.push(text),
      },
      { kind: 'direct', name: 'local', checker: (_user: string, passwd: string) => passwd === 'pw' },
    ],
  });
  await auth.ready;
  const koa = new Koa();
  koa.use(auth);
  server.on('request', koa.callback());
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      http
        .get(url + path, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', reject);
    });
  return {
    /** Confirmation tokens for `n` step-2 logins, requested (and so signed) beforehand. */
    async tokens(n: number): Promise<string[]> {
      for (let i = 0; i < n; i++) await get(`/auth/email/login?user=u&address=u${i}@example.com`);
      return sent.splice(0);
    },
    get,
    async close() {
      agent.destroy();
      server.close();
      await auth.close();
    },
  };
}

async function timed(n: number, one: (i: number) => Promise<number>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const status = await one(i);
    if (status !== 200) throw new Error(`login answered ${status}`);
  }
  return ((performance.now() - start) * 1000) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `rounds` rounds of `n` logins of each kind per store. */
export async function stateBench(rounds = 5, n = 1000): Promise<StateRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'authkoa-bench-state-'));
  const [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  // A receiver that takes every webhook at once: the `+ webhooks` row is what the outbox and its sends add.
  const receiver = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/in`;
  const stores: Array<[string, string, string?]> = [
    ['memory', 'memory'],
    ['lmdb', `lmdb://${join(dir, 'state')}`],
    ['redis', `${redis.uri}/0?prefix=bench:`],
    ['redis + webhooks', `${redis.uri}/1?prefix=bench:`, hook],
    ['postgres', postgres.uri],
  ];
  const apps = await Promise.all(stores.map(([, uri, webhook]) => app(uri, webhook)));
  const times = stores.map(() => ({ verified: [] as number[], direct: [] as number[] }));
  try {
    for (let r = 0; r < rounds + 1; r++) {
      // The order rotates from round to round: whichever app runs first in a round pays for what the
      // previous round left behind (garbage, a cold cache), and no store should always be that one.
      for (let j = 0; j < apps.length; j++) {
        const i = (j + r) % apps.length;
        const a = apps[i]!;
        const tokens = await a.tokens(n);
        const verified = await timed(n, (k) => a.get(`/auth/email/login?token=${encodeURIComponent(tokens[k]!)}`));
        const direct = await timed(n, () => a.get('/auth/local/login?user=alice&passwd=pw'));
        if (r === 0) continue; // the first round warms up the code, the connections and the store
        times[i]!.verified.push(verified);
        times[i]!.direct.push(direct);
      }
    }
  } finally {
    await Promise.all(apps.map((a) => a.close()));
    await Promise.all([redis.stop(), postgres.destroy()]);
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return stores.map(([store], i) => ({
    store,
    verifiedUs: median(times[i]!.verified),
    directUs: median(times[i]!.direct),
  }));
}

/** The report's table: µs per login, the ratio of logins/s to memory's, and what the store adds. */
export function stateReport(rows: StateRow[], rounds: number, n: number): string[] {
  const mem = rows.find((r) => r.store === 'memory')!;
  const cell = (us: number, ref: number) =>
    `${us.toFixed(0)} | ${(ref / us).toFixed(2)} | ${us - ref >= 0 ? '+' : ''}${(us - ref).toFixed(0)}`;
  return [
    `Logins by state store (one HTTP request at a time to an app in the bench's process; median of ${rounds} rounds of ${n} logins each; ratio = logins/s against memory in the same run; "adds" = µs per login over memory):`,
    '',
    '| stateStore | verified step 2 µs | ratio | adds µs | direct login µs | ratio | adds µs |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.store} | ${cell(r.verifiedUs, mem.verifiedUs)} | ${cell(r.directUs, mem.directUs)} |`),
  ];
}
