import type { JSONWebKeySet, JWTPayload } from 'jose';
import { keyCache, verifyIdToken } from './oauth2/id-token.js';
import type { Provider, ProviderDeps, ProviderModule } from './core/contract.js';
import type { MappedUser } from './oauth2.js';
import { finishUser, text, type RawUser } from './oauth2/mapping.js';
import { commonOptions, createFlowProvider, endpointURL, providerError, type CommonOAuth2Options, type Endpoints, flowIO, type FlowIO, type FlowSpec, type OAuthToken } from './oauth2/flow.js';
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
  /** Replaces the standard claim mapping (sub, name/preferred_username, picture, email). */
  mapUser?: (claims: Record<string, unknown>, token: OAuthToken) => MappedUser | Promise<MappedUser>;
}

const DISCOVERY = '/.well-known/openid-configuration';
/** An unknown kid refetches the key set (key rotation), but not more often than this. */
const CLOCK_TOLERANCE_S = 60;

interface Discovered {
  issuer: string;
  endpoints: Endpoints;
  jwksURI: string;
  algorithms: string[];
  authMethod?: 'header' | 'body';
}

export const oidcProvider: ProviderModule = {
  kind: 'oidc',
  options: optionNames<OIDCProviderOptions>({ ...COMMON_OAUTH2_OPTIONS, kind: true, name: true, issuer: true, userInfo: true, mapUser: true }),
  create(opts, deps: ProviderDeps): Provider {
    if (typeof opts.name !== 'string' || !opts.name) throw new TypeError('name is required');
    const name: string = opts.name;
    const issuer = endpointURL(opts.issuer, 'issuer').replace(/\/+$/, '');
    if (opts.userInfo !== undefined && typeof opts.userInfo !== 'boolean') throw new TypeError('userInfo must be a boolean');
    if (opts.mapUser !== undefined && typeof opts.mapUser !== 'function') throw new TypeError('mapUser must be a function');
    const mapUser = opts.mapUser as OIDCProviderOptions['mapUser'];
    const common = commonOptions(opts, { scopes: ['openid', 'profile'] });
    const explicitAuthMethod = opts.authMethod !== undefined;
    let discovered: Promise<Discovered> | undefined;
    let io!: FlowIO;
    const clock = deps.clock;

    // Discovery happens at the first login, not at start-up, so an issuer that is briefly down does
    // not stop the application; a failed discovery is retried by the next login.
    function discover(): Promise<Discovered> {
      discovered ??= (async () => {
        const doc = await io.getJSON(issuer + DISCOVERY, 'discovery document');
        const docIssuer = typeof doc.issuer === 'string' ? doc.issuer : '';
        if (docIssuer.replace(/\/+$/, '') !== issuer) throw providerError(name, 502, 'bad_provider_response', `discovery names another issuer (${JSON.stringify(docIssuer.slice(0, 200))})`);
        let endpoints: Endpoints;
        let jwksURI: string;
        try {
          endpoints = {
            authURL: endpointURL(doc.authorization_endpoint, 'authorization_endpoint'),
            tokenURL: endpointURL(doc.token_endpoint, 'token_endpoint'),
            infoURL: doc.userinfo_endpoint === undefined ? undefined : endpointURL(doc.userinfo_endpoint, 'userinfo_endpoint'),
          };
          jwksURI = endpointURL(doc.jwks_uri, 'jwks_uri');
        } catch (err) {
          throw providerError(name, 502, 'bad_provider_response', `discovery document: ${(err as Error).message}`, err);
        }
        const advertised = Array.isArray(doc.id_token_signing_alg_values_supported) ? doc.id_token_signing_alg_values_supported : ['RS256'];
        // Only asymmetric algorithms: 'none' is never acceptable, and HS* would make the client secret a signing key.
        const algorithms = advertised.filter((a): a is string => typeof a === 'string' && /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/.test(a));
        if (!algorithms.length) throw providerError(name, 502, 'bad_provider_response', 'issuer offers no usable id_token signing algorithm');
        const methods = Array.isArray(doc.token_endpoint_auth_methods_supported) ? doc.token_endpoint_auth_methods_supported : undefined;
        const authMethod = methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post') ? 'body' : undefined;
        return { issuer: docIssuer, endpoints, jwksURI, algorithms, authMethod };
      })();
      discovered.catch(() => {
        discovered = undefined;
      });
      return discovered;
    }

    const keys = keyCache(async () => {
      const set = await io.getJSON((await discover()).jwksURI, 'JWKS');
      if (!Array.isArray(set.keys)) throw providerError(name, 502, 'bad_provider_response', 'JWKS has no keys');
      return set as unknown as JSONWebKeySet;
    }, clock);
    let issuerSeen: string | undefined;

    async function checkIdToken(idToken: string, nonce: string | undefined): Promise<JWTPayload> {
      const d = await discover();
      return verifyIdToken(name, idToken, keys, { issuer: d.issuer, audience: common.cid, algorithms: d.algorithms, nonce, clock, clockToleranceS: CLOCK_TOLERANCE_S });
    }

    const spec: FlowSpec = {
      ...common,
      name,
      kind: 'oidc',
      nonce: true,
      async endpoints() {
        const d = await discover();
        issuerSeen = d.issuer;
        if (!explicitAuthMethod && d.authMethod) spec.authMethod = d.authMethod;
        return d.endpoints;
      },
      issuer: () => issuerSeen,
      async identify(token, hs, flowIO) {
        if (typeof token.id_token !== 'string' || !token.id_token) throw providerError(name, 502, 'bad_provider_response', 'token response carries no id_token');
        const idClaims = await checkIdToken(token.id_token, hs.nonce);
        let claims: Record<string, unknown> = { ...idClaims };
        const infoURL = (await discover()).endpoints.infoURL;
        if (infoURL && opts.userInfo !== false) {
          const info = await flowIO.userInfo(infoURL, token);
          // OIDC Core §5.3.4: userinfo about anyone else must not be used.
          if (info.sub !== idClaims.sub) throw providerError(name, 502, 'bad_user_info', 'userinfo sub differs from the id_token');
          claims = { ...info, ...idClaims };
        }
        const raw: RawUser = mapUser ? toRaw(await mapUser(claims, token)) : standardClaims(claims);
        return { user: finishUser(name, raw, claims, common.userAttributes, { userId: deps.userId }) };
      },
    };
    const provider = createFlowProvider(spec, deps);
    // Discovery and JWKS go through the same limits and error mapping as the flow's own calls.
    io = flowIO(spec);
    return provider;
  },
};

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

function toRaw(m: MappedUser): RawUser {
  if (!m || typeof m !== 'object') return { id: '' };
  return {
    id: typeof m.id === 'number' ? String(m.id) : typeof m.id === 'string' ? m.id : '',
    name: typeof m.name === 'string' ? m.name : undefined,
    picture: typeof m.picture === 'string' ? m.picture : undefined,
    email: typeof m.email === 'string' ? m.email : undefined,
    attrs: m.attrs,
  };
}

