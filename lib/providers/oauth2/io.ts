import type { Tracing } from '../../telemetry/types.js';
import { AuthorizationCode } from 'simple-oauth2';
import { AuthError, type ErrorCode } from '../../errors.js';
import { HttpError, jsonObject, request } from '../../http/client.js';
import type { Endpoints, FlowIO, FlowSpec } from './types.js';
import type { OAuthToken } from './options.js';

/**
 * The outbound side of the authorization-code flow: the OAuth2 client for the token exchange, the
 * user-info and JSON calls, each under the provider's deadline and size cap, and every failure turned
 * into an error that names the provider.
 */

/** An AuthError whose message names the provider, so an operator reading it knows which one failed. */
export function providerError(provider: string, code: ErrorCode, message: string, cause?: unknown): AuthError {
  return new AuthError(code, `${provider}: ${message}`, cause === undefined ? undefined : { cause });
}

/**
 * The part of simple-oauth2's client the flow uses, as our own type: the package's types stay out of
 * authkoa's declaration files, so a TypeScript application needs no @types/simple-oauth2.
 */
export interface OAuthClient {
  authorizeURL(params: Record<string, string>): string;
  getToken(params: never): Promise<{ token: Record<string, unknown> }>;
}

/**
 * The OAuth2 client for a set of endpoints and a client secret (`csecret` unless another is given).
 * The last one built is kept while both stay the same: they change only when discovery or a signed
 * secret (Apple's) does.
 */
export function clientCache(spec: FlowSpec): (ep: Endpoints, secret?: string) => OAuthClient {
  let client: { key: string; code: OAuthClient } | undefined;
  return (ep, secret = spec.csecret) => {
    const key = `${ep.authURL} ${ep.tokenURL} ${secret}`;
    if (client?.key !== key) client = { key, code: buildClient(spec, ep, secret) };
    return client.code;
  };
}

/** The OAuth2 client for one set of endpoints and a client secret. */
function buildClient(spec: FlowSpec, ep: Endpoints, secret: string): OAuthClient {
  const token = new URL(ep.tokenURL);
  const auth = new URL(ep.authURL);
  return new AuthorizationCode({
    client: { id: spec.cid, secret },
    // Full URLs as paths: simple-oauth2 resolves them against the host, keeping any query they carry.
    auth: { tokenHost: token.origin, tokenPath: token.href, authorizeHost: auth.origin, authorizePath: auth.href },
    options: { authorizationMethod: spec.authMethod },
    http: {
      timeout: spec.timeoutMs,
      maxBytes: spec.maxBytes,
      // 'force': a JSON body sent as text/plain still parses; garbage fails as a bad answer, not a crash.
      json: 'force',
      redirects: 0,
      headers: { Accept: 'application/json', 'User-Agent': 'authkoa' },
    } as never,
  });
}

/** Boom-shaped errors from simple-oauth2's transport. */
interface BoomLike {
  isBoom?: boolean;
  output?: { statusCode?: number };
  data?: { isResponseError?: boolean; payload?: unknown } | null;
}

/** The code-for-token exchange under one deadline, with every failure mapped to a provider error. */
export async function exchange(
  spec: FlowSpec,
  client: OAuthClient,
  params: Record<string, string>,
  traced?: { tracing: Tracing; tokenURL: string },
): Promise<OAuthToken> {
  if (!traced?.tracing.on) return exchangeNow(spec, client, params);
  return traced.tracing.client({ method: 'POST', url: traced.tokenURL, what: 'token' }, () =>
    exchangeNow(spec, client, params),
  );
}

