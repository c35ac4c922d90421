import { parseClaimsRequest, STANDARD_CLAIMS, type ClaimsRequest } from '../providers/oauth2-server/claims.js';
import { openIDProblem } from '../providers/oauth2-server/request.js';
import { withRequestObject } from '../providers/oauth2-server/request-object.js';
import type { OAuthClient } from './clients/index.js';
import { OPENID_SCOPES } from './metadata.js';
import type { ServerParts } from './parts.js';

/**
 * An authorization request (RFC 6749 §4.1.1 with PKCE, RFC 8707's `resource` and OpenID's `nonce` and `prompt`),
 * checked against its client and the configured resources. Two kinds of refusal: before the client and its redirect
 * URI are known good, the error is shown to the user and never redirected (RFC 9700 §4.11.2: an open redirector
 * otherwise); after, it goes back to the client.
 */

/** A request that passed every check: what the consent page shows and the code carries. */
export interface AuthorizationRequest {
  clientId: string;
  redirectURI: string;
  /** The request named no redirect_uri (its client has one): the token request may leave it out too. */
  redirectURIOmitted: boolean;
  state?: string;
  /** The S256 code challenge. */
  challenge: string;
  scopes: string[];
  resources: string[];
  nonce?: string;
  responseMode: 'query' | 'form_post';
  /** OpenID `prompt` values (`none`, `login`, `consent`). */
  prompt: string[];
  /** OpenID `max_age` in seconds: an older login is done again. */
  maxAge?: number;
  /** OpenID `login_hint`: passed on to the login page. */
  loginHint?: string;
  /** OpenID `id_token_hint`, its signature not yet checked (authorize.ts). */
  idTokenHint?: string;
  /** The standard claims the `claims` parameter names, per place; absent when it names none. */
  claims?: ClaimsRequest;
}

/** The outcome of the checks. */
export type CheckedRequest =
  /** `params`: the request's parameters, an unsigned request object's merged over the query's. */
  | { ok: AuthorizationRequest; client: OAuthClient; params: URLSearchParams }
  /** Shown, not redirected: the client or its redirect URI is not known good. */
  | { shown: string; description: string }
  /** Sent back to the client's redirect URI. */
  | {
      redirected: string;
      description: string;
      to: { redirectURI: string; mode: 'query' | 'form_post' };
      state?: string;
    };

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** Parameters a request may carry once at most (RFC 6749 §3.1); `resource` may repeat (RFC 8707 §2). */
const SINGLE = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'nonce', 'prompt'];
/** OpenID's parameters, once at most too. */
const OPENID_SINGLE = ['max_age', 'login_hint', 'id_token_hint', 'claims', 'request', 'request_uri'];

