import type { FeatureOpenAPI } from '../features/contract.js';
import { ref } from '../openapi/components.js';
import { empty, json, op, PUBLIC, redirect, SESSION, STRING, type PathItem, type Text } from '../openapi/operation.js';

/**
 * The authorization server's routes under authRoutePath (routes.ts answers them). The OAuth endpoints answer errors
 * as RFC 6749 §5.2 says (`OAuthError`), not as authkoa's other routes do: OAuth clients read them.
 */

const TEXT = {
  authorize: [
    'An OAuth 2.1 authorization request',
    'PKCE (S256) for every client, `resource` (RFC 8707) for the API the token is for. Without a full login the ' +
      'browser is sent to the login page, `from` this request; then the consent page (HTML), unless the user ' +
      'allowed this client these scopes before or the client is trusted; then a redirect to the client with `code`, ' +
      '`state` and `iss` (RFC 9207). An unknown client or redirect URI is answered here (400), never redirected. ' +
      'OpenID: `prompt`, `max_age`, `login_hint`, `id_token_hint`, `claims`, `response_mode=form_post`.',
  ],
  authorizePost: [
    'An authorization request sent as a form',
    'OpenID Connect Core §3.1.2.1: a 303 to the same request as a GET, every parameter kept.',
  ],
  consent: ['The consent form', "The user's Allow or Deny of the page's request: a redirect to the client."],
  token: [
    'The token endpoint',
    'Grants `authorization_code` (with `code_verifier`), `refresh_token` (rotated at each use) and ' +
      '`client_credentials`. Access tokens are JWTs (RFC 9068) for the resource asked; a user’s grant with ' +
      '`openid` comes with an `id_token`.',
  ],
  revoke: ['Revokes a token (RFC 7009)', "A client's refresh or access token, and its grant with it. 200 always."],
  userinfo: [
    'The user’s claims (OpenID Connect)',
    'For an access token of this server issued with `openid` and no `resource`, in the Authorization header or ' +
      '(POST) the form body: `sub` and the claims its scopes and `claims` parameter ask for. 401 for a token that ' +
      'is not a live one of this server, 403 `insufficient_scope` without `openid`.',
  ],
  register: ['Dynamic client registration (RFC 7591)', 'When `registration` is on: the client metadata checked.'],
  login: ['The login page', 'The providers that log in by a redirect, each coming back to the request (`from`).'],
  grants: [
    'The user’s connected apps',
    'The clients holding a grant of theirs: scopes, resources, first and last use.',
  ],
  revokeGrant: ['Disconnects an app', 'Revokes every token of the client for the user; resource servers refuse them.'],
  preflight: ['CORS preflight', 'Any origin, no credentials.'],
} satisfies Record<string, Text>;

const FORM = 'application/x-www-form-urlencoded';
const HTML = { description: 'HTML', content: { 'text/html': { schema: STRING } } };
const form = (properties: Record<string, unknown>, required: string[]) => ({
  required: true,
  content: { [FORM]: { schema: { type: 'object', required, properties } } },
});

/** The OAuth endpoints' own error answers. */
const oauthErrors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, json(ref('OAuthError'), 'an OAuth error (RFC 6749 §5.2)')]));

const TAG = 'oauth2';
const query = (name: string, required = false) => ({ name, in: 'query', required, schema: STRING });
const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge']
  .map((n) => query(n, n === 'client_id'))
  .concat(['code_challenge_method', 'resource', 'nonce', 'prompt', 'response_mode'].map((n) => query(n)))
  .concat(['max_age', 'login_hint', 'id_token_hint', 'claims'].map((n) => query(n)));

export function serverOpenAPI(): FeatureOpenAPI {
  const paths = { ...userPaths(), ...clientPaths() };
  return { paths, schemas: SCHEMAS, tags: { oauth2: 'The app as an OAuth 2.1 authorization server' } };
}

