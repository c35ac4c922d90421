/**
 * The clients a local server knows, as registered: checked once at start-up (a TypeError naming
 * `clients[i].<field>`) and copied, so a later change to the options changes nothing.
 */

/** The algorithms an id_token may be signed with: RS256 always, and the signing key's own. */
export type IdTokenAlg = 'RS256' | 'EdDSA' | 'ES256';

/** A client allowed to ask for users. */
export interface OAuth2ServerClient {
  id: string;
  /** Required at the token endpoint when set (HTTP Basic or form fields); public clients have none. */
  secret?: string;
  /** Exact redirect URIs; anything else is answered 400 and never redirected to. */
  redirectURIs: string[];
  /**
   * Whether this client must send an S256 `code_challenge` (default: the server's `requirePKCE`, itself true by
   * default). `false` suits a confidential client on a library without PKCE; a public client must send one anyway.
   */
  requirePKCE?: boolean;
  /** Issue refresh tokens to this client: rotated on every use, a reused one revokes its whole family. */
  refreshTokens?: boolean;
  /** How its id_tokens are signed (the Registration metadata `id_token_signed_response_alg`); default RS256. */
  idTokenSignedResponseAlg?: IdTokenAlg;
  /**
   * Where RP-initiated logout may send the browser back (`post_logout_redirect_uri`), matched exactly like
   * redirectURIs; an unregistered one is refused and never redirected to.
   */
  postLogoutRedirectURIs?: string[];
  /**
   * Its Back-Channel Logout endpoint: when a sign-in session in which it got an id_token ends, a logout token is
   * POSTed here (an absolute http(s) URL without fragment).
   */
  backchannelLogoutURI?: string;
}

const FIELDS = new Set([
  'id',
  'secret',
  'redirectURIs',
  'requirePKCE',
  'refreshTokens',
  'idTokenSignedResponseAlg',
  'postLogoutRedirectURIs',
  'backchannelLogoutURI',
]);
const ALGS: readonly IdTokenAlg[] = ['RS256', 'EdDSA', 'ES256'];

/** The registered clients by id. */
export function parseClients(list: unknown): Map<string, OAuth2ServerClient> {
  if (!Array.isArray(list)) throw new TypeError('clients must be an array of { id, secret?, redirectURIs }');
  const clients = new Map<string, OAuth2ServerClient>();
  for (const [i, c] of (list as OAuth2ServerClient[]).entries()) {
    const client = parseClient(c, `clients[${i}]`);
    if (clients.has(client.id)) throw new TypeError(`clients[${i}].id "${client.id}" is registered twice`);
    clients.set(client.id, client);
  }
  return clients;
}

function parseClient(c: OAuth2ServerClient, at: string): OAuth2ServerClient {
  if (!c || typeof c !== 'object') throw new TypeError(`${at} must be an object { id, secret?, redirectURIs }`);
  for (const key of Object.keys(c))
    if (!FIELDS.has(key)) throw new TypeError(`${at}: unknown field "${key}" (known: ${[...FIELDS].join(', ')})`);
  if (typeof c.id !== 'string' || !c.id) throw new TypeError(`${at}.id is required`);
  if (c.secret !== undefined && (typeof c.secret !== 'string' || !c.secret))
    throw new TypeError(`${at}.secret must be a non-empty string`);
  if (!Array.isArray(c.redirectURIs) || !c.redirectURIs.length)
    throw new TypeError(`${at}.redirectURIs must list at least one URI`);
  for (const uri of c.redirectURIs) redirectURI(uri, `${at}.redirectURIs`);
  if (c.postLogoutRedirectURIs !== undefined && !Array.isArray(c.postLogoutRedirectURIs))
    throw new TypeError(`${at}.postLogoutRedirectURIs must be an array of URIs`);
  for (const uri of c.postLogoutRedirectURIs ?? []) redirectURI(uri, `${at}.postLogoutRedirectURIs`);
  if (c.backchannelLogoutURI !== undefined) redirectURI(c.backchannelLogoutURI, `${at}.backchannelLogoutURI`);
  for (const flag of ['requirePKCE', 'refreshTokens'] as const)
    if (c[flag] !== undefined && typeof c[flag] !== 'boolean') throw new TypeError(`${at}.${flag} must be a boolean`);
  if (c.idTokenSignedResponseAlg !== undefined && !ALGS.includes(c.idTokenSignedResponseAlg))
    throw new TypeError(`${at}.idTokenSignedResponseAlg must be one of ${ALGS.join(', ')}`);
  return {
    id: c.id,
    secret: c.secret,
    redirectURIs: [...c.redirectURIs],
    requirePKCE: c.requirePKCE,
    refreshTokens: c.refreshTokens === true,
    idTokenSignedResponseAlg: c.idTokenSignedResponseAlg,
    postLogoutRedirectURIs: c.postLogoutRedirectURIs && [...c.postLogoutRedirectURIs],
    backchannelLogoutURI: c.backchannelLogoutURI,
  };
}

/** `uri` must be an absolute http(s) URL without fragment; the TypeError names `field` (`clients[0].redirectURIs`). */
function redirectURI(uri: unknown, field: string): void {
  let u: URL | undefined;
  try {
    u = new URL(uri as string);
  } catch {}
  if (typeof uri !== 'string' || !u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.hash)
    throw new TypeError(`${field}: ${JSON.stringify(uri)} is not an absolute http(s) URL without fragment`);
}
