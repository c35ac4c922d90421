/**
 * A real redis-server (the Debian package; `.ci/run` installs it when missing) on 127.0.0.1 and a
 * free port, with no persistence, stopped by its pid. restart() stops it and starts it again on the
 * same port, as an outage and recovery would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './ports.js';

export interface RedisPeer {
  /** `redis://127.0.0.1:<port>` (with `:<password>@` when started with one), no database. */
  uri: string;
  port: number;
  /** The server process's pid while it runs. */
  readonly pid: number | undefined;
  /** Stops the server (SIGKILL: what a crash looks like to clients) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** SIGSTOP: the server holds its connections but answers nothing (a hung host). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

const BINARY = 'redis-server';

/** Throws with the install command when redis-server is not on the PATH. */
function ensureBinary(): void {
  const probe = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    throw new Error(`${BINARY} is not installed: apt-get install -y redis-server (bash .ci/run does it)`);
}

export async function startRedis(opts: { password?: string } = {}): Promise<RedisPeer> {
  ensureBinary();
  let child: ChildProcess | undefined;
  let port = 0;

  const launch = async (): Promise<boolean> => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'no',
    ];
    if (opts.password) args.push('--requirepass', opts.password);
    // No config file and no working-directory writes: --save '' and appendonly off keep it in memory.
    const proc = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const ready = new Promise<boolean>((resolve) => {
      const onData = (d: Buffer) => {
        output += d;
        if (/Ready to accept connections/.test(output)) resolve(true);
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', () => resolve(false));
    });
    if (!(await ready)) {
      if (/Address already in use/.test(output)) return false;
      throw new Error(`redis-server did not start: ${output.trim()}`);
    }
    child = proc;
    return true;
  };

  const start = async () => {
    for (let attempt = 0; ; attempt++) {
      if (port === 0 || attempt > 0) port = await freePort();
      if (await launch()) return;
      if (attempt > 5) throw new Error('redis-server: no free port');
    }
  };
  await start();
  const fixedPort = port;

  return {
    get uri() {
      return `redis://${opts.password ? `:${encodeURIComponent(opts.password)}@` : ''}127.0.0.1:${fixedPort}`;
    },
    port: fixedPort,
    get pid() {
      return child?.exitCode === null ? child.pid : undefined;
    },
    async stop() {
      const proc = child;
      child = undefined;
      if (!proc || proc.exitCode !== null) return;
      const exited = once(proc, 'exit');
      process.kill(proc.pid!, 'SIGKILL');
      await exited;
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async start() {
      if (child) return;
      // The same port again, so clients reconnect to the address they know. The port may be held briefly
      // after a kill; a deadline, not a count of tries, since each try is a process start that a loaded
      // machine slows down.
      const deadline = Date.now() + 30_000;
      while (!(await launch())) {
        if (Date.now() > deadline) throw new Error(`redis-server: port ${fixedPort} did not come free`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}
