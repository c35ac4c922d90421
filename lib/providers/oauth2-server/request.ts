import type { Context } from 'koa';
import { parseClaimsRequest, type ClaimsRequest } from './claims.js';
import type { OAuth2ServerClient } from './clients.js';
import { singleParams, text } from './http.js';
import type { LocalServer } from './options.js';
import { withRequestObject } from './request-object.js';
import { respond, type ResponseMode } from './respond.js';

/**
 * An authorization request, read and checked in the order RFC 6749 §4.1.2.1 sets: until the client
 * and its redirect URI are known good, a refusal is a page here and never a redirect (no open
 * redirector); after that, errors go back to the client, in the response mode it asked for.
 */

/** An authorization request whose client and redirect URI are known good. */
export interface AuthorizationRequest {
  client: OAuth2ServerClient;
  redirectURI: string;
  mode: ResponseMode;
  challenge?: string;
  scope?: string;
  nonce?: string;
  state?: string;
  /** `prompt`'s values (OpenID): `none`, `login`, `consent`, `select_account`. */
  prompt: string[];
  /** `max_age` in seconds (OpenID): an older sign-in must be done again. */
  maxAge?: number;
  /** The user name the client expects (`login_hint`): filled into the page. */
  loginHint?: string;
  /** `id_token_hint`, unchecked here. */
  idTokenHint?: string;
  claims: ClaimsRequest;
}

const MODES: readonly ResponseMode[] = ['query', 'form_post'];
const PROMPTS = ['none', 'login', 'consent', 'select_account'];

/** The request of `ctx`, checked; undefined once a refusal is answered. */
export function authorizationRequest(srv: LocalServer, ctx: Context): AuthorizationRequest | undefined {
  if (ctx.method !== 'GET' && ctx.method !== 'POST') return refuse(ctx, 405, 'GET or POST only');
  const query = singleParams(new URLSearchParams(ctx.querystring));
  if (!query) return refuse(ctx, 400, 'a parameter is repeated');
  const object = withRequestObject(query);
  // A broken request object cannot say where to answer: the query's client and redirect URI are checked for that.
  const q = typeof object === 'string' ? query : object;
  const client = srv.o.clients.get(q.client_id ?? '');
  if (!client) return refuse(ctx, 400, 'unknown client_id');
  const redirectURI = q.redirect_uri ?? '';
  if (!client.redirectURIs.includes(redirectURI))
    return refuse(ctx, 400, 'redirect_uri is not registered for this client');
  // An unknown response_mode cannot be honoured: the error goes back the way every client can read.
  const mode = MODES.find((m) => m === (q.response_mode ?? 'query'));
  const back = (error: string, description: string) => {
    respond(
      srv,
      ctx,
      { redirectURI, mode: mode ?? 'query' },
      { error, error_description: description, state: q.state },
    );
    return undefined;
  };
  if (typeof object === 'string') return back('invalid_request_object', object);
  const problem = problemOf(q, !!srv.o.signer);
  if (problem) return back(...problem);
  if (!mode) return back('invalid_request', 'response_mode must be query or form_post');
  // A public client has no secret to prove the code is its own: only PKCE binds the code to it.
  const pkceRequired = client.secret === undefined || (client.requirePKCE ?? srv.o.requirePKCE);
  if (!srv.grants.challengeAccepted(q.code_challenge, q.code_challenge_method, pkceRequired))
    return back('invalid_request', 'an S256 code_challenge is required');
  const claims = parseClaimsRequest(q.claims);
  if (!claims) return back('invalid_request', 'claims must be a JSON object of { userinfo?, id_token? } objects');
  return {
    client,
    redirectURI,
    mode,
    challenge: q.code_challenge,
    scope: q.scope,
    nonce: q.nonce,
    state: q.state,
    prompt: (q.prompt ?? '').split(' ').filter((p) => PROMPTS.includes(p)),
    maxAge: q.max_age === undefined ? undefined : Number(q.max_age),
    loginHint: q.login_hint?.slice(0, 256),
    idTokenHint: q.id_token_hint,
    claims,
  };
}

/** The first thing wrong with the request's parameters (besides PKCE and claims), as an OAuth2 error. */
function problemOf(q: Record<string, string>, openID: boolean): [string, string] | undefined {
  if (q.response_type === undefined) return ['invalid_request', 'response_type is required'];
  if (q.response_type !== 'code') return ['unsupported_response_type', 'only response_type=code is supported'];
  // Request objects by reference are not supported (request-object.ts): refused as such, never silently ignored.
  if (q.request_uri !== undefined) return ['request_uri_not_supported', 'request_uri is not supported'];
  return openID ? openIDProblem(q) : undefined;
}

/**
 * The first thing wrong with an authorization request's OpenID parameters (`prompt`, `max_age`) as an OAuth2 error:
 * both OpenID providers' rule, the local server's and the in-app authorization server's.
 */
export function openIDProblem(q: { prompt?: string; max_age?: string }): [string, string] | undefined {
  const prompt = (q.prompt ?? '').split(' ').filter(Boolean);
  if (prompt.includes('none') && prompt.length > 1)
    return ['invalid_request', 'prompt=none cannot be combined with other values'];
  if (q.max_age !== undefined && !/^\d{1,10}$/.test(q.max_age))
    return ['invalid_request', 'max_age must be a non-negative integer'];
  return undefined;
}

function refuse(ctx: Context, status: number, message: string): undefined {
  text(ctx, status, message);
  return undefined;
}
