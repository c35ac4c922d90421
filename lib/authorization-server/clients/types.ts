import type { Logger } from '../../logger.js';
import type { StateStore } from '../../state/types.js';
import type { Duration } from '../../util/duration.js';

/** The grant types a client may be given. */
export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';

/** One entry of `authorizationServer.clients`, as the application writes it. */
export interface ClientOptions {
  id: string;
  /** Makes the client confidential: required at the token endpoint (HTTP Basic or form fields). */
  secret?: string;
  /** Shown on the consent page. */
  name?: string;
  /**
   * Exact redirect URIs: https, http on a loopback host (any port then, RFC 8252 §7.3), or a private-use scheme
   * (`com.example.app:/cb`, RFC 8252 §7.1); http elsewhere only with `allowHttpRedirects`. May be empty only for a
   * client that has no `authorization_code` grant.
   */
  redirectURIs: string[];
  /**
   * Default `['authorization_code', 'refresh_token']`; `client_credentials` only when listed, and only with a
   * secret.
   */
  grantTypes?: GrantType[];
  /** The scopes it may ask for; default any configured scope. */
  scopes?: string[];
  /** The resources (RFC 8707) it may ask tokens for; default any configured resource. */
  resources?: string[];
  /** Skips the consent page (clients from the options only; never a metadata document's or a registered one). */
  trusted?: boolean;
}

/** The options of the registration endpoint's limits (`authorizationServer.registrationLimits`). */
export interface RegistrationLimitOptions {
  /** Registrations one client address may make per `window`. Default 10. */
  perAddress?: number;
  /** Default `1h`. */
  window?: Duration;
  /** Registered clients kept at most (the index is one state entry). Default 1000. */
  maxClients?: number;
  /** How long a registration lasts (its secret expires with it). Default `365d`. */
  lifetime?: Duration;
}

/** The members of the `authorizationServer` option that readClientOptions() reads (the rest are other parts'). */
export interface AuthorizationServerClientOptions {
  clients?: ClientOptions[];
  /**
   * Client ID Metadata Documents: an https client_id is fetched and used as the client's metadata. On by default;
   * `{ timeout }` sets the fetch's time limit (default `5s`).
   */
  clientMetadataDocuments?: boolean | { timeout?: Duration };
  /** Dynamic Client Registration (RFC 7591): off by default. */
  registration?: 'open' | { initialAccessToken: string };
  registrationLimits?: RegistrationLimitOptions;
  /** Metadata documents may be fetched from private, loopback and link-local addresses. Default false. */
  allowPrivate?: boolean;
  /** Plain http redirect URIs on any host, not only loopback ones (development). Default false. */
  allowHttpRedirects?: boolean;
}

/** A client as the endpoints see it, wherever it came from. Never holds a secret. */
export interface OAuthClient {
  id: string;
  name?: string;
  /** For a CIMD client: its document's host name, shown first on the consent page. */
  host?: string;
  redirectURIs: string[];
  /**
   * Default ['authorization_code', 'refresh_token'] (+ client_credentials only when listed, and only with a
   * secret).
   */
  grantTypes: string[];
  /** undefined = any configured scope. */
  scopes?: string[];
  /** undefined = any configured resource. */
  resources?: string[];
  /** Skips consent (options only; never for CIMD/DCR). */
  trusted: boolean;
  /** Has a secret. */
  confidential: boolean;
  source: 'options' | 'metadata-document' | 'registered';
}

/** Why a client cannot be used, as the endpoints answer it (`invalid_client`, `invalid_client_metadata`). */
export interface ClientError {
  error: string;
  description: string;
}

/** How dynamic registration is allowed: to anyone, or to callers bearing the initial access token. */
export type RegistrationMode = { open: true } | { open: false; initialAccessToken: string };

/** The registration endpoint's limits, read. */
export interface RegistrationLimits {
  perAddress: number;
  windowMs: number;
  maxClients: number;
  lifetimeMs: number;
}

/** The clients' options, checked (readClientOptions). */
export interface ClientConfig {
  /** The options' clients by id, each with its secret (if any) kept apart from the client. */
  clients: ReadonlyMap<string, { client: OAuthClient; secret?: string }>;
  /** Client ID Metadata Documents: false when off, else the fetch's time limit. */
  metadataDocuments: false | { timeoutMs: number };
  /** Dynamic Client Registration: false when off (the default). */
  registration: false | RegistrationMode;
  registrationLimits: RegistrationLimits;
  /** Metadata documents may be fetched from private, loopback and link-local addresses. */
  allowPrivate: boolean;
  /** Plain http redirect URIs on any host (development). */
  allowHttpRedirects: boolean;
}

/** What clientDirectory() works with. */
export interface ClientDirectoryDeps {
  state: StateStore;
  clock: () => number;
  logger: Logger;
  events?: { emit(type: 'client_registered', data: object): void };
  /**
   * Trust anchors for the metadata documents' https in place of the process's (tests only: NODE_EXTRA_CA_CERTS is
   * read once at process start, and is what an application uses).
   */
  ca?: string | string[];
}

/** Who the clients are: the options', the metadata documents', the registered ones. */
export interface ClientDirectory {
  /**
   * Options first; then an https URL id as a CIMD (if on); then a registered client. undefined when unknown;
   * a CIMD that cannot be used → { error: 'invalid_client' | 'invalid_client_metadata', description }.
   */
  find(clientId: string): Promise<OAuthClient | ClientError | undefined>;
  /**
   * Token endpoint client authentication: client_secret_basic, client_secret_post, or none for public clients
   * (client_id in the form). Constant-time secret compare.
   */
  authenticate(req: {
    authorization?: string;
    form: Record<string, string | undefined>;
  }): Promise<{ client: OAuthClient } | { error: 'invalid_client'; description: string }>;
  /**
   * RFC 7591: POST <authRoutePath>/oauth2/register. `body` parsed JSON; `address` the caller's IP; `bearer` the
   * Authorization bearer if any. Returns the HTTP status and JSON body to answer (201 with client_id,
   * client_id_issued_at, client_secret for confidential ones, and the metadata; 400 invalid_redirect_uri /
   * invalid_client_metadata; 401 for a bad initial access token; 403 when registration is off; 429 over the limit;
   * 503 when `registrationLimits.maxClients` are registered). `headers`: `Retry-After` with a 429,
   * `WWW-Authenticate` with a 401, for the endpoint to set.
   */
  register(
    body: unknown,
    caller: { address: string; bearer?: string },
  ): Promise<{ status: number; body: object; headers?: Record<string, string> }>;
  /** Options + registered (CIMD cache entries excluded). */
  list(): Promise<OAuthClient[]>;
  /** A registered client removed (options clients: TypeError). False when there was none. */
  revoke(clientId: string): Promise<boolean>;
  /** Exact string match (loopback: any port, RFC 8252 §7.3). */
  redirectAllowed(client: OAuthClient, redirectURI: string): boolean;
}
