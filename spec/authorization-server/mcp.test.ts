/**
 * The MCP authorization specification end to end, with the official TypeScript SDK on both sides: an MCP server in a
 * Koa app behind `protectedResource()`, an MCP client with the SDK's OAuth client (Protected Resource Metadata,
 * authorization server metadata, dynamic registration, PKCE, `resource`), and authkoa as the authorization server,
 * where the user logs in with the app's own password login.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import Koa from 'koa';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { readBody } from '../../lib/http/body.js';
import { protectedResource, type ProtectedResourceAuth } from '../../lib/verify/index.js';
import { appCode, enrolTotp, login, PASSWORD, signUpAndConfirm } from '../accounts/rig.js';
import { Client } from '../helpers/http.js';
import { REDIRECT, serverRig, userAnswers } from './app-rig.js';

/** An MCP server (one tool: who the token says is calling) in a Koa app, its middleware set once the port is known. */
async function mcpApp(t: ExecutionContext) {
  const app = new Koa();
  let guard: Koa.Middleware | undefined;
  app.use((ctx, next) => (guard ? guard(ctx, next) : next()));
  app.use(async (ctx) => {
    if (ctx.path !== '/mcp') return;
    const auth = ctx.state.auth as ProtectedResourceAuth;
    const server = new McpServer({ name: 'notes', version: '1.0.0' });
    server.registerTool('whoami', { description: 'the caller, as the access token says' }, () => ({
      content: [
        { type: 'text', text: JSON.stringify({ sub: auth.sub, clientId: auth.clientId, scopes: auth.scopes }) },
      ],
    }));
    // Stateless: a server and a transport per request, as the SDK's examples for serverless hosts do.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    ctx.respond = false;
    const body =
      ctx.method === 'POST' ? (JSON.parse((await readBody(ctx.req, 1 << 20)).toString()) as unknown) : undefined;
    await transport.handleRequest(ctx.req, ctx.res, body);
  });
  const http: Server = createServer(app.callback());
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => http.close(() => resolve())));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return { url, protect: (m: Koa.Middleware) => void (guard = m) };
}

/** The SDK's client-side OAuth state, with the logged-in user's browser answering the authorization request. */
class AgentProvider implements OAuthClientProvider {
  code: string | undefined;
  authorizations = 0;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';
  constructor(
    readonly browser: Client,
    client?: OAuthClientInformationMixed,
  ) {
    this.#client = client;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test agent',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizations++;
    const back = await userAnswers(this.browser, url);
    this.code = back.searchParams.get('code') ?? undefined;
    if (!this.code) throw new Error(`no code: ${back.href}`);
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}

/** Connects as the SDK says: a first try that needs authorization, the code handed over, then the real connection. */
async function connect(url: string, provider: AgentProvider): Promise<McpClient> {
  const first = new McpClient({ name: 'agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  try {
    await first.connect(transport);
    return first;
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  await transport.finishAuth(provider.code!);
  const client = new McpClient({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return client;
}

test("the MCP SDK client registers itself, gets the user's consent through the app's login and calls a tool on a protected MCP server", async (t) => {
  const mcp = await mcpApp(t);
  const r = await serverRig(t, {
    resources: { [mcp.url]: { scopes: ['notes:read'], name: 'Notes' } },
    clients: [],
    registration: 'open',
  });
  mcp.protect(protectedResource({ resource: mcp.url, authorizationServers: [r.app.url], clock: r.clock }));
  await signUpAndConfirm(r, 'ann@example.com');
  const provider = new AgentProvider(r.client);
  const client = await connect(mcp.url, provider);
  t.teardown(() => client.close());
  t.is(provider.authorizations, 1);
  t.truthy(provider.clientInformation()?.client_id, 'registered by RFC 7591');
  const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text: string }> };
  const caller = JSON.parse(result.content[0]!.text) as { sub: string; clientId: string; scopes: string[] };
  t.regex(caller.sub, /acct_/);
  t.is(caller.clientId, provider.clientInformation()!.client_id);
  t.deepEqual(caller.scopes, ['notes:read']);
});

test('a token the MCP client got for one MCP server is refused at another', async (t) => {
  const notes = await mcpApp(t);
  const other = await mcpApp(t);
  const r = await serverRig(t, {
    resources: { [notes.url]: { scopes: ['notes:read'] }, [other.url]: { scopes: ['other:read'] } },
    clients: [{ id: 'agent', redirectURIs: [REDIRECT] }],
  });
  notes.protect(protectedResource({ resource: notes.url, authorizationServers: [r.app.url], clock: r.clock }));
  other.protect(protectedResource({ resource: other.url, authorizationServers: [r.app.url], clock: r.clock }));
  await signUpAndConfirm(r, 'ann@example.com');
  const provider = new AgentProvider(r.client, { client_id: 'agent' });
  const client = await connect(notes.url, provider);
  t.teardown(() => client.close());
  const token = provider.tokens()!.access_token;
  const res = await fetch(other.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  t.is(res.status, 401);
  t.regex(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
});

test('with a second factor on, the MCP client is sent to log in until the user has passed both steps, then gets its token', async (t) => {
  const mcp = await mcpApp(t);
  const r = await serverRig(
    t,
    { resources: { [mcp.url]: { scopes: ['notes:read'] } }, clients: [{ id: 'agent', redirectURIs: [REDIRECT] }] },
    { mfa: true },
  );
  mcp.protect(protectedResource({ resource: mcp.url, authorizationServers: [r.app.url], clock: r.clock }));
  await signUpAndConfirm(r, 'ann@example.com');
  const otpauthUrl = await enrolTotp(r);
  // A new browser: the password alone is half a login.
  const browser = new Client(r.app.url);
  t.like(await (await login(browser, 'ann@example.com', PASSWORD)).json(), { mfa_required: true });
  const halfway = new AgentProvider(browser, { client_id: 'agent' });
  const refused = await t.throwsAsync(connect(mcp.url, halfway));
  t.regex(String(refused?.message), /no code: .*\/auth\/oauth2\/login\?from=/, 'sent to the login page');
  r.clock.advance(30_000);
  const second = await browser.fetch('/auth/mfa/verify', {
    method: 'POST',
    json: { code: appCode(otpauthUrl, r.clock()) },
  });
  t.is(second.status, 200);
  const provider = new AgentProvider(browser, { client_id: 'agent' });
  const client = await connect(mcp.url, provider);
  t.teardown(() => client.close());
  const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text: string }> };
  t.regex(result.content[0]!.text, /acct_/);
});
