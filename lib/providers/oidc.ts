import type { JSONWebKeySet } from 'jose';
import { keyCache, verifyIdToken, type KeyCache } from './oauth2/id-token.js';
import type { Provider, ProviderDeps, ProviderDepsWith, ProviderModule, ProviderOptions } from './core/contract.js';
import { withBackChannel } from './oauth2/backchannel-logout.js';
import { SESSION_ENDER } from './oauth2/session-ender.js';
import { UpstreamSessions } from './oauth2/upstream-sessions.js';
import { finishUser, rawFromMapped, text, type MappedUser, type RawUser } from './oauth2/mapping.js';
import {
  commonOptions,
  createFlowProvider,
  endpointURL,
  providerError,
  type CommonOAuth2Options,
  type Endpoints,
  flowIO,
  type FlowIO,
  type FlowSpec,
  type Identified,
  type OAuthToken,
} from './oauth2/flow.js';
import { optionNames } from '../util/options.js';
import { COMMON_OAUTH2_OPTIONS } from './oauth2/options.js';

/**
 * `kind: 'oidc'`: any OpenID Connect provider (Keycloak, Authentik, Auth0, Okta, Entra, Google…)
 * from its issuer alone. Endpoints come from discovery; the id_token is verified against the
 * issuer's JWKS (signature, iss, aud, exp, nonce) before anything from it is believed.
 */

/** Options of a `kind: 'oidc'` provider. */
export interface OIDCProviderOptions extends CommonOAuth2Options {
  kind: 'oidc';
  /** Provider name; user ids become `<name>_<sha1(sub)>`. */
  name: string;
  /** Issuer URL; `<issuer>/.well-known/openid-configuration` must describe it. */
  issuer: string;
  /** Read the userinfo endpoint too when the issuer has one (default true; id_token claims are often minimal). */
  userInfo?: boolean;
  /**
   * Replaces the standard claim mapping (sub, name/preferred_username, picture, email); `claims` may be declared as the
   * shape expected.
   */
  mapUser?(claims: Record<string, unknown>, token: OAuthToken): MappedUser | Promise<MappedUser>;
  /**
   * Serve `POST <authRoutePath>/<name>/backchannel-logout` (default true): the issuer's logout tokens end the
   * sessions that came from the provider's session or user they name (OpenID Connect Back-Channel Logout 1.0).
   */
  backchannelLogout?: boolean;
}

const DISCOVERY = '/.well-known/openid-configuration';
/** Clock skew allowed when checking the id_token's times. */
const CLOCK_TOLERANCE_S = 60;

/** An OIDC entry's checked options. */
interface OIDCConfig {
  name: string;
  /** The issuer URL without trailing slashes. */
  issuer: string;
  userInfo: boolean;
  mapUser: OIDCProviderOptions['mapUser'];
  common: ReturnType<typeof commonOptions>;
  /** authMethod was given, so what the issuer supports does not choose it. */
  explicitAuthMethod: boolean;
  backchannelLogout: boolean;
}

/** What discovery found out about the issuer. */
interface Discovered {
  issuer: string;
  endpoints: Endpoints;
  jwksURI: string;
  algorithms: string[];
  authMethod?: 'header' | 'body';
}

/**
 * The issuer as the provider learns it: its discovery document (read once it is needed), its key set, and the
 * sessions that came from its sessions (undefined without back-channel logout).
 */
interface Issuer {
  discover(): Promise<Discovered>;
  keys: KeyCache;
  upstream: UpstreamSessions | undefined;
}

