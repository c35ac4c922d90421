/**
 * A real PostgreSQL server (the Debian package; `.ci/run` installs it when missing) on 127.0.0.1 and a
 * free port, in a data directory of its own under the OS temp dir, stopped by its pid. stop() is a
 * crash (SIGKILL of the postmaster and its backends) and start() brings the same data directory up on
 * the same port, so crash recovery runs and committed rows survive.
 *
 * PostgreSQL refuses to run as root, and the tests run as root here and in CI: then initdb and the
 * server run as the `postgres` system user (the package creates it), which owns the temp folder.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PostgresPeer {
  /** `postgres://authkoa[:<password>]@127.0.0.1:<port>/authkoa`: the superuser on the `authkoa` database. */
  uri: string;
  port: number;
  /** The postmaster's pid while it runs. */
  readonly pid: number | undefined;
  /** Creates the database `name` (it must not exist yet) and returns its URI, for a test's own tables. */
  database(name: string): Promise<string>;
  /** Stops the server (SIGKILL of the postmaster and its backends: a crash to clients) and waits until none is left. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory: crash recovery runs, committed data is there. */
  start(): Promise<void>;
  /** SIGSTOP of the postmaster and its backends: connections stay open but nothing answers (a hung host). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** stop() and removes the temp folder. */
  destroy(): Promise<void>;
}

const INSTALL = 'apt-get install -y postgresql (bash .ci/run does it)';
const USER = 'authkoa';
const READY = /database system is ready to accept connections/;
/** Start-up includes crash recovery after stop(), which a loaded machine slows down. */
const START_DEADLINE_MS = 60_000;
const ENV = { ...process.env, LC_ALL: 'C', LANG: 'C' }; // the readiness and port-taken lines are matched in English

/** The folder holding initdb and postgres: Debian's newest /usr/lib/postgresql/<ver>/bin, else `pg_config --bindir`, else the PATH. */
function findBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  const candidates = versions.map((v) => join(root, v, 'bin'));
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (pgConfig.status === 0) candidates.push(pgConfig.stdout.trim());
  candidates.push(...(process.env.PATH ?? '').split(':').filter(Boolean));
  const dir = candidates.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'postgres')));
  if (!dir)
    throw new Error(
      `PostgreSQL is not installed (no initdb and postgres in ${root}/*/bin, pg_config --bindir or the PATH): ${INSTALL}`,
    );
  return dir;
}

/** Who runs initdb and the server: spawn's `uid` and `gid`, none to run them as ourselves. */
type RunAs = { uid?: number; gid?: number };

/** The `postgres` user when we are root (PostgreSQL will not run as root), else ourselves. */
function runAs(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const [uid, gid] = [id('-u'), id('-g')];
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      `running as root, which PostgreSQL refuses, and there is no postgres user to run it as: ${INSTALL}`,
    );
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Binds `port` of 127.0.0.1 (0: any free one) and lets it go: the port bound, or undefined when it is taken. */
async function tryPort(port: number): Promise<number | undefined> {
  const srv = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!bound) return undefined;
  const { port: got } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return got;
}

/** The last lines of a process's output, for an error message. */
const lastLines = (text: string, count = 20) => text.trim().split('\n').slice(-count).join('\n');