async function exchangeNow(spec: FlowSpec, client: OAuthClient, params: Record<string, string>): Promise<OAuthToken> {
  const name = spec.name;
  let timer: NodeJS.Timeout | undefined;
  // simple-oauth2's transport times the request and the body read separately; one deadline caps both.
  const deadline = new Promise<never>((_, reject) => {
    const late = () =>
      providerError(name, 'provider_timeout', `token endpoint gave no answer within ${spec.timeoutMs} ms`);
    timer = setTimeout(() => reject(late()), spec.timeoutMs);
  });
  let payload: Record<string, unknown>;
  try {
    const at = await Promise.race([client.getToken(params as never), deadline]);
    payload = at.token;
  } catch (err) {
    if (err instanceof AuthError) throw err;
    const b = err as BoomLike;
    const status = b.output?.statusCode ?? 0;
    if (b.data?.isResponseError) {
      const body =
        b.data.payload && typeof b.data.payload === 'object' && !Buffer.isBuffer(b.data.payload)
          ? (b.data.payload as Record<string, unknown>)
          : {};
      const code = typeof body.error === 'string' ? ` (${body.error.replace(/[^\w.-]/g, '').slice(0, 64)})` : '';
      if (status >= 500) throw providerError(name, 'provider_unavailable', `token endpoint answered ${status}`, err);
      throw providerError(name, 'exchange_failed', `code exchange refused with ${status}${code}`, err);
    }
    if (status === 504 || status === 408)
      throw providerError(name, 'provider_timeout', `token endpoint gave no answer within ${spec.timeoutMs} ms`, err);
    if (status === 413)
      throw providerError(name, 'response_too_large', `token response exceeds ${spec.maxBytes} bytes`, err);
    if (status === 502 && b.data && 'payload' in b.data)
      throw providerError(name, 'bad_provider_response', 'token response is not JSON', err);
    if (b.isBoom) throw providerError(name, 'provider_unavailable', 'token endpoint is unreachable', err);
    throw providerError(name, 'bad_provider_response', 'token response is unusable', err);
  } finally {
    clearTimeout(timer);
  }
  // GitHub (and others) answer 200 with {"error": …} for a bad code.
  if (typeof payload.error === 'string') {
    throw providerError(
      name,
      'exchange_failed',
      `code exchange refused (${payload.error.replace(/[^\w.-]/g, '').slice(0, 64)})`,
    );
  }
  if (typeof payload.access_token !== 'string' || !payload.access_token) {
    throw providerError(name, 'bad_provider_response', 'token response carries no access_token');
  }
  return payload as OAuthToken;
}

/** The outbound helpers of one provider: its deadline and size cap, errors naming it. */
export function flowIO(spec: Pick<FlowSpec, 'name' | 'timeoutMs' | 'maxBytes'> & { tracing?: Tracing }): FlowIO {
  const name = spec.name;
  const tracing = spec.tracing;
  async function get(url: string, what: string, headers: Record<string, string>, failCode: ErrorCode) {
    let res;
    try {
      res = await request(url, {
        headers: { Accept: 'application/json', 'User-Agent': 'authkoa', ...headers },
        timeoutMs: spec.timeoutMs,
        maxBytes: spec.maxBytes,
        tracing: tracing && { tracing, what: what.replace(/\s+/g, '_').toLowerCase() },
      });
    } catch (err) {
      throw transportError(name, what, err);
    }
    if (res.status < 200 || res.status > 299) throw providerError(name, failCode, `${what} answered ${res.status}`);
    const data = jsonObject(res.body);
    if (!data) throw providerError(name, 'bad_provider_response', `${what} is not a JSON object`);
    return data;
  }
  return {
    userInfo: (url, token) =>
      get(url, 'user info', { Authorization: `Bearer ${token.access_token}` }, 'userinfo_failed'),
    getJSON: (url, what) => get(url, what, {}, 'provider_unavailable'),
  };
}

/** Maps an http-client failure to the provider error a client sees. */
export function transportError(name: string, what: string, err: unknown): AuthError {
  if (err instanceof HttpError) {
    if (err.reason === 'timeout') return providerError(name, 'provider_timeout', `${what}: ${err.message}`, err);
    if (err.reason === 'too_large') return providerError(name, 'response_too_large', `${what}: ${err.message}`, err);
  }
  return providerError(name, 'provider_unavailable', `${what} is unreachable`, err);
}