export const oidcProvider: ProviderModule<ProviderOptions, 'featureService'> = {
  kind: 'oidc',
  // Back-channel logout ends sessions through the session list, as `auth.sessions.revoke` does.
  needs: ['featureService'],
  options: optionNames<OIDCProviderOptions>({
    ...COMMON_OAUTH2_OPTIONS,
    kind: true,
    name: true,
    issuer: true,
    userInfo: true,
    mapUser: true,
    backchannelLogout: true,
  }),
  create(opts, deps: ProviderDepsWith<'featureService'>): Provider {
    const config = parseOIDCOptions(opts);
    // Discovery and JWKS go through the same limits and error mapping as the flow's own calls.
    const io = flowIO({ ...config.common, name: config.name, tracing: deps.tracing });
    const discover = cachedDiscovery(config, io);
    const keys = keyCache(async () => {
      const set = await io.getJSON((await discover()).jwksURI, 'JWKS');
      if (!Array.isArray(set.keys)) throw providerError(config.name, 'bad_provider_response', 'JWKS has no keys');
      return set as unknown as JSONWebKeySet;
    }, deps.clock);
    const upstream = config.backchannelLogout
      ? new UpstreamSessions(config.name, deps.stateStore, deps.clock)
      : undefined;
    const provider = createFlowProvider(oidcSpec(config, deps, { discover, keys, upstream }), deps);
    if (!upstream) return provider;
    return withBackChannel(provider, {
      ...{ name: config.name, cid: config.common.cid, keys, sessions: upstream, stateStore: deps.stateStore },
      ...{ clock: deps.clock, clockToleranceS: CLOCK_TOLERANCE_S, logger: deps.logger },
      issuer: discover,
      // The session list is always configured: without it a logout token could end nothing.
      sessionList: () => deps.featureService(SESSION_ENDER) ?? missing(SESSION_ENDER.name),
    });
  },
};

/** Checks an OIDC entry's options; TypeErrors name the option. */
function parseOIDCOptions(opts: Record<string, unknown>): OIDCConfig {
  if (typeof opts.name !== 'string' || !opts.name) throw new TypeError('name is required');
  const issuer = endpointURL(opts.issuer, 'issuer').replace(/\/+$/, '');
  if (opts.userInfo !== undefined && typeof opts.userInfo !== 'boolean')
    throw new TypeError('userInfo must be a boolean');
  if (opts.mapUser !== undefined && typeof opts.mapUser !== 'function')
    throw new TypeError('mapUser must be a function');
  if (opts.backchannelLogout !== undefined && typeof opts.backchannelLogout !== 'boolean')
    throw new TypeError('backchannelLogout must be a boolean');
  return {
    name: opts.name,
    issuer,
    userInfo: opts.userInfo !== false,
    mapUser: opts.mapUser as OIDCProviderOptions['mapUser'],
    common: commonOptions(opts, { scopes: ['openid', 'profile'] }),
    explicitAuthMethod: opts.authMethod !== undefined,
    backchannelLogout: opts.backchannelLogout !== false,
  };
}

/**
 * Discovery at the first login, not at start-up, so an issuer that is briefly down does not stop the
 * application; a failed discovery is retried by the next login.
 */
function cachedDiscovery(config: OIDCConfig, io: FlowIO): () => Promise<Discovered> {
  let discovered: Promise<Discovered> | undefined;
  return () => {
    if (discovered) return discovered;
    discovered = io.getJSON(config.issuer + DISCOVERY, 'discovery document').then((doc) => parseDiscovery(config, doc));
    discovered.catch(() => {
      discovered = undefined;
    });
    return discovered;
  };
}

/**
 * The issuer's endpoints, key set URL, signing algorithms and token-endpoint authentication from its discovery
 * document.
 */
function parseDiscovery({ name, issuer }: OIDCConfig, doc: Record<string, unknown>): Discovered {
  const docIssuer = typeof doc.issuer === 'string' ? doc.issuer : '';
  if (docIssuer.replace(/\/+$/, '') !== issuer)
    throw providerError(
      name,
      'bad_provider_response',
      `discovery names another issuer (${JSON.stringify(docIssuer.slice(0, 200))})`,
    );
  let endpoints: Endpoints;
  let jwksURI: string;
  try {
    endpoints = {
      authURL: endpointURL(doc.authorization_endpoint, 'authorization_endpoint'),
      tokenURL: endpointURL(doc.token_endpoint, 'token_endpoint'),
      infoURL:
        doc.userinfo_endpoint === undefined ? undefined : endpointURL(doc.userinfo_endpoint, 'userinfo_endpoint'),
    };
    jwksURI = endpointURL(doc.jwks_uri, 'jwks_uri');
  } catch (err) {
    throw providerError(name, 'bad_provider_response', `discovery document: ${(err as Error).message}`, err);
  }
  const advertised = Array.isArray(doc.id_token_signing_alg_values_supported)
    ? doc.id_token_signing_alg_values_supported
    : ['RS256'];
  // Only asymmetric algorithms: 'none' is never acceptable, and HS* would make the client secret a signing key.
  const algorithms = advertised.filter(
    (a): a is string => typeof a === 'string' && /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/.test(a),
  );
  if (!algorithms.length)
    throw providerError(name, 'bad_provider_response', 'issuer offers no usable id_token signing algorithm');
  const methods = Array.isArray(doc.token_endpoint_auth_methods_supported)
    ? doc.token_endpoint_auth_methods_supported
    : undefined;
  const authMethod =
    methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post') ? 'body' : undefined;
  return { issuer: docIssuer, endpoints, jwksURI, algorithms, authMethod };
}

