/**
 * `npm run bench`: starts every server case in its own process, loads each from another process with
 * autocannon, interleaving the cases over several rounds, and prints requests/s (median of rounds),
 * p50/p99 latency and the ratio to the baselines measured in the same run. Then the token-verification
 * micro benchmark and the avatar-store scale runs. `--write` also writes docs/performance.md.
 * Flags: --quick (1 short round, for a smoke run), --rounds N, --duration S, --skip-scale.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './load.js';
import { scaleBench, type ScaleResult } from './scale.js';
import { verifyBench, type MicroResult } from './verify.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const quick = flag('--quick');
const ROUNDS = value('--rounds', quick ? 1 : 3);
const DURATION = value('--duration', quick ? 2 : 5);
const CONNECTIONS = 50;
const hasTaskset = existsSync('/usr/bin/taskset') && os.cpus().length >= 2;

/** Runs a node script, pinned to `cpu` where taskset exists. */
function node(script: string, scriptArgs: string[], cpu: number): ChildProcess {
  const argv = ['--import=tsx', join(ROOT, script), ...scriptArgs];
  return hasTaskset
    ? spawn('taskset', ['-c', String(cpu), process.execPath, ...argv], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`process exited with ${code} before answering`)));
  });
}

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
}

async function startServer(name: string, dir: string): Promise<Server> {
  const child = node('bench/server.ts', [name, dir], 0);
  const line = await firstLine(child);
  const port = /^ready (\d+)/.exec(line)?.[1];
  if (!port) throw new Error(`server ${name} said ${line}`);
  return { name, url: `http://127.0.0.1:${port}`, child };
}

async function load(job: LoadJob): Promise<LoadResult> {
  const child = node('bench/load.ts', [JSON.stringify(job)], 1);
  return JSON.parse(await firstLine(child)) as LoadResult;
}