/** The routes the user's browser reaches: the authorization request, consent, the login page, connected apps. */
function userPaths(): Record<string, PathItem> {
  const tag = TAG;
  const authorizeParams = AUTHORIZE_PARAMS;
  return {
    '/oauth2/authorize': {
      post: op(
        TEXT.authorizePost,
        tag,
        PUBLIC,
        { 303: redirect, ...oauthErrors(400) },
        { requestBody: form({ client_id: STRING }, ['client_id']) },
      ),
      get: op(
        TEXT.authorize,
        tag,
        PUBLIC,
        { 200: HTML, 302: redirect, 400: json(ref('OAuthError'), 'refused') },
        {
          parameters: authorizeParams,
        },
      ),
    },
    '/oauth2/consent': {
      post: op(
        TEXT.consent,
        tag,
        SESSION,
        { 200: HTML, 302: redirect, 400: HTML },
        {
          requestBody: form({ request: STRING, token: STRING, decision: { enum: ['allow', 'deny'] } }, ['request']),
        },
      ),
    },
    '/oauth2/login': {
      get: op(TEXT.login, tag, PUBLIC, { 200: HTML }, { parameters: [query('from'), query('login_hint')] }),
    },
    '/oauth2/grants': {
      get: op(TEXT.grants, tag, SESSION, { 200: json({ type: 'array', items: ref('ConnectedApp') }, 'newest first') }),
    },
    '/oauth2/grants/{clientId}': {
      delete: op(
        TEXT.revokeGrant,
        tag,
        SESSION,
        { 204: empty('revoked') },
        {
          parameters: [{ name: 'clientId', in: 'path', required: true, schema: STRING }],
        },
      ),
    },
  };
}

/** The routes other sites' code calls with credentials of its own (CORS, no cookies). */
function clientPaths(): Record<string, PathItem> {
  const tag = TAG;
  const userinfoAnswers = {
    200: json(ref('UserInfo'), 'the user’s claims'),
    ...oauthErrors(400, 401, 403),
  };
  const clientEndpoint = (text: Text, body: ReturnType<typeof form>, ok: Record<string, unknown>): PathItem => ({
    post: op(text, tag, PUBLIC, { ...ok, ...oauthErrors(400, 401) }, { requestBody: body }),
    options: op(TEXT.preflight, tag, PUBLIC, { 204: empty('allowed') }),
  });
  return {
    '/oauth2/token': clientEndpoint(
      TEXT.token,
      form({ grant_type: STRING, code: STRING, code_verifier: STRING, refresh_token: STRING, resource: STRING }, [
        'grant_type',
      ]),
      { 200: json(ref('OAuthTokens'), 'the tokens') },
    ),
    '/oauth2/revoke': clientEndpoint(TEXT.revoke, form({ token: STRING, token_type_hint: STRING }, ['token']), {
      200: empty('revoked, or nothing to revoke'),
    }),
    '/oauth2/userinfo': {
      get: op(TEXT.userinfo, tag, PUBLIC, userinfoAnswers),
      post: op(TEXT.userinfo, tag, PUBLIC, userinfoAnswers, {
        requestBody: {
          required: false,
          content: { [FORM]: { schema: { type: 'object', properties: { access_token: STRING } } } },
        },
      }),
      options: op(TEXT.preflight, tag, PUBLIC, { 204: empty('allowed') }),
    },
    '/oauth2/register': {
      post: op(
        TEXT.register,
        tag,
        PUBLIC,
        { 201: json({ type: 'object' }, 'registered'), ...oauthErrors(400, 401, 403, 429, 503) },
        { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } } },
      ),
      options: op(TEXT.preflight, tag, PUBLIC, { 204: empty('allowed') }),
    },
  };
}

const SCHEMAS = {
  OAuthError: {
    type: 'object',
    required: ['error'],
    properties: { error: STRING, error_description: STRING },
  },
  OAuthTokens: {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in', 'scope'],
    properties: {
      access_token: { ...STRING, description: 'a JWT, `typ` at+jwt (RFC 9068)' },
      token_type: { const: 'Bearer' },
      expires_in: { type: 'integer' },
      scope: STRING,
      refresh_token: STRING,
      id_token: { ...STRING, description: 'with `openid`: an id_token (OpenID Connect Core §2)' },
    },
  },
  UserInfo: {
    type: 'object',
    required: ['sub'],
    properties: { sub: STRING },
    additionalProperties: true,
  },
  ConnectedApp: {
    type: 'object',
    required: ['clientId', 'clientName', 'scopes', 'resources', 'firstUsed', 'lastUsed'],
    properties: {
      clientId: STRING,
      clientName: STRING,
      scopes: { type: 'array', items: STRING },
      resources: { type: 'array', items: STRING },
      firstUsed: { ...STRING, format: 'date-time' },
      lastUsed: { ...STRING, format: 'date-time' },
    },
  },
};