/** Keeps the last 16 KB a process writes (its pipes are drained for its whole life, so it never blocks on them). */
function capture(proc: ChildProcess, onText?: (text: string) => void): { readonly text: string } {
  const out = { text: '' };
  const onData = (d: Buffer) => {
    out.text = (out.text + d).slice(-16_384);
    onText?.(out.text);
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  return out;
}

async function initdb(bin: string, root: string, as: RunAs, password?: string): Promise<string> {
  const data = join(root, 'data');
  const args = ['-D', data, '-U', USER, '-E', 'UTF8', '--locale=C', '--no-sync'];
  const pwfile = join(root, 'pwfile');
  if (password) {
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (as.uid !== undefined) chownSync(pwfile, as.uid, as.gid!);
    // Local (socket) logins stay trusted; TCP, which the tests use, needs the password.
    args.push('--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`);
  } else {
    args.push('--auth=trust');
  }
  const proc = spawn(join(bin, 'initdb'), args, { ...as, cwd: root, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = capture(proc);
  const [code] = (await once(proc, 'exit')) as [number | null];
  rmSync(pwfile, { force: true });
  if (code !== 0) throw new Error(`initdb failed (exit ${code}):\n${lastLines(out.text)}`);
  return realpathSync(data); // as /proc/<pid>/cwd spells it
}

/**
 * A new cluster's data directory in `root`: a copy of one made by initdb for this PostgreSQL build, run-as user
 * and password, kept in the OS temp dir (authkoa-pg-template-<key>). initdb takes seconds on a loaded machine and
 * writes the same cluster every time; a copy takes a fraction of one, in each of the two dozen files that start a
 * server. Every server still gets a data directory of its own that no other has run in. Safe when several test
 * processes ask at once: each runs initdb in its own folder and renames the result into place; the loser of the
 * race throws its copy away.
 */
async function freshDataDir(bin: string, root: string, as: RunAs, password?: string): Promise<string> {
  const version = spawnSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout;
  const key = createHash('sha256')
    .update(JSON.stringify([bin, version, USER, password ?? null, as.uid ?? null]))
    .digest('hex')
    .slice(0, 16);
  const template = join(tmpdir(), `authkoa-pg-template-${key}`);
  if (!existsSync(join(template, 'PG_VERSION'))) {
    const work = mkdtempSync(join(tmpdir(), 'authkoa-pg-initdb-'));
    try {
      if (as.uid !== undefined) chownSync(work, as.uid, as.gid!);
      const made = await initdb(bin, work, as, password);
      try {
        renameSync(made, template);
      } catch (err) {
        if (!existsSync(join(template, 'PG_VERSION'))) throw err; // not a lost race: a real failure
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const data = join(root, 'data');
  // -a: the owner (the postgres user when we are root) and the 0700 mode PostgreSQL insists on stay as initdb left them.
  execFileSync('cp', ['-a', template, data]);
  return realpathSync(data); // as /proc/<pid>/cwd spells it
}

/** Pids of the processes running in `dataDir` (every PostgreSQL process makes it its working directory), found in /proc. */
function clusterPids(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // A zombie or a process of another user has no readable cwd: neither holds the port or shared memory.
      if (readlinkSync(`/proc/${entry}/cwd`) !== dataDir) continue;
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      pids.push(Number(entry));
    } catch {
      continue; // gone while we looked, or not ours to look at
    }
  }
  return pids;
}

/** Whether the process is there and alive: a zombie (dead, not yet reaped by its new parent) is not. */
function running(pid: number): boolean {
  try {
    // After the last ')' (the name may hold any character) comes the state letter.
    return !/^[ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').at(-1)!.trim());
  } catch {
    return false;
  }
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // exited in between
    }
  }
}

/** Polls `done` every 20 ms until it holds, or throws `what` at the deadline. */
async function until(done: () => boolean | Promise<boolean>, what: string, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(what);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * SIGKILL of every process of the cluster, then waits until none is left and the port is free. The
 * postmaster is frozen first so it forks no backend between the scan and the kill; backends are their
 * own process groups (PostgreSQL calls setsid), so a group kill would miss them.
 */
async function crash(proc: ChildProcess, dataDir: string, port: number): Promise<void> {
  const live = proc.exitCode === null && proc.signalCode === null;
  const exited = live ? once(proc, 'exit') : Promise.resolve();
  if (live) proc.kill('SIGSTOP');
  // The backends before the postmaster: one that outlived it even for a moment would notice and send
  // its clients a FATAL "unexpected postmaster exit" instead of the dropped connection of a crash.
  const pids = [...clusterPids(dataDir).filter((pid) => pid !== proc.pid), ...(live ? [proc.pid!] : [])];
  signalAll(pids, 'SIGKILL');
  await exited;
  // By pid as well as by working directory: a dying process drops its cwd a moment before it is gone.
  const left = () => pids.some(running) || clusterPids(dataDir).length > 0;
  await until(() => !left(), `postgres processes in ${dataDir} outlived SIGKILL`, 10_000);
  await until(
    async () => (await tryPort(port)) !== undefined,
    `port ${port} stayed taken after postgres was killed`,
    10_000,
  );
}

interface Cluster {
  bin: string;
  /** Server options beyond the defaults: TLS, when started with a certificate. */
  extra: string[];
  /** The temp folder: the data directory's parent and the unix socket's folder. */
  root: string;
  dataDir: string;
  as: RunAs;
}

/**
 * Starts the postmaster of `cluster` on `port`: the process once it accepts connections, undefined when
 * the port is taken; throws on anything else, with the server's last lines.
 */
async function launch(cluster: Cluster, port: number, deadline: number): Promise<ChildProcess | undefined> {
  const args = ['-D', cluster.dataDir, '-p', String(port), '-k', cluster.root, '-c', 'listen_addresses=127.0.0.1'];
  // No durability beyond what a killed process (not a lost machine) needs: its writes are in the OS page
  // cache. synchronous_commit stays on: off lets a commit acknowledged just before stop() vanish with
  // the WAL buffers (every time, when tried), and with fsync off it costs only a write() per commit.
  args.push(
    '-c',
    'fsync=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
    '-c',
    'shared_buffers=32MB',
    ...cluster.extra,
  );
  const proc = spawn(join(cluster.bin, 'postgres'), args, {
    ...cluster.as,
    cwd: cluster.root,
    env: ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let timer: NodeJS.Timeout | undefined;
  let out: { readonly text: string } = { text: '' };
  const ready = await new Promise<boolean | 'timeout'>((resolve) => {
    out = capture(proc, (text) => READY.test(text) && resolve(true));
    // 'close', not 'exit': the reason (such as a taken port) may still be in the pipe when it exits.
    proc.once('close', () => resolve(false));
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
  });
  clearTimeout(timer);
  if (ready === true) return proc;
  if (ready === 'timeout') await crash(proc, cluster.dataDir, port);
  if (ready === false && /Address already in use/.test(out.text)) return undefined;
  throw new Error(
    `postgres did not start on port ${port}${ready === 'timeout' ? ' in time' : ''}:\n${lastLines(out.text)}`,
  );
}

async function createDatabase(adminUri: string, name: string, tls: boolean): Promise<void> {
  // Over TLS when the server takes nothing else; the tests check certificates, the helper need not.
  const admin = new pg.Client({ connectionString: adminUri, ssl: tls ? { rejectUnauthorized: false } : undefined });
  admin.on('error', () => undefined); // a server stopped meanwhile: the pending call rejects, that is enough
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
}

/**
 * With `tls`, the server speaks TLS with that certificate and accepts TCP logins only over it
 * (`hostssl` in pg_hba.conf): a client that does not ask for TLS is refused.
 */
function requireTls(cluster: Cluster, tls: { cert: string; key: string }): void {
  const cert = join(cluster.root, 'server.crt');
  const key = join(cluster.root, 'server.key');
  writeFileSync(cert, tls.cert);
  writeFileSync(key, tls.key, { mode: 0o600 }); // PostgreSQL refuses a key others can read
  if (cluster.as.uid !== undefined) for (const f of [cert, key]) chownSync(f, cluster.as.uid, cluster.as.gid!);
  const hba = join(cluster.dataDir, 'pg_hba.conf');
  writeFileSync(hba, readFileSync(hba, 'utf8').replace(/^host(\s)/gm, 'hostssl$1'));
  cluster.extra.push('-c', 'ssl=on', '-c', `ssl_cert_file=${cert}`, '-c', `ssl_key_file=${key}`);
}

export async function startPostgres(
  opts: { password?: string; tls?: { cert: string; key: string } } = {},
): Promise<PostgresPeer> {
  const bin = findBinDir(); // first: a missing package is the likelier cause, and its message names the fix
  const as = runAs();
  const cluster: Cluster = { bin, root: mkdtempSync(join(tmpdir(), 'authkoa-pg-')), dataDir: '', as, extra: [] };
  if (as.uid !== undefined) chownSync(cluster.root, as.uid, as.gid!);
  let child: ChildProcess | undefined;
  let port = 0;
  const uriFor = (database: string) => {
    const auth = opts.password ? `${USER}:${encodeURIComponent(opts.password)}` : USER;
    return `postgres://${auth}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  };
  const serve = async (deadline: number) => (child = await launch(cluster, port, deadline)) !== undefined;
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (proc) await crash(proc, cluster.dataDir, port);
  };

  try {
    cluster.dataDir = await freshDataDir(cluster.bin, cluster.root, as, opts.password);
    if (opts.tls) requireTls(cluster, opts.tls);
    const deadline = Date.now() + START_DEADLINE_MS;
    for (let attempt = 0; port === 0 || !(await serve(deadline)); attempt++) {
      if (attempt > 5) throw new Error('postgres: no free port');
      port = (await tryPort(0))!;
    }
    await createDatabase(uriFor('postgres'), USER, opts.tls !== undefined);
  } catch (err) {
    await stop().catch(() => undefined);
    rmSync(cluster.root, { recursive: true, force: true });
    throw err;
  }

  return {
    uri: uriFor(USER),
    port,
    get pid() {
      return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    async database(name) {
      await createDatabase(uriFor('postgres'), name, opts.tls !== undefined);
      return uriFor(name);
    },
    stop,
    async start() {
      if (child) return;
      // The same port again, so clients reconnect to the address they know. A deadline, not a count of
      // tries: each try is a process start (with recovery) that a loaded machine slows down.
      const deadline = Date.now() + START_DEADLINE_MS;
      while (!(await serve(deadline))) {
        if (Date.now() > deadline) throw new Error(`postgres: port ${port} did not come free`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    pause() {
      // The postmaster first, so no backend is forked after the scan and left running.
      child?.kill('SIGSTOP');
      signalAll(clusterPids(cluster.dataDir), 'SIGSTOP');
    },
    resume() {
      // By data directory, not by child: it also wakes what a failed stop() left behind.
      signalAll(clusterPids(cluster.dataDir), 'SIGCONT');
    },
    async destroy() {
      await stop();
      rmSync(cluster.root, { recursive: true, force: true });
    },
  };
}

/**
 * A plain `pg` client on `uri`, for reading what a store wrote; closed when the test ends. A server the
 * test stops meanwhile only makes its pending call reject.
 */
export async function rawClient(t: { teardown(fn: () => unknown): void }, uri: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: uri });
  client.on('error', () => undefined);
  await client.connect();
  t.teardown(() => client.end().catch(() => undefined));
  return client;
}
