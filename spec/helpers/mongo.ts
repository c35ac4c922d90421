/**
 * A MongoDB wire-protocol server for tests: CongoDB, the pure-JS server inside
 * @push.rocks/smartmongo@2.2.0. It is a stand-in for mongod (no mongod can be installed here): it
 * proves the code speaks the protocol with the real `mongodb` driver, not that it behaves exactly
 * like MongoDB (unique and TTL indexes are accepted but not enforced).
 *
 * The package cannot be `npm install`ed here (missing transitive versions), so it is fetched with
 * `npm pack` into the git-ignored spec/.cache/ on first use and unpacked there; its six runtime
 * imports are devDependencies. The unpacked copy is reused by later runs (and by CI's cache).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from './ports.js';

const PACKAGE = '@push.rocks/smartmongo@2.2.0';
const CACHE = join(dirname(fileURLToPath(import.meta.url)), '..', '.cache');
const UNPACKED = join(CACHE, 'smartmongo-2.2.0');
const ENTRY = join(UNPACKED, 'package', 'dist_ts', 'congodb', 'index.js');

/** A running CongoDB on 127.0.0.1. */
export interface MongoPeer {
  /**
   * Connection URI with the options CongoDB needs, e.g.
   * `mongodb://127.0.0.1:41234/?directConnection=true&serverMonitoringMode=poll`. Polling monitoring:
   * CongoDB does not keep up the driver's streaming heartbeat (exhaust/moreToCome) under load, and a
   * failed heartbeat clears the pool mid-operation.
   */
  uri: string;
  /** `uri` plus extra query parameters, e.g. `{ ava_db: 'x', ava_coll: 'y' }` for an avatar store. */
  uriWith(params: Record<string, string>): string;
  port: number;
  stop(): Promise<void>;
}

interface CongoServerLike {
  start(): Promise<void>;
  stop(): Promise<void>;
  getConnectionUri(): string;
}

/**
 * Makes sure the CongoDB sources are unpacked under spec/.cache/ and returns the module's path.
 * Safe when several test processes call it at once: each unpacks into its own folder and renames it
 * into place; the loser of the race throws its copy away.
 */
export function ensureCongo(): string {
  if (existsSync(ENTRY)) return ENTRY;
  mkdirSync(CACHE, { recursive: true });
  const work = join(CACHE, `.unpack-${process.pid}-${Date.now()}`);
  mkdirSync(work);
  try {
    execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', work], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${PACKAGE} produced no tarball`);
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
    rmSync(join(work, tarball));
    try {
      renameSync(work, UNPACKED);
    } catch (err) {
      if (!existsSync(ENTRY)) throw err; // not a lost race: a real failure
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (!existsSync(ENTRY)) throw new Error(`CongoDB entry missing after unpacking ${PACKAGE}: ${ENTRY}`);
  return ENTRY;
}

/**
 * Starts a CongoDB with in-memory storage on a free port of 127.0.0.1. The port is found free and then
 * bound by CongoDB (it takes no port 0): another process may take it in between, so a port found taken
 * is replaced by a fresh one.
 */
export async function startMongo(): Promise<MongoPeer> {
  const mod = (await import(pathToFileURL(ensureCongo()).href)) as {
    CongoServer: new (o: { port: number; host: string; storage: 'memory' }) => CongoServerLike;
  };
  let port = 0;
  let server: CongoServerLike;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    server = new mod.CongoServer({ port, host: '127.0.0.1', storage: 'memory' });
    try {
      await server.start();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 10) throw err;
    }
  }
  const uri = `mongodb://127.0.0.1:${port}/?directConnection=true&serverMonitoringMode=poll`;
  const uriWith = (params: Record<string, string>) => `${uri}&${new URLSearchParams(params)}`;
  return { uri, uriWith, port, stop: () => server.stop() };
}