/** Checks the query of an authorization request. */
export async function checkRequest(p: ServerParts, sent: URLSearchParams): Promise<CheckedRequest> {
  for (const name of [...SINGLE, ...OPENID_SINGLE, 'code_challenge_method', 'response_mode'])
    if (sent.getAll(name).length > 1) return { shown: 'invalid_request', description: `${name} is repeated` };
  // A broken request object cannot say where to answer: the query's client and redirect URI are checked for that.
  const object = mergedRequestObject(sent);
  const query = typeof object === 'string' ? sent : object;
  const clientId = query.get('client_id');
  if (!clientId) return { shown: 'invalid_request', description: 'client_id is missing' };
  const found = await p.clients.find(clientId);
  if (!found) return { shown: 'invalid_client', description: 'the client is unknown' };
  if ('error' in found) return { shown: found.error, description: found.description };
  const client = found;
  const asked = query.get('redirect_uri') ?? undefined;
  // Without redirect_uri, a client of one redirect URI means that one (RFC 6749 §3.1.2.3).
  const redirectURI = asked ?? (client.redirectURIs.length === 1 ? client.redirectURIs[0] : undefined);
  if (!redirectURI) return { shown: 'invalid_request', description: 'redirect_uri is missing' };
  if (!p.clients.redirectAllowed(client, redirectURI))
    return { shown: 'invalid_request', description: 'redirect_uri is not registered for this client' };
  const mode = query.get('response_mode') ?? 'query';
  const state = query.get('state') ?? undefined;
  const to = { redirectURI, mode: mode === 'form_post' ? ('form_post' as const) : ('query' as const) };
  const refuse = (error: string, description: string): CheckedRequest => ({
    redirected: error,
    description,
    to,
    state,
  });
  if (mode !== 'query' && mode !== 'form_post')
    return refuse('invalid_request', 'response_mode must be query or form_post');
  const type = query.get('response_type');
  if (type === null) return refuse('invalid_request', 'response_type is required');
  if (type !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
  if (typeof object === 'string') return refuse('invalid_request_object', object);
  // OpenID Connect Core §6: what the server does not take is refused as such, never silently ignored.
  if (query.has('request_uri')) return refuse('request_uri_not_supported', 'request_uri is not supported');
  if (!client.grantTypes.includes('authorization_code'))
    return refuse('unauthorized_client', 'the client may not use the authorization code grant');
  const challenge = query.get('code_challenge') ?? '';
  if (query.get('code_challenge_method') !== 'S256' || !CHALLENGE.test(challenge))
    return refuse('invalid_request', 'a code_challenge with code_challenge_method S256 is required (PKCE)');
  const resources = query.getAll('resource');
  const target = checkResources(p, client, resources);
  if (target) return refuse('invalid_target', target);
  const scopes = scopesOf(p, client, query.get('scope'), resources);
  if (typeof scopes === 'string') return refuse('invalid_scope', scopes);
  const openID = openIDOf(query);
  if (typeof openID === 'string') return refuse('invalid_request', openID);
  const ok = {
    clientId,
    redirectURI,
    redirectURIOmitted: asked === undefined,
    // Absent members are left out, not undefined: a request kept in a MongoDB store would come back with nulls.
    ...(state !== undefined && { state }),
    challenge,
    scopes,
    resources,
    responseMode: to.mode,
    ...openID,
  };
  return { ok, client, params: query };
}

/**
 * The query with an unsigned request object's parameters merged over it (OpenID Connect Core §6.1, read as the local
 * server reads it: request-object.ts); a string saying what is wrong with the object.
 */
function mergedRequestObject(query: URLSearchParams): URLSearchParams | string {
  const request = query.get('request');
  if (request === null) return query;
  const sent: Record<string, string> = { request };
  for (const k of ['client_id', 'response_type']) if (query.has(k)) sent[k] = query.get(k)!;
  const object = withRequestObject(sent);
  if (typeof object === 'string') return object;
  const merged = new URLSearchParams(query);
  merged.delete('request');
  for (const [k, v] of Object.entries(object)) merged.set(k, v);
  return merged;
}

type OpenIDParams = Pick<AuthorizationRequest, 'nonce' | 'prompt' | 'maxAge' | 'loginHint' | 'idTokenHint' | 'claims'>;

/** The request's OpenID parameters, read as the local server reads them; a string says what is wrong. */
function openIDOf(query: URLSearchParams): OpenIDParams | string {
  const at = (name: string) => query.get(name) ?? undefined;
  const problem = openIDProblem({ prompt: at('prompt'), max_age: at('max_age') });
  if (problem) return problem[1];
  const asked = parseClaimsRequest(at('claims'));
  if (!asked) return 'claims must be a JSON object of { userinfo?, id_token? } objects';
  // Only the standard claims are kept: those are all the server can give.
  const standard = (names: string[]) => names.filter((n) => STANDARD_CLAIMS.includes(n));
  const claims = { userinfo: standard(asked.userinfo), id_token: standard(asked.id_token) };
  const maxAge = at('max_age');
  return {
    prompt: (at('prompt') ?? '').split(' ').filter(Boolean),
    ...(at('nonce') !== undefined && { nonce: at('nonce') }),
    ...(maxAge !== undefined && { maxAge: Number(maxAge) }),
    ...(at('login_hint') !== undefined && { loginHint: at('login_hint')!.slice(0, 256) }),
    ...(at('id_token_hint') !== undefined && { idTokenHint: at('id_token_hint') }),
    ...(claims.userinfo.length + claims.id_token.length > 0 && { claims }),
  };
}

/** Why the resources asked for cannot be had, or undefined when they can. */
export function checkResources(p: ServerParts, client: OAuthClient, resources: string[]): string | undefined {
  for (const r of resources) {
    if (!p.config.resources.has(r)) return `resource ${r} is not one this server issues tokens for`;
    if (client.resources && !client.resources.includes(r)) return `the client may not ask for resource ${r}`;
  }
  return new Set(resources).size === resources.length ? undefined : 'a resource is repeated';
}

/**
 * The scopes granted for `scope` with `resources`: each an OpenID scope or one of the resources'; none asked means
 * every scope of the resources (that the client may have). A string says why they cannot be had.
 */
export function scopesOf(
  p: ServerParts,
  client: OAuthClient,
  scope: string | null,
  resources: string[],
): string[] | string {
  const offered = new Set(OPENID_SCOPES);
  for (const r of resources) for (const s of p.config.resources.get(r)?.scopes ?? []) offered.add(s);
  const allowed = (s: string) => offered.has(s) && (!client.scopes || client.scopes.includes(s));
  if (scope === null) return [...offered].filter((s) => !OPENID_SCOPES.includes(s) && allowed(s));
  const asked = [...new Set(scope.split(' ').filter(Boolean))];
  const bad = asked.find((s) => !allowed(s));
  if (bad === undefined) return asked;
  return offered.has(bad)
    ? `the client may not ask for scope ${bad}`
    : `scope ${bad} is not offered${resources.length ? ' for the resources asked' : ': ask for it with its resource'}`;
}
