/**
 * What the clients' tests share: an https server on 127.0.0.1 with a certificate from a throwaway CA (localCA) that
 * serves client metadata documents and counts every request it gets, and a directory built over a real state store
 * with a clock the test moves.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  clientDirectory,
  readClientOptions,
  type ClientDirectory,
} from '../../lib/authorization-server/clients/index.js';
import { noopLogger, type Logger } from '../../lib/logger.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import { nodeArgs } from '../helpers/source.js';
import { localCA } from '../helpers/tls.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface DocumentServer {
  /** `https://127.0.0.1:<port>`: the certificate names 127.0.0.1, so no name lookup is involved. */
  origin: string;
  /** Every request's path, in order: what reached the server. */
  hits: string[];
  /** Hits on one path. */
  count(path: string): number;
  /** Serves `path` with `handler` from now on. */
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const { key, cert } = await localCA();
  const routes = new Map<string, Handler>();
  const hits: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer({ key, cert }, (req, res) => {
    hits.push(req.url ?? '');
    const handler = routes.get(req.url ?? '');
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    origin: `https://127.0.0.1:${port}`,
    hits,
    count: (path) => hits.filter((h) => h === path).length,
    route: (path, handler) => routes.set(path, handler),
    close: async () => {
      for (const s of sockets) s.destroy(); // a slow route's request never ends by itself
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A handler answering `doc` as JSON with `headers`. */
export const json =
  (doc: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    const body = JSON.stringify(doc);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };

/** A metadata document for `url`: a public web client with one https redirect URI. */
export const documentFor = (url: string, extra: Record<string, unknown> = {}) => ({
  client_id: url,
  client_name: 'Example Tool',
  redirect_uris: ['https://tool.example/callback'],
  token_endpoint_auth_method: 'none',
  ...extra,
});

/** A moving clock: `now()` is its reading, `advance(ms)` moves it. */
export function testClock(start = Date.UTC(2025, 0, 1)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

export interface Setup {
  directory: ClientDirectory;
  state: StateStore;
  clock: ReturnType<typeof testClock>;
  events: Array<{ type: string; data: Record<string, unknown> }>;
  logs: string[];
}

/** A directory from `options` (the authorizationServer option), over a memory store on the same clock. */
export async function setup(
  options: Record<string, unknown>,
  more: { state?: StateStore; clock?: ReturnType<typeof testClock>; trustCA?: boolean } = {},
): Promise<Setup> {
  const clock = more.clock ?? testClock();
  const state = more.state ?? memoryStateStore({ clock: clock.now });
  const events: Setup['events'] = [];
  const logs: string[] = [];
  const logger: Logger = {
    ...noopLogger,
    info: (m, f) => logs.push(`${m} ${JSON.stringify(f ?? {})}`),
    warn: (m, f) => logs.push(`${m} ${JSON.stringify(f ?? {})}`),
  };
  const directory = clientDirectory(readClientOptions(options), {
    state,
    clock: clock.now,
    logger,
    events: { emit: (type, data) => events.push({ type, data: data as Record<string, unknown> }) },
    ...(more.trustCA !== false && { ca: (await localCA()).ca }),
  });
  return { directory, state, clock, events, logs };
}

const CHILD = fileURLToPath(new URL('./fixtures/directory-child.ts', import.meta.url));

/**
 * Runs fixtures/directory-child.ts, another process with a directory of its own, and resolves to the results of its
 * calls. `env` is its whole environment's changes: a key set to undefined is left out (NODE_EXTRA_CA_CERTS).
 */
export async function runDirectoryChild(
  arg: { options: Record<string, unknown>; stateUri?: string; calls: unknown[] },
  env: Record<string, string | undefined> = {},
): Promise<unknown[]> {
  const childEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k];
  const child = spawn(process.execPath, [...nodeArgs(CHILD), JSON.stringify(arg)], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`directory-child exited ${code}: ${err}`);
  return JSON.parse(out) as unknown[];
}
