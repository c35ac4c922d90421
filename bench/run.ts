/**
 * `npm run bench`: loads every server case from a separate load-generator process (autocannon) and
 * prints requests/s, server CPU per request, p50/p99 latency and the ratio to a reference server that
 * answers the very same request without the measured work. A case and its reference run at the same time,
 * pinned to the same core, fresh processes every round (see httpBench). Then the token-verification micro
 * benchmark, the in-process middleware cost, logins by state store (memory, LMDB, a real redis-server)
 * and the avatar-store scale runs. `--write` also writes docs/performance.md.
 * Flags: --quick (1 short round, for a smoke run), --rounds N, --duration S, --warmup S, --skip-scale,
 * --only TEXT (only the HTTP cases whose label contains TEXT; given more than once, any of them; no --write
 * then), --variants a,b (also the x- cases of bench/server.ts that take the cookie path apart, against bare
 * Koa; `name@xjwt` sends that case the X-JWT request instead of the cookie one), --import-only (only the
 * import row, no --write then), --state-only (only the logins-by-state-store table, no --write then),
 * --against REF (also the cookie route and the direct login of the commit REF, built beside this one
 * (bench/against.ts): each against bare Koa, and today's against it, in the same run; no --write then).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEarlier, type EarlierCode } from './against.js';
import { HEAVY, importBench, type ImportResult } from './import.js';
import type { LoadJob, LoadResult } from './load.js';
import { middlewareBench, type MiddlewareCost } from './middleware.js';
import { passwordBench, passwordReport, type PasswordBench } from './password.js';
import { authkoaShare, type CpuProfile } from './profile.js';
import { scaleBench, type ScaleResult } from './scale.js';
import { tokenEndpointBench, tokenReport } from './token-endpoint.js';
import { median, medianInterval } from './stats.js';
import { stateBench, stateReport, type StateRow } from './state.js';
import { algorithmBench, verifyBench, type MicroResult } from './verify.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const quick = flag('--quick');
const ROUNDS = value('--rounds', quick ? 1 : 7);
const DURATION = value('--duration', quick ? 1 : 2);
// A server in production has long been warm; a fresh process needs a few seconds of load before the
// optimiser has compiled the request path (1.5 s measured authkoa 3 points lower than 6 s).
const WARMUP = value('--warmup', quick ? 0.5 : 3);
const CONNECTIONS = 50;
// --only may be given more than once: a case is run when its label contains any of the texts.
const onlyTexts = args.flatMap((a, i) => (a === '--only' ? [args[i + 1] ?? ''] : []));
if (onlyTexts.some((t) => t === '' || t.startsWith('--')))
  throw new Error('--only needs the text of a case label, e.g. --only cookie');
const only = onlyTexts.length > 0 ? onlyTexts : undefined;
const variantsAt = args.indexOf('--variants');
// Extra server cases (bench/server.ts, the x- ones) measured like the others with the cookie request.
const variants = variantsAt >= 0 ? (args[variantsAt + 1] ?? '').split(',').filter(Boolean) : [];
const VARIANTS: Record<string, string> = {
  'x-noauth': 'x-noauth: app.use(auth), route without auth',
  'x-headers': 'x-headers: read the JWT cookie and the XSRF header, nothing else',
  'x-peek': 'x-peek: app.use(auth) + read and look up the token (TokenService.peek)',
  'x-route-only': 'x-route-only: auth on the route, no app.use(auth)',
  'x-peek-noxsrf': 'x-peek-noxsrf: x-peek with disableXSRF',
  'x-noxsrf': 'x-noxsrf: the authkoa case with disableXSRF',
  'x-spin': 'x-spin: a fixed 0.33 µs computation on the route (a cost of known size)',
  'x-spin10': 'x-spin10: a fixed 3.3 µs computation on the route',
  'x-spin2': 'x-spin2: a fixed 2 µs computation on the route',
};
const againstAt = args.indexOf('--against');
const againstRef = againstAt >= 0 ? args[againstAt + 1] : undefined;
if (againstAt >= 0 && (!againstRef || againstRef.startsWith('--')))
  throw new Error('--against needs a git ref, e.g. --against HEAD~40');
const hasTaskset = existsSync('/usr/bin/taskset') && os.cpus().length >= 2;

/** Runs a node script of the checkout at `root`, pinned to `cpu` where taskset exists; stdin is a pipe when `input` is set. */
function node(script: string, scriptArgs: string[], cpu: number, input = false, root = ROOT): ChildProcess {
  const argv = ['--import=tsx', join(root, script), ...scriptArgs];
  const options = {
    cwd: root,
    stdio: [input ? 'pipe' : 'ignore', 'pipe', 'inherit'] as ('pipe' | 'ignore' | 'inherit')[],
  };
  return hasTaskset
    ? spawn('taskset', ['-c', String(cpu), process.execPath, ...argv], options)
    : spawn(process.execPath, argv, options);
}

