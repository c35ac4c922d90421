import type http from 'node:http';
import { serve, type Served } from '../helpers/http.js';

/** One request the stand-in received, for assertions on what authkoa sent. */
export interface Seen {
  path: string;
  authorization: string;
  body: URLSearchParams;
}

/** How each endpoint answers; change fields between requests to script a test. */
export interface StandinScript {
  tokenStatus: number;
  tokenBody: unknown;
  infoStatus: number;
  /** JSON value, or a raw string/Buffer sent as is. */
  infoBody: unknown;
  /** Endpoints that accept the connection and never answer. */
  hang: Set<'token' | 'info'>;
}

export interface Standin extends Served {
  script: StandinScript;
  seen: Seen[];
  /** Endpoint options pointing a provider entry at this stand-in. */
  endpoints(): { endpoint: { authURL: string; tokenURL: string }; infoURL: string };
}

/**
 * A local stand-in for a provider's token and user-info endpoints, answering what the test scripts
 * (the provider's documented user-info JSON by default). The authorize page is never visited: tests
 * take the state from the login redirect and call the callback themselves.
 */
export async function startStandin(infoBody: unknown): Promise<Standin> {
  const script: StandinScript = {
    tokenStatus: 200,
    tokenBody: { access_token: 'standin-access-token', token_type: 'bearer', expires_in: 3600 },
    infoStatus: 200,
    infoBody,
    hang: new Set(),
  };
  const seen: Seen[] = [];
  const hanging: http.ServerResponse[] = [];
  const served = await serve(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url!, 'http://x');
    seen.push({
      path: url.pathname,
      authorization: req.headers.authorization ?? '',
      body: new URLSearchParams(Buffer.concat(chunks).toString()),
    });
    const which = url.pathname === '/token' ? 'token' : url.pathname === '/user' ? 'info' : undefined;
    if (!which) return void res.writeHead(404).end();
    if (script.hang.has(which)) return void hanging.push(res);
    if (which === 'info' && req.headers.authorization !== 'Bearer standin-access-token')
      return void res.writeHead(401).end();
    const status = which === 'token' ? script.tokenStatus : script.infoStatus;
    const body = which === 'token' ? script.tokenBody : script.infoBody;
    const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(raw);
  });
  return {
    ...served,
    script,
    seen,
    endpoints: () => ({
      endpoint: { authURL: `${served.url}/authorize`, tokenURL: `${served.url}/token` },
      infoURL: `${served.url}/user`,
    }),
    async close() {
      for (const r of hanging) r.destroy();
      await served.close();
    },
  };
}