/**
 * The flow of an OIDC provider: endpoints and token authentication from discovery, the user from the verified id_token.
 */
function oidcSpec(config: OIDCConfig, deps: ProviderDeps, issuer: Issuer): FlowSpec {
  let issuerSeen: string | undefined;
  const spec: FlowSpec = {
    ...config.common,
    name: config.name,
    kind: 'oidc',
    nonce: true,
    async endpoints() {
      const d = await issuer.discover();
      issuerSeen = d.issuer;
      if (!config.explicitAuthMethod && d.authMethod) spec.authMethod = d.authMethod;
      return d.endpoints;
    },
    issuer: () => issuerSeen,
    identify: (token, hs, io) => identify(config, deps, issuer, token, hs.nonce, io),
  };
  return spec;
}

/**
 * The user from the verified id_token's claims, with the userinfo endpoint's when the issuer has one and it is wanted.
 */
async function identify(
  { name, common, userInfo, mapUser }: OIDCConfig,
  deps: ProviderDeps,
  issuer: Issuer,
  token: OAuthToken,
  nonce: string | undefined,
  io: FlowIO,
): Promise<Identified> {
  if (typeof token.id_token !== 'string' || !token.id_token)
    throw providerError(name, 'bad_provider_response', 'token response carries no id_token');
  const d = await issuer.discover();
  const rules = {
    issuer: d.issuer,
    audience: common.cid,
    algorithms: d.algorithms,
    nonce,
    clock: deps.clock,
    clockToleranceS: CLOCK_TOLERANCE_S,
  };
  const idClaims = await verifyIdToken(name, token.id_token, issuer.keys, rules);
  let claims: Record<string, unknown> = { ...idClaims };
  const infoURL = (await issuer.discover()).endpoints.infoURL;
  if (infoURL && userInfo) {
    const info = await io.userInfo(infoURL, token);
    // OIDC Core §5.3.4: userinfo about anyone else must not be used.
    if (info.sub !== idClaims.sub) throw providerError(name, 'bad_user_info', 'userinfo sub differs from the id_token');
    claims = { ...info, ...idClaims };
  }
  const raw: RawUser = mapUser ? toRaw(await mapUser(claims, token)) : standardClaims(claims);
  const user = finishUser(name, raw, claims, common.userAttributes, { userId: deps.userId });
  // Verified means the boolean true for the very address the user carries (a mapUser may have put another there).
  const emailVerified = claims.email_verified === true && user.email !== undefined && user.email === claims.email;
  // Our session's id is chosen now, kept with the provider's session: a back-channel logout finds it by that.
  const sid = issuer.upstream && (await issuer.upstream.opened({ sub: idClaims.sub!, sid: idClaims.sid }));
  return { user, emailVerified, ...(sid ? { claims: { sid } } : {}) };
}

/** The standard claims: sub, a display name, picture, and the email when not marked unverified. */
function standardClaims(c: Record<string, unknown>): RawUser {
  const given = [text(c, 'given_name'), text(c, 'family_name')].filter(Boolean).join(' ');
  return {
    id: text(c, 'sub'),
    name: text(c, 'name') || text(c, 'preferred_username') || text(c, 'nickname') || given,
    picture: text(c, 'picture'),
    email: c.email_verified === false ? undefined : text(c, 'email') || undefined,
  };
}

/** A custom mapper's user; one that returned nothing has no id, which finishUser refuses. */
function toRaw(m: MappedUser): RawUser {
  if (!m || typeof m !== 'object') return { id: '' };
  return rawFromMapped(m);
}

/** A service the kind needs that no configured feature offers: the instance is broken, not the request. */
function missing(what: string): never {
  throw new Error(`oidc: ${what} is not configured`);
}
