/**
 * The authorization server's token endpoint: how many authorization codes one core redeems per second (the code
 * spent in the state store, PKCE checked, the family and its refresh token written, the access token signed). The
 * codes are issued first, through the real authorization request of a logged-in user and a trusted client; then
 * they are redeemed one at a time over HTTP to an app in this process, and the process's CPU time per redemption is
 * what a core pays for one (the client's side of each request included, so the figure is a lower bound).
 * `node --import=tsx bench/token-endpoint.ts` runs it alone.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { once } from 'node:events';
import Koa from 'koa';
import { authKoa } from './built.js';

export interface TokenEndpointResult {
  codes: number;
  /** Redemptions per CPU-second of this process. */
  perCoreSecond: number;
  /** Median wall µs of one redemption. */
  medianUs: number;
}

const REDIRECT = 'http://127.0.0.1:9/callback';
const RESOURCE = 'https://api.example/mcp';

function request(
  agent: http.Agent,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** An app that is an authorization server, a logged-in user's cookie, and a code issuer. */
async function setUp() {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const { generateKeyPairSync } = await import('node:crypto');
  const key = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const auth = authKoa({
    secret: 'bench-secret-0123456789abcdef0123456789',
    url,
    telemetry: false,
    signing: { alg: 'EdDSA', key },
    stateStore: 'memory://',
    allowVolatileStores: true,
    providers: [{ kind: 'direct', name: 'local', checker: (_u: string, p: string) => p === 'pw' }],
    authorizationServer: {
      resources: { [RESOURCE]: { scopes: ['notes:read'] } },
      clients: [{ id: 'bench', redirectURIs: [REDIRECT], trusted: true }],
    },
  });
  await auth.ready;
  const koa = new Koa();
  koa.use(auth);
  server.on('request', koa.callback());
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const login = await request(agent, `${url}/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'ann', passwd: 'pw' }),
  });
  const cookie = (login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  const issue = async () => {
    const verifier = randomBytes(32).toString('base64url');
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: 'bench',
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: RESOURCE,
    });
    const res = await request(agent, `${url}/auth/oauth2/authorize?${q}`, { headers: { cookie } });
    const code = new URL(String(res.headers.location)).searchParams.get('code');
    if (!code) throw new Error(`authorize answered ${res.status}: ${res.body}`);
    return { code, verifier };
  };
  const close = async () => {
    agent.destroy();
    server.close();
    await auth.close();
  };
  return { url, agent, issue, close };
}

export async function tokenEndpointBench(codes: number): Promise<TokenEndpointResult> {
  const s = await setUp();
  try {
    const issued = [];
    for (let i = 0; i < codes; i++) issued.push(await s.issue());
    const times: number[] = [];
    const cpu = process.cpuUsage();
    for (const { code, verifier } of issued) {
      const started = process.hrtime.bigint();
      const res = await request(s.agent, `${s.url}/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          client_id: 'bench',
          redirect_uri: REDIRECT,
        }).toString(),
      });
      times.push(Number(process.hrtime.bigint() - started) / 1000);
      if (res.status !== 200) throw new Error(`token answered ${res.status}: ${res.body}`);
    }
    const used = process.cpuUsage(cpu);
    times.sort((a, b) => a - b);
    return {
      codes,
      perCoreSecond: codes / ((used.user + used.system) / 1e6),
      medianUs: times[Math.floor(times.length / 2)]!,
    };
  } finally {
    await s.close();
  }
}

/** The section of the report. */
export function tokenReport(r: TokenEndpointResult): string {
  return [
    "### The authorization server's token endpoint",
    '',
    `${r.codes} authorization codes redeemed one at a time over HTTP (memory state store, EdDSA access tokens, a ` +
      `refresh token each): **${Math.round(r.perCoreSecond)} per CPU-second**, median ${r.medianUs.toFixed(0)} µs ` +
      'a redemption (the client side of each request in the same process: a lower bound).',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`)
  console.log(tokenReport(await tokenEndpointBench(Number(process.argv[2] ?? 2000))));
