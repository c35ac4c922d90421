import type { OAuthClient } from './clients/index.js';
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
}

/** The outcome of the checks. */
export type CheckedRequest =
  | { ok: AuthorizationRequest; client: OAuthClient }
  /** Shown, not redirected: the client or its redirect URI is not known good. */
  | { shown: string; description: string }
  /** Sent back to the client's redirect URI. */
  | {
      redirected: string;
      description: string;
      to: { redirectURI: string; mode: 'query' | 'form_post' };
      state?: string;
    };

/** The scopes of OpenID Connect and of refresh tokens: any client may ask for them, with or without a resource. */
export const OPENID_SCOPES = ['openid', 'profile', 'email', 'offline_access'];
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** Parameters a request may carry once at most (RFC 6749 §3.1); `resource` may repeat (RFC 8707 §2). */
const SINGLE = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'nonce', 'prompt'];

/** Checks the query of an authorization request. */
export async function checkRequest(p: ServerParts, query: URLSearchParams): Promise<CheckedRequest> {
  for (const name of [...SINGLE, 'code_challenge_method', 'response_mode'])
    if (query.getAll(name).length > 1) return { shown: 'invalid_request', description: `${name} is repeated` };
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
  if (query.get('response_type') !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
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
  const prompt = (query.get('prompt') ?? '').split(' ').filter(Boolean);
  if (prompt.includes('none') && prompt.length > 1)
    return refuse('invalid_request', 'prompt=none cannot be combined with other values');
  const nonce = query.get('nonce') ?? undefined;
  const ok = {
    clientId,
    redirectURI,
    redirectURIOmitted: asked === undefined,
    state,
    challenge,
    scopes,
    resources,
    nonce,
    responseMode: to.mode,
    prompt,
  };
  return { ok, client };
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