interface Case {
  label: string;
  server: string;
  baseline: 'baseline' | 'passthrough-without' | 'koa-static' | null;
  job: (url: string) => Omit<LoadJob, 'connections' | 'durationSec'>;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function login(url: string): Promise<{ jwt: string; xsrf: string }> {
  const res = await fetch(`${url}/auth/bench/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":"u","passwd":"pw"}' });
  const cookies = Object.fromEntries(res.headers.getSetCookie().map((c) => c.split(';')[0]!.split('=') as [string, string]));
  return { jwt: cookies.JWT!, xsrf: cookies['XSRF-TOKEN']! };
}

export interface HttpRow {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  ratio: number | null;
  baseline: string | null;
  failures: number;
}

async function httpBench(): Promise<HttpRow[]> {
  const dir = mkdtempSync(join(os.tmpdir(), 'authkoa-bench-'));
  const names = ['baseline', 'authkoa', 'authkoa-basic', 'koa-jwt', 'passport-jwt', 'passthrough-without', 'passthrough-with', 'avatar-file', 'avatar-lmdb', 'koa-static'];
  const servers = new Map<string, Server>();
  try {
    for (const n of names) servers.set(n, await startServer(n, join(dir, n)));
    const { jwt, xsrf } = await login(servers.get('authkoa')!.url);
    const { AVATAR_ID } = await import('./server.js');
    const cases: Case[] = [
      { label: 'bare Koa + @koa/router (baseline)', server: 'baseline', baseline: null, job: () => ({ url: '/private' }) },
      { label: 'authkoa auth: JWT cookie + XSRF header', server: 'authkoa', baseline: 'baseline', job: () => ({ url: '/private', headers: { cookie: `JWT=${jwt}`, 'x-xsrf-token': xsrf } }) },
      { label: 'authkoa auth: X-JWT header', server: 'authkoa', baseline: 'baseline', job: () => ({ url: '/private', headers: { 'x-jwt': jwt } }) },
      { label: 'authkoa auth: basic auth via checker', server: 'authkoa-basic', baseline: 'baseline', job: () => ({ url: '/private', headers: { authorization: `Basic ${Buffer.from('u:pw').toString('base64')}` } }) },
      { label: 'koa-jwt (Bearer)', server: 'koa-jwt', baseline: 'baseline', job: () => ({ url: '/private', headers: { authorization: `Bearer ${jwt}` } }) },
      { label: 'koa-passport + passport-jwt (Bearer)', server: 'passport-jwt', baseline: 'baseline', job: () => ({ url: '/private', headers: { authorization: `Bearer ${jwt}` } }) },
      { label: 'authkoa direct login (token + cookies)', server: 'authkoa', baseline: 'baseline', job: () => ({ url: '/auth/bench/login', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":"u","passwd":"pw"}' }) },
      { label: 'route outside /auth, app without authkoa', server: 'passthrough-without', baseline: null, job: () => ({ url: '/public' }) },
      { label: 'route outside /auth, app.use(auth)', server: 'passthrough-with', baseline: 'passthrough-without', job: () => ({ url: '/public' }) },
      { label: 'koa-static, same avatar bytes', server: 'koa-static', baseline: null, job: () => ({ url: `/avatar/${AVATAR_ID}` }) },
      { label: 'avatar GET, file store', server: 'avatar-file', baseline: 'koa-static', job: () => ({ url: `/avatar/${AVATAR_ID}` }) },
      { label: 'avatar GET, LMDB store', server: 'avatar-lmdb', baseline: 'koa-static', job: () => ({ url: `/avatar/${AVATAR_ID}` }) },
    ];
    const runs = new Map<string, LoadResult[]>();
    for (const c of cases) {
      const s = servers.get(c.server)!;
      const j = c.job(s.url);
      await load({ ...j, url: s.url + j.url, connections: CONNECTIONS, durationSec: 1 }); // warm-up: JIT, keep-alive sockets
    }
    // Rounds interleave the cases so a burst of outside load hits them all alike.
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        const s = servers.get(c.server)!;
        const j = c.job(s.url);
        const r = await load({ ...j, url: s.url + j.url, connections: CONNECTIONS, durationSec: DURATION });
        runs.set(c.label, [...(runs.get(c.label) ?? []), r]);
        process.stderr.write(`round ${round + 1}/${ROUNDS} ${c.label}: ${Math.round(r.rps)} req/s\n`);
      }
    }
    const rows = cases.map((c) => {
      const rs = runs.get(c.label)!;
      return { c, rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)), failures: rs.reduce((n, r) => n + r.non2xx + r.errors, 0) };
    });
    const byServer = (name: string) => rows.find((r) => r.c.server === name && r.c.baseline === null)!.rps;
    return rows.map((r) => ({
      label: r.c.label,
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      ratio: r.c.baseline ? r.rps / byServer(r.c.baseline) : null,
      baseline: r.c.baseline,
      failures: r.failures,
    }));
  } finally {
    for (const s of servers.values()) s.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  let kernel = os.release();
  try {
    kernel = execFileSync('uname', ['-sr']).toString().trim();
  } catch {}
  return `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${kernel}, Node ${process.version}, load average at start ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`;
}

function report(httpRows: HttpRow[], micro: MicroResult[], scale: ScaleResult[], about: string): string {
  const f = (n: number) => Math.round(n).toLocaleString('en-US');
  const lines = [
    `Machine: ${about}`,
    `Settings: ${ROUNDS} round(s) × ${DURATION} s per case, ${CONNECTIONS} connections, server and load generator ${hasTaskset ? 'pinned to separate cores (taskset)' : 'not pinned'}; medians of rounds.`,
    '',
    '| case | req/s | p50 ms | p99 ms | ratio | against | failed |',
    '|---|---:|---:|---:|---:|---|---:|',
    ...httpRows.map((r) => `| ${r.label} | ${f(r.rps)} | ${r.p50} | ${r.p99} | ${r.ratio === null ? '—' : r.ratio.toFixed(2)} | ${r.baseline ?? ''} | ${r.failures} |`),
    '',
    'Token verification, one repeated HS256 token (ops/s, same process, awaited one at a time):',
    '',
    '| verifier | ops/s | vs authkoa |',
    '|---|---:|---:|',
    ...micro.map((m) => `| ${m.name} | ${f(m.opsPerSec)} | ${(m.opsPerSec / micro.find((x) => x.name.startsWith('authkoa'))!.opsPerSec).toFixed(2)} |`),
  ];
  if (scale.length > 0) {
    lines.push('', 'Avatar stores at scale (each run in a fresh process; peak RSS of that process):', '', '| store | avatars | list ms | prune ms | peak RSS MiB |', '|---|---:|---:|---:|---:|');
    lines.push(...scale.map((s) => `| ${s.store} | ${f(s.count)} | ${f(s.listMs)} | ${f(s.pruneMs)} | ${s.peakRssMiB.toFixed(0)} |`));
  }
  return lines.join('\n');
}

const about = machine();
const httpRows = await httpBench();
process.stderr.write('token verification micro benchmark…\n');
const micro = await verifyBench(quick ? 500 : 2000);
const scale = flag('--skip-scale') ? [] : await scaleBench(quick ? [1000] : [10_000, 100_000]);
const text = report(httpRows, micro, scale, about);
process.stdout.write(text + '\n');
if (flag('--write')) {
  const doc = `# Performance

Written by \`npm run bench -- --write\` on ${new Date().toISOString().slice(0, 10)}. Numbers are from one run on the
machine below; compare ratios, not absolute figures, across machines. Benchmarks are not tests: nothing in
\`npm test\` asserts on time.

${text}

## Reading the table

- **ratio** is requests/s of the case divided by requests/s of the case named under *against*, both measured in
  this run: \`baseline\` is a bare Koa + @koa/router route answering the same JSON, \`passthrough-without\` the
  same app without authkoa, \`koa-static\` the same avatar bytes served as a static file.
- The authkoa rows pay for the token read, HMAC-SHA256 verification (skipped for a token already verified under
  the same secret), the XSRF compare and the provider check; the koa-jwt and passport rows verify with their own
  libraries on every request.
- A request outside \`/auth\` and the avatar path costs two string prefix checks in authkoa's middleware.
`;
  writeFileSync(join(ROOT, 'docs', 'performance.md'), doc);
  process.stderr.write('wrote docs/performance.md\n');
}