/** The lines a child writes, one at a time; rejects if it exits first. */
function lines(child: ChildProcess): () => Promise<string> {
  const queue: string[] = [];
  let waiting: { resolve: (l: string) => void; reject: (e: Error) => void } | undefined;
  let ended: Error | undefined;
  createInterface({ input: child.stdout! }).on('line', (l) =>
    waiting ? (waiting.resolve(l), (waiting = undefined)) : queue.push(l),
  );
  child.once('exit', (code) => {
    ended = new Error(`process exited with ${code} before answering`);
    waiting?.reject(ended);
  });
  return () => {
    if (queue.length > 0) return Promise.resolve(queue.shift()!);
    if (ended) return Promise.reject(ended);
    return new Promise((resolve, reject) => (waiting = { resolve, reject }));
  };
}

interface Server {
  name: string;
  url: string;
  statsUrl: string;
  child: ChildProcess;
}

/** A case of bench/server.ts, from this checkout or from the earlier code's (`root`, see --against). */
async function startServer(name: string, dir: string, root = ROOT): Promise<Server> {
  const child = node('bench/server.ts', [name, dir], 0, false, root);
  const line = await lines(child)();
  const [, port, statsPort] = /^ready (\d+) (\d+)/.exec(line) ?? [];
  if (!port) throw new Error(`server ${name} said ${line}`);
  return { name, url: `http://127.0.0.1:${port}`, statsUrl: `http://127.0.0.1:${statsPort}`, child };
}

/** The one load-generator process of the run, on the other core; each call's jobs run at the same time. */
let loader: { child: ChildProcess; next: () => Promise<string> } | undefined;
async function startLoader(): Promise<{ child: ChildProcess; next: () => Promise<string> }> {
  const child = node('bench/load.ts', [], 1, true);
  const next = lines(child);
  const hello = await next();
  if (hello !== 'ready') throw new Error(`load generator said ${hello}`);
  return { child, next };
}
async function load(jobs: LoadJob[]): Promise<LoadResult[]> {
  loader ??= await startLoader();
  loader.child.stdin!.write(JSON.stringify(jobs) + '\n');
  return JSON.parse(await loader.next()) as LoadResult[];
}

/** CPU microseconds (user + system) the server process has used so far. */
async function cpuOf(server: Server): Promise<number> {
  const u = (await (await fetch(server.statsUrl)).json()) as { user: number; system: number };
  return u.user + u.system;
}

/** CPU seconds the load generator has used so far, from /proc (Linux; NaN elsewhere). */
function generatorCpuSec(): number {
  try {
    const fields = readFileSync(`/proc/${loader!.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return Number.NaN;
  }
}

/** Each server's CPU time per completed request, and how busy the load generator was (share of its one core). */
type Measured = LoadResult & { cpuUs: number; generatorCpu: number };

/** Servers loaded at the same time, one job each, with each server's CPU time per completed request. */
async function measure(servers: Server[], jobs: LoadJob[]): Promise<Measured[]> {
  loader ??= await startLoader();
  const before = await Promise.all(servers.map(cpuOf));
  const [gen0, t0] = [generatorCpuSec(), performance.now()];
  const results = await load(jobs);
  const generatorCpu = (generatorCpuSec() - gen0) / ((performance.now() - t0) / 1000);
  const after = await Promise.all(servers.map(cpuOf));
  return results.map((r, i) => ({
    ...r,
    cpuUs: r.total > 0 ? (after[i]! - before[i]!) / r.total : Number.NaN,
    generatorCpu,
  }));
}

/** authkoa's share of one server's CPU while `run` loads it, from the server's own sampling profiler. */
async function profiledShare(
  label: string,
  server: Server,
  run: (durationSec: number) => Promise<unknown>,
): Promise<number> {
  await fetch(`${server.statsUrl}/profile/start`);
  await run(PROFILE_SECONDS);
  const text = await (await fetch(`${server.statsUrl}/profile/stop`)).text();
  // Kept for a closer look: Chrome DevTools and VS Code open .cpuprofile files.
  const saved = join(os.tmpdir(), `authkoa-bench-${label.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.cpuprofile`);
  writeFileSync(saved, text);
  process.stderr.write(`  profile: ${saved}\n`);
  return authkoaShare(JSON.parse(text) as CpuProfile, `file://${ROOT}dist/lib/`).share;
}
const PROFILE_SECONDS = quick ? 1 : 4;
const BEGIN = '<!-- generated by npm run bench -- --write: begin -->';
const END = '<!-- generated: end -->';

interface Case {
  label: string;
  server: string;
  /** The server that answers the very same request without the work being measured (or, from earlier code, with it). */
  against: 'baseline' | 'passthrough-without' | 'koa-static' | 'x-spin2' | 'authkoa';
  /** The checkout the case's server comes from when not this one: the earlier code of --against. */
  root?: string;
  /** The same for the reference server. */
  againstRoot?: string;
  job: Omit<LoadJob, 'connections' | 'durationSec'>;
  /** Also profile the server under this load and report authkoa's share of its CPU. */
  profile?: boolean;
  /** Rounds as a multiple of --rounds: the rows the 2 µs target is read from get more (see TARGET_ROUND_FACTOR). */
  roundsFactor?: number;
  /** The server case whose login signs this case's tokens, when not the HS256 one (the EdDSA and ES256 rows). */
  signer?: string;
}

/** The row that checks the hot path's 2 µs target (see httpBench); the headline reports it apart. */
const TARGET_LABEL = 'target: JWT cookie + XSRF header against a fixed 2 µs computation';
/** The same pairing for a minimal hand-written cookie check (bench/server.ts `floor-cookie`): where the target sits. */
const FLOOR_LABEL = 'floor: a minimal hand-written cookie check against a fixed 2 µs computation';
// A round of these rows spreads about ±3 µs while the question is about a microsecond: three times the rounds.
const TARGET_ROUND_FACTOR = 3;

async function login(url: string): Promise<Tokens> {
  const res = await fetch(`${url}/auth/bench/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"user":"u","passwd":"pw"}',
  });
  const cookies = Object.fromEntries(
    res.headers.getSetCookie().map((c) => c.split(';')[0]!.split('=') as [string, string]),
  );
  return { jwt: cookies.JWT!, xsrf: cookies['XSRF-TOKEN']! };
}

type Tokens = { jwt: string; xsrf: string };

/** The job with the tokens of `from` in its headers replaced by those of `to`. */
function withTokens<J extends { headers?: Record<string, string> }>(job: J, from: Tokens, to: Tokens): J {
  if (!job.headers) return job;
  const swap = (v: string) => v.split(from.jwt).join(to.jwt).split(from.xsrf).join(to.xsrf);
  return { ...job, headers: Object.fromEntries(Object.entries(job.headers).map(([k, v]) => [k, swap(v)])) };
}

export interface HttpRow {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU microseconds per request. */
  cpuUs: number;
  /** req/s of the same request sent to the reference server. */
  refRps: number | null;
  refCpuUs: number | null;
  /** req/s ÷ the reference's req/s. */
  ratio: number | null;
  /** The reference's CPU per request ÷ ours: the throughput ratio when the server is CPU-bound, free of outside noise. */
  cpuRatio: number | null;
  baseline: string | null;
  failures: number;
  /** authkoa's share of the server's busy time, from a sampling profile taken under the same load. */
  share: number | null;
  /** Server CPU µs per request above the reference's, same rounds (median of per-round differences). */
  extraUs: number | null;
  /** Where the median of `extraUs` lies with 95 % confidence (distribution-free, see medianInterval); undefined for too few rounds. */
  extraInterval?: [number, number];
  /** The load generator's CPU while it loaded the pair, as a share of its core: near 1 it was the bottleneck. */
  generatorCpu: number;
}

async function httpBench(earlier: EarlierCode | undefined): Promise<HttpRow[]> {
  const dir = mkdtempSync(join(os.tmpdir(), 'authkoa-bench-'));
  let started = 0;
  const live = new Set<Server>();
  const fresh = async (name: string, root?: string) => {
    const s = await startServer(name, join(dir, `${name}-${started++}`), root);
    live.add(s);
    return s;
  };
  const stop = async (...servers: Server[]) => {
    for (const s of servers) {
      live.delete(s);
      if (s.child.exitCode === null) {
        s.child.kill();
        await once(s.child, 'exit');
      }
    }
  };
  try {
    // Any authkoa server with the bench secret signs a token every authkoa server accepts.
    // It stays up, idle, for the whole run: a token lives 15 minutes and a run takes longer, so every case
    // gets tokens minted just before it (see fresh tokens below). A case measured with an expired token
    // would measure the refresh of an expired cookie, or the 401 of an expired header token.
    const signer = await fresh('authkoa');
    // The signers of the public-key rows, started when their first case comes (and, like this one, kept up).
    const signers = new Map<string, Promise<Server>>();
    const signerOf = (name: string) => {
      if (!signers.has(name)) signers.set(name, fresh(name));
      return signers.get(name)!;
    };
    const first = await login(signer.url);
    const { jwt, xsrf } = first;
    const { AVATAR_ID } = await import('./server.js');
    const cookie = { cookie: `JWT=${jwt}`, 'x-xsrf-token': xsrf };
    const loginJob: Case['job'] = {
      url: '/auth/bench/login',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"user":"u","passwd":"pw"}',
    };
    // The same login by a new user each time, as a site's many users log in: a short session list and
    // no session ended by the cap, where one user logging in again and again pays both at every login.
    const manyUsersJob: Case['job'] = { ...loginJob, body: '{"user":"u[<id>]","passwd":"pw"}', idReplacement: true };
    const cases: Case[] = [
      // The method's zero, run first in every run (also with --only): two identical servers must come out at
      // 1.00, and the first pair of a run no longer falls on a case being measured.
      {
        label: 'control: bare Koa against bare Koa',
        server: 'baseline',
        against: 'baseline',
        job: { url: '/private', headers: cookie },
      },
      {
        label: 'authkoa auth: JWT cookie + XSRF header',
        server: 'authkoa',
        against: 'baseline',
        job: { url: '/private', headers: cookie },
        profile: true,
      },
      {
        label: 'authkoa auth: X-JWT header',
        server: 'authkoa',
        against: 'baseline',
        job: { url: '/private', headers: { 'x-jwt': jwt } },
        profile: true,
      },
      {
        label: 'authkoa auth, OpenTelemetry API on, no SDK: JWT cookie + XSRF header',
        server: 'authkoa-otel',
        against: 'baseline',
        job: { url: '/private', headers: cookie },
      },
      {
        label: 'authkoa auth, every event type subscribed: JWT cookie + XSRF header',
        server: 'authkoa-events',
        against: 'baseline',
        job: { url: '/private', headers: cookie },
      },
      {
        label: 'authkoa auth, EdDSA tokens: JWT cookie + XSRF header',
        server: 'authkoa-eddsa',
        signer: 'authkoa-eddsa',
        against: 'baseline',
        job: { url: '/private', headers: cookie },
      },
      {
        label: 'authkoa auth, ES256 tokens: JWT cookie + XSRF header',
        server: 'authkoa-es256',
        signer: 'authkoa-es256',
        against: 'baseline',
        job: { url: '/private', headers: cookie },
      },
      {
        label: 'authkoa auth: basic auth via checker',
        server: 'authkoa-basic',
        against: 'baseline',
        job: { url: '/private', headers: { authorization: `Basic ${Buffer.from('u:pw').toString('base64')}` } },
        profile: true,
      },
      {
        label: 'two no-op middlewares in authkoa’s places (reference)',
        server: 'noop-middleware',
        against: 'baseline',
        job: { url: '/private', headers: cookie },
      },
      // A cost of known size (3.3 µs of CPU, sized when its server starts), read by the same method: how the HTTP figures
      // of this run scale a real cost (servers sharing a core read every cost larger than it is).
      {
        label: 'calibration: a fixed 3.3 µs computation on the route',
        server: 'x-spin10',
        against: 'baseline',
        job: { url: '/private', headers: cookie },
      },
      // The target itself as the reference: bare Koa plus a fixed 2 µs computation on the route. The pair's two
      // servers then differ by (cookie path − 2 µs) and run at nearly the same speed, so whatever the method
      // does to a cost it does to both: at or below zero, the cookie path costs the server at most 2 µs.
      {
        label: TARGET_LABEL,
        server: 'authkoa',
        against: 'x-spin2',
        job: { url: '/private', headers: cookie },
        roundsFactor: TARGET_ROUND_FACTOR,
      },
      // The least any implementation does on this request (see the case), paired the same way: the target's floor.
      {
        label: FLOOR_LABEL,
        server: 'floor-cookie',
        against: 'x-spin2',
        job: { url: '/private', headers: cookie },
        roundsFactor: TARGET_ROUND_FACTOR,
      },
      {
        label: 'koa-jwt (Bearer)',
        server: 'koa-jwt',
        against: 'baseline',
        job: { url: '/private', headers: { authorization: `Bearer ${jwt}` } },
      },
      {
        label: 'koa-passport + passport-jwt (Bearer)',
        server: 'passport-jwt',
        against: 'baseline',
        job: { url: '/private', headers: { authorization: `Bearer ${jwt}` } },
      },
      { label: 'authkoa direct login (token + cookies)', server: 'authkoa', against: 'baseline', job: loginJob },
      {
        label: 'authkoa direct login, a new user each time (token + cookies)',
        server: 'authkoa',
        against: 'baseline',
        job: manyUsersJob,
      },
      {
        label: 'route outside /auth, app.use(auth)',
        server: 'passthrough-with',
        against: 'passthrough-without',
        job: { url: '/public', headers: cookie },
        profile: true,
      },
      {
        label: 'avatar GET, file store',
        server: 'avatar-file',
        against: 'koa-static',
        job: { url: `/avatar/${AVATAR_ID}` },
      },
      {
        label: 'avatar GET, LMDB store',
        server: 'avatar-lmdb',
        against: 'koa-static',
        job: { url: `/avatar/${AVATAR_ID}` },
      },
    ];
    if (earlier) {
      // The earlier commit's own `authkoa` case (its bench/server.ts, its dist/), against bare Koa as the rows
      // above and against today's directly: below 1.00 in the last two, today's code is slower than it was.
      const then = `code of ${earlier.name}`;
      cases.push(
        {
          label: `${then}: JWT cookie + XSRF header`,
          server: 'authkoa',
          root: earlier.root,
          against: 'baseline',
          job: { url: '/private', headers: cookie },
        },
        {
          label: `${then}: direct login (token + cookies)`,
          server: 'authkoa',
          root: earlier.root,
          against: 'baseline',
          job: loginJob,
        },
        {
          label: `this code against the ${then}: JWT cookie + XSRF header`,
          server: 'authkoa',
          against: 'authkoa',
          againstRoot: earlier.root,
          job: { url: '/private', headers: cookie },
        },
        {
          label: `this code against the ${then}: direct login (token + cookies)`,
          server: 'authkoa',
          against: 'authkoa',
          againstRoot: earlier.root,
          job: loginJob,
        },
        {
          label: `${then}: direct login, a new user each time`,
          server: 'authkoa',
          root: earlier.root,
          against: 'baseline',
          job: manyUsersJob,
        },
        {
          label: `this code against the ${then}: direct login, a new user each time`,
          server: 'authkoa',
          against: 'authkoa',
          againstRoot: earlier.root,
          job: manyUsersJob,
        },
      );
    }
    for (const v of variants) {
      // `name@xjwt` sends the X-JWT request to variant `name` instead of the cookie one.
      const [server, request] = v.split('@') as [string, string | undefined];
      const headers = request === 'xjwt' ? { 'x-jwt': jwt } : cookie;
      cases.push({
        label: `variant ${VARIANTS[server] ?? server}${request ? ` (${request} request)` : ''}`,
        server,
        against: 'baseline',
        job: { url: '/private', headers },
      });
    }
    const rows: HttpRow[] = [];

    // Bare Koa alone on its core: the absolute figures every ratio below is relative to.
    const bare = await fresh('baseline');
    const bareJob = { url: bare.url + '/private', connections: CONNECTIONS };
    await load([{ ...bareJob, durationSec: WARMUP }]);
    const alone: Measured[] = [];
    for (let round = 0; round < ROUNDS; round++)
      alone.push(...(await measure([bare], [{ ...bareJob, durationSec: DURATION }])));
    await stop(bare);
    rows.push({
      label: 'bare Koa + @koa/router, alone on the server core',
      rps: median(alone.map((r) => r.rps)),
      p50: median(alone.map((r) => r.p50)),
      p99: median(alone.map((r) => r.p99)),
      cpuUs: median(alone.map((r) => r.cpuUs)),
      refRps: null,
      refCpuUs: null,
      ratio: null,
      cpuRatio: null,
      baseline: null,
      failures: alone.reduce((n, r) => n + r.non2xx + r.errors, 0),
      share: null,
      extraUs: null,
      generatorCpu: median(alone.map((r) => r.generatorCpu)),
    });

    // Each case and its reference run at the same time, on the same core, under the same request: the
    // scheduler gives each half the core, so the ratio of their req/s is the ratio of their costs, and
    // whatever the machine does during the run it does to both. Every round starts both servers afresh:
    // two processes of the very same code differ by a few per cent for the life of the process (heap and
    // code layout), which rounds within one process would never average out.
    for (const c of cases) {
      if (only !== undefined && !only.some((t) => c.label.includes(t)) && c !== cases[0]) continue;
      const mine: Measured[] = [];
      const ref: Measured[] = [];
      let share: number | null = null;
      const job = withTokens(c.job, first, await login((c.signer ? await signerOf(c.signer) : signer).url));
      const rounds = ROUNDS * (c.roundsFactor ?? 1);
      for (let round = 0; round < rounds; round++) {
        // Which of the two is started, and loaded, first alternates between rounds, so neither side always
        // has the head start: `at` is the case's place in the pair.
        const at = round % 2;
        const sides: [string, string | undefined][] = [
          [c.server, c.root],
          [c.against, c.againstRoot],
        ];
        const started = await Promise.all(
          (at === 0 ? sides : sides.reverse()).map(([name, root]) => fresh(name, root)),
        );
        const [a, b] = [started[at]!, started[1 - at]!];
        try {
          const pair = (durationSec: number) =>
            started.map((s) => ({ ...job, url: s.url + job.url, connections: CONNECTIONS, durationSec }));
          await load(pair(WARMUP));
          const measured = await measure(started, pair(DURATION));
          mine.push(measured[at]!);
          ref.push(measured[1 - at]!);
          if (c.profile && round === rounds - 1) share = await profiledShare(c.label, a, (d) => load(pair(d)));
        } finally {
          await stop(a, b);
        }
      }
      const ratios = ref.map((r, i) => mine[i]!.rps / r.rps);
      const cpuRatios = ref.map((r, i) => r.cpuUs / mine[i]!.cpuUs);
      const extras = ref.map((r, i) => mine[i]!.cpuUs - r.cpuUs);
      const row: HttpRow = {
        label: c.label,
        rps: median(mine.map((r) => r.rps)),
        p50: median(mine.map((r) => r.p50)),
        p99: median(mine.map((r) => r.p99)),
        cpuUs: median(mine.map((r) => r.cpuUs)),
        refRps: median(ref.map((r) => r.rps)),
        refCpuUs: median(ref.map((r) => r.cpuUs)),
        ratio: median(ratios),
        cpuRatio: median(cpuRatios),
        baseline: c.againstRoot && earlier ? `${c.against} (code of ${earlier.name})` : c.against,
        failures: [...mine, ...ref].reduce((n, r) => n + r.non2xx + r.errors, 0),
        share,
        extraUs: median(extras),
        extraInterval: medianInterval(extras),
        generatorCpu: median(mine.map((r) => r.generatorCpu)),
      };
      rows.push(row);
      process.stderr.write(
        `${c.label}: ${Math.round(row.rps)} req/s, ratio ${row.ratio!.toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(' ')}), ${signed(row.extraUs!)} µs server CPU/req${row.extraInterval ? ` (95 % interval ${interval(row.extraInterval)})` : ''}, load generator ${(row.generatorCpu * 100).toFixed(0)} % of its core${share === null ? '' : `, authkoa ${(share * 100).toFixed(1)} % of server CPU`}\n`,
      );
      // A failed request took another path than the one measured (an error answer is cheap): say so loudly.
      if (row.failures > 0)
        process.stderr.write(
          `  WARNING: ${row.failures} requests failed; this row does not measure the intended path\n`,
        );
    }
    return rows;
  } finally {
    await stop(...live);
    loader?.child.kill();
    loader = undefined;
    rmSync(dir, { recursive: true, force: true });
  }
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  let kernel = os.release();
  try {
    kernel = execFileSync('uname', ['-sr']).toString().trim();
  } catch {}
  return `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${kernel}, Node ${process.version}, load average at start ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

/** The hot path's headline: authkoa's extra server CPU per request over bare Koa, per request kind, from this run. */
function headline(rows: HttpRow[]): string[] {
  const pick = (label: string) => rows.find((r) => r.label === label);
  const kinds: [string, string][] = [
    ['JWT cookie + XSRF header', 'authkoa auth: JWT cookie + XSRF header'],
    ['X-JWT header', 'authkoa auth: X-JWT header'],
    ['basic auth', 'authkoa auth: basic auth via checker'],
    ['control (bare Koa against itself)', 'control: bare Koa against bare Koa'],
    ['a fixed 3.3 µs computation (calibration)', 'calibration: a fixed 3.3 µs computation on the route'],
  ];
  const target = pick(TARGET_LABEL);
  const floor = pick(FLOOR_LABEL);
  const parts = kinds
    .filter(([, l]) => pick(l)?.extraUs != null)
    .map(([name, l]) => `${name} **${signed(pick(l)!.extraUs!)} µs**`);
  if (parts.length === 0) return [];
  const lines = [
    `**Extra server CPU per request over bare Koa** (case minus its reference, same rounds, median): ${parts.join(', ')}.`,
    '',
  ];
  if (target?.extraUs != null) {
    const x = target.extraUs;
    const range = target.extraInterval;
    // The verdict goes by the interval, not the median alone: a round spreads a few µs, the question is about one.
    const verdict = !range
      ? `${x <= 0 ? 'no more than' : 'more than'} 2 µs per request in this run (too few rounds for an interval)`
      : range[1] <= 0
        ? 'no more than 2 µs per request'
        : range[0] > 0
          ? 'more than 2 µs per request'
          : '2 µs per request within what this run resolves: the interval holds zero';
    lines.push(
      `**The cookie path against the 2 µs target** (authkoa's cookie route paired with bare Koa plus a fixed 2 µs computation, same rounds, median${range ? ' and its 95 % interval' : ''}): **${signed(x)} µs** of server CPU per request${range ? ` (${interval(range)})` : ''}, CPU ratio ${target.cpuRatio!.toFixed(2)}: the cookie path costs the server ${verdict}.` +
        (floor?.extraUs != null
          ? ` A minimal hand-written cookie check paired the same way read **${signed(floor.extraUs)} µs**${floor.extraInterval ? ` (${interval(floor.extraInterval)})` : ''}.`
          : ''),
      '',
    );
  }
  return lines;
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
}

function interval([lo, hi]: [number, number]): string {
  return `${signed(lo)} to ${signed(hi)}`;
}

/** The import row: fresh processes importing koa or authkoa, and what a bare import of authkoa loaded. */
function importReport(imp: ImportResult): string[] {
  const koa = imp.rows.find((r) => r.module === 'koa')!;
  const heavy = HEAVY.filter((p) => imp.loaded.includes(p));
  return [
    `Cold import in a consumer folder, whole fresh processes (spawn to exit, node's start-up included), koa and authkoa alternating, medians of ${IMPORT_ROUNDS}:`,
    '',
    '| import | ms | vs koa | RSS MiB | vs koa |',
    '|---|---:|---:|---:|---:|',
    ...imp.rows.map(
      (r) =>
        `| \`import('${r.module}')\` | ${r.ms.toFixed(0)} | ${(r.ms / koa.ms).toFixed(2)}× | ${r.rssMiB.toFixed(1)} | ${r.module === 'koa' ? '—' : `${r.rssMiB >= koa.rssMiB ? '+' : ''}${(r.rssMiB - koa.rssMiB).toFixed(1)}`} |`,
    ),
    '',
    `Packages a bare \`import('authkoa')\` loads: ${imp.loaded.join(', ') || 'none'}. Of ${HEAVY.join(', ')}: ${heavy.length ? heavy.join(', ') : 'none'}.`,
  ];
}

function report(
  httpRows: HttpRow[],
  costs: MiddlewareCost[],
  micro: MicroResult[],
  byAlg: MicroResult[],
  scale: ScaleResult[],
  about: string,
  imp: ImportResult,
  state: StateRow[],
  password: PasswordBench,
): string {
  const f = (n: number) => Math.round(n).toLocaleString('en-US');
  // Bare Koa's CPU per request: the median over every bare-Koa run of this report (its own row and each
  // case's reference), steadier than any single run.
  const koaCpu = median([
    httpRows.find((r) => r.baseline === null)!.cpuUs,
    ...httpRows.filter((r) => r.baseline === 'baseline').map((r) => r.refCpuUs!),
  ]);
  const lines = [
    `Machine: ${about}`,
    '',
    ...importReport(imp),
    '',
    `Settings: ${ROUNDS} round(s) per case (${ROUNDS * TARGET_ROUND_FACTOR} for the two rows against the 2 µs computation); each round starts the case's server and its reference afresh, warms both up for ${WARMUP} s and loads both at the same time for ${DURATION} s, ${CONNECTIONS} connections each; ${hasTaskset ? 'both servers pinned to one core and the load generator to the other (taskset)' : 'not pinned (no taskset here): ratios are less reliable'}; medians of rounds, ratios as the median of the per-round ratios. The case rows' req/s and latencies are therefore those of a server with half a core; the first row is bare Koa alone on the core.`,
    '',
    ...headline(httpRows),
    '| case | req/s | p50 ms | p99 ms | CPU µs/req | reference (same request) | its req/s | its CPU µs/req | extra CPU µs/req | req/s ratio | CPU ratio | load generator CPU | failed |',
    '|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|',
    ...httpRows.map((r) => {
      const x = (n: number | null, d = 2) => (n === null ? '—' : n.toFixed(d));
      return `| ${r.label} | ${f(r.rps)} | ${r.p50} | ${r.p99} | ${x(r.cpuUs, 1)} | ${r.baseline ?? '—'} | ${r.refRps === null ? '—' : f(r.refRps)} | ${x(r.refCpuUs, 1)} | ${r.extraUs === null ? '—' : `${r.extraUs >= 0 ? '+' : ''}${r.extraUs.toFixed(1)}`} | ${x(r.ratio)} | ${x(r.cpuRatio)} | ${(r.generatorCpu * 100).toFixed(0)} % | ${r.failures} |`;
    }),
    '',
    `authkoa's share of the server's CPU under the same HTTP load, from a ${PROFILE_SECONDS} s sampling profile the server took of itself in its last round (samples in authkoa's code and in what it called, before it hands the request on with \`next()\`, over all non-idle samples):`,
    '',
    '| case | authkoa share of server CPU | expected throughput ratio (1 − share) |',
    '|---|---:|---:|',
    ...httpRows
      .filter((r) => r.share !== null)
      .map((r) => `| ${r.label} | ${(r.share! * 100).toFixed(1)} % | ${(1 - r.share!).toFixed(3)} |`),
    '',
    `authkoa's own cost per request, in-process (real Koa context, no network; the process's CPU time, a no-op middleware's subtracted), against bare Koa's server CPU per request measured above (median of its runs, ${koaCpu.toFixed(1)} µs):`,
    '',
    '| path | µs per request | share of a bare Koa request | expected throughput ratio |',
    '|---|---:|---:|---:|',
    // Below 0.05 µs the difference from the no-op is inside the loop's own noise.
    ...costs.map(
      (c) =>
        `| ${c.name} | ${c.us < 0.05 ? '< 0.05' : c.us.toFixed(2)} | ${((c.us / koaCpu) * 100).toFixed(1)} % | ${(koaCpu / (koaCpu + c.us)).toFixed(3)} |`,
    ),
    '',
    'Token verification, one repeated HS256 token (ops/s, same process, awaited one at a time):',
    '',
    '| verifier | ops/s | vs authkoa |',
    '|---|---:|---:|',
    ...micro.map(
      (m) =>
        `| ${m.name} | ${f(m.opsPerSec)} | ${(m.opsPerSec / micro.find((x) => x.name.startsWith('authkoa'))!.opsPerSec).toFixed(2)} |`,
    ),
    '',
    'Session-token verification by algorithm (the `signing` option; ops/s and µs per verify, same process, one at a time): a repeated token is the verified-token cache hit a protected route pays; a cold verify checks the signature.',
    '',
    '| verifier | ops/s | µs |',
    '|---|---:|---:|',
    ...byAlg.map((m) => `| ${m.name} | ${f(m.opsPerSec)} | ${(1e6 / m.opsPerSec).toFixed(2)} |`),
  ];
  lines.push('', ...stateReport(state, STATE_ROUNDS, STATE_LOGINS));
  lines.push('', ...passwordReport(password));
  if (scale.length > 0) {
    lines.push(
      '',
      'Avatar stores at scale (each run in a fresh process; peak RSS of that process):',
      '',
      '| store | avatars | list ms | prune ms | peak RSS MiB |',
      '|---|---:|---:|---:|---:|',
    );
    lines.push(
      ...scale.map(
        (s) => `| ${s.store} | ${f(s.count)} | ${f(s.listMs)} | ${f(s.pruneMs)} | ${s.peakRssMiB.toFixed(0)} |`,
      ),
    );
  }
  return lines.join('\n');
}

const STATE_ROUNDS = quick ? 1 : 5;
const STATE_LOGINS = quick ? 200 : 1000;
if (flag('--state-only')) {
  process.stderr.write('logins by state store (memory, LMDB, Redis, PostgreSQL)…\n');
  process.stdout.write(
    stateReport(await stateBench(STATE_ROUNDS, STATE_LOGINS), STATE_ROUNDS, STATE_LOGINS).join('\n') + '\n',
  );
  process.exit(0);
}
const about = machine();
const IMPORT_ROUNDS = quick ? 3 : 15;
process.stderr.write('import cost, fresh processes…\n');
const imp = await importBench(IMPORT_ROUNDS);
if (flag('--import-only')) {
  process.stdout.write(importReport(imp).join('\n') + '\n');
  process.exit(0);
}
process.stderr.write('logins by state store (memory, LMDB, Redis, PostgreSQL)…\n');
const state = await stateBench(STATE_ROUNDS, STATE_LOGINS);
const earlier = againstRef === undefined ? undefined : buildEarlier(ROOT, againstRef);
let httpRows: HttpRow[];
try {
  httpRows = await httpBench(earlier);
} finally {
  earlier?.remove();
}
process.stderr.write('token verification micro benchmark…\n');
const micro = await verifyBench(quick ? 500 : 2000);
process.stderr.write('token verification by algorithm…\n');
const byAlg = await algorithmBench(quick ? 500 : 2000);
process.stderr.write('middleware cost, in-process…\n');
const costs = await middlewareBench(quick ? 300 : 1500, quick ? 1 : 3);
process.stderr.write('password logins, default scrypt…\n');
const password = await passwordBench(quick ? 5 : 20);
process.stderr.write("the authorization server's token endpoint…\n");
const tokens = await tokenEndpointBench(quick ? 200 : 2000);
const scale = flag('--skip-scale') ? [] : await scaleBench(quick ? [1000] : [10_000, 100_000]);
const text = [report(httpRows, costs, micro, byAlg, scale, about, imp, state, password), tokenReport(tokens)].join(
  '\n\n',
);
process.stdout.write(text + '\n');
if (flag('--write') && (only !== undefined || earlier))
  process.stderr.write(`${earlier ? '--against' : '--only'}: a partial run, docs/performance.md left as it was\n`);
else if (flag('--write')) {
  const generated = `${BEGIN}
Written by \`npm run bench -- --write\` on ${new Date().toISOString().slice(0, 10)}. Numbers are from one run on the
machine below; compare ratios, not absolute figures, across machines. Benchmarks are not tests: nothing in
\`npm test\` asserts on time.

${text}

### Reading the tables

- Every case is paired with **the same request** (same headers, same body) sent to a reference server that
  does none of the measured work: \`baseline\` is a bare Koa + @koa/router app answering the same small JSON,
  \`passthrough-without\` the same app without authkoa, \`koa-static\` the same avatar bytes served as a static
  file. **req/s ratio** = req/s of the case ÷ req/s of its reference; **CPU ratio** = the reference's server
  CPU time per request ÷ the case's. Both are 1.00 when the measured work is free.
- **Case and reference run at the same time, on the same core.** The scheduler gives each half the core, so
  the ratio of their req/s is the ratio of their costs, and whatever else the machine does during the run
  it does to both. Run one after the other, the same two servers on this shared VM came out anywhere from
  0.5 to 2.1 from one round to the next; side by side, most rounds agree within ±0.03, and the control row
  (bare Koa against bare Koa, first in every run) shows the spread of the run. Each round starts both
  servers afresh: two processes of the very same code differ by a few per cent for their whole life (heap
  and code layout), which rounds within one process would never average out. Which of the two is started
  and loaded first alternates between rounds, and the control takes the first pair of the run, which has
  read low (0.91 in one round).
- **The calibration and target rows** put a fixed computation on bare Koa's route, sized by CPU time in the
  server process at start-up (bench/server.ts \`spinFor\`). Two servers sharing a core read every cost
  larger than it is (the calibration row shows by how much in this run), so the 2 µs bar is checked by
  pairing authkoa's cookie route with bare Koa plus a 2 µs computation: both sides are read by the method
  alike, and an extra of zero or less says the cookie path costs the server no more than 2 µs per request.
  The floor row pairs the same computation with a minimal cookie check written by hand for the bench
  (bench/server.ts \`floor-cookie\`: cache lookup, constant-time XSRF compare, expiry, a copy of the user,
  \`app.use(auth)\` in front), to show where the bar sits for any implementation. Both rows get three times the
  rounds: a round spreads about ±3 µs. Their headline gives the median with a 95 % interval read from the
  rounds themselves (the k-th smallest and k-th largest, bench/stats.ts), and its verdict goes by that
  interval: above zero is more than 2 µs, below zero no more, an interval holding zero cannot tell.
- The authkoa rows pay for reading the token, HMAC-SHA256 verification (skipped for a token already verified
  under the same secret, never past its \`exp\`), the XSRF compare and the provider check; koa-jwt and
  koa-passport verify with jsonwebtoken on every request, passing the secret as a string.
- **The profiled share** counts the samples of V8's sampling profiler (100 µs) whose stack, read from the
  leaf, reaches an authkoa frame before anyone else's code: authkoa's own functions and the Koa accessors and
  node internals they call, but not the router, koa-compose or the route handler that \`next()\` runs. GC
  and cache misses that authkoa's work causes elsewhere are not in it, which is why it reads lower than the
  ratios. The profiles are kept in the system temp directory (\`authkoa-bench-*.cpuprofile\`).
- The in-process table runs the middleware on real Koa contexts whose headers are decoded afresh for every
  call, as node's parser does, in a loop that keeps authkoa's code and data in the CPU caches: a lower bound
  of what a request costs, not what it costs in a server.
${END}`;
  const path = join(ROOT, 'docs', 'performance.md');
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const from = old.indexOf(BEGIN);
  const to = old.indexOf(END);
  // Only the generated part is replaced: what is written by hand around it (the analysis) stays.
  const doc =
    from >= 0 && to > from
      ? old.slice(0, from) + generated + old.slice(to + END.length)
      : `# Performance\n\n${generated}\n`;
  writeFileSync(join(ROOT, 'docs', 'performance.md'), doc);
  process.stderr.write('wrote docs/performance.md\n');
}
