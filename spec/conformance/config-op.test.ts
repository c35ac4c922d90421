import test, { type ExecutionContext } from 'ava';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { manualClock, startApp } from '../helpers/http.js';
import { checkKeySet } from './checks.js';
import { authkoaProvider, CLIENTS, RSA_KEY } from './providers.js';
import { startOAuth2Server } from '../../lib/providers/oauth2-server/local.js';
import { pemKey } from '../server/openid-fixtures.js';

/**
 * The Config OP certification plan: its one module, oidcc-discovery-endpoint-verification, whose
 * conditions are the old OP-Discovery-* checks. The suite fetches over https; here the server's public
 * URL is https (as behind a TLS-terminating proxy) and the document is read over the plain HTTP it
 * listens on, so every https condition is checked on what the provider publishes.
 */

/** Every member OpenID Connect Discovery 1.0 and RFC 8414 (with RFC 9207) define: anything else is a warning. */
const KNOWN_METADATA = new Set([
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'userinfo_endpoint',
  'jwks_uri',
  'registration_endpoint',
  'scopes_supported',
  'response_types_supported',
  'response_modes_supported',
  'grant_types_supported',
  'acr_values_supported',
  'subject_types_supported',
  'id_token_signing_alg_values_supported',
  'id_token_encryption_alg_values_supported',
  'id_token_encryption_enc_values_supported',
  'userinfo_signing_alg_values_supported',
  'userinfo_encryption_alg_values_supported',
  'userinfo_encryption_enc_values_supported',
  'request_object_signing_alg_values_supported',
  'request_object_encryption_alg_values_supported',
  'request_object_encryption_enc_values_supported',
  'token_endpoint_auth_methods_supported',
  'token_endpoint_auth_signing_alg_values_supported',
  'display_values_supported',
  'claim_types_supported',
  'claims_supported',
  'service_documentation',
  'claims_locales_supported',
  'ui_locales_supported',
  'claims_parameter_supported',
  'request_parameter_supported',
  'request_uri_parameter_supported',
  'require_request_uri_registration',
  'op_policy_uri',
  'op_tos_uri',
  'revocation_endpoint',
  'introspection_endpoint',
  'code_challenge_methods_supported',
  'authorization_response_iss_parameter_supported',
  'end_session_endpoint',
  'backchannel_logout_supported',
  'backchannel_logout_session_supported',
]);

const STRING_ARRAYS = [
  'scopes_supported',
  'response_types_supported',
  'response_modes_supported',
  'grant_types_supported',
  'subject_types_supported',
  'id_token_signing_alg_values_supported',
  'request_object_signing_alg_values_supported',
  'token_endpoint_auth_methods_supported',
  'display_values_supported',
  'claims_supported',
  'code_challenge_methods_supported',
];

test('oidcc-discovery-endpoint-verification passes: every condition of the Config OP plan', async (t) => {
  const server = await startOAuth2Server({
    url: 'https://127.0.0.1:0',
    checker: () => false,
    clients: [{ id: 'c', secret: 's', redirectURIs: ['https://rp.example/cb'] }],
    signing: { alg: 'EdDSA', key: pemKey() },
  });
  t.teardown(() => server.close());
  const discoveryURL = `${server.url}/.well-known/openid-configuration`;
  const meta = await checkDocument(t, discoveryURL, discoveryURL.replace('https:', 'http:'));
  t.true((meta.id_token_signing_alg_values_supported as string[]).includes('RS256'), 'RS256 beside the EdDSA key');
  t.is(meta.request_parameter_supported, true);
});

/** Members of the in-app server's document beyond the two specifications: warnings in the suite, not failures. */
const WARNED = new Set([
  // RFC 8414 §2 defines it (the list above keeps to what the local server publishes).
  'revocation_endpoint_auth_methods_supported',
  // OAuth Client ID Metadata Documents (an Internet-Draft the MCP authorization specification requires).
  'client_id_metadata_document_supported',
]);

test('oidcc-discovery-endpoint-verification, the in-app authorization server: the same conditions, RS256 when signing is RSA', async (t) => {
  const app = await startApp({
    secret: 'conformance-app-secret-0123456789abcdef',
    // Public at https (behind a TLS-terminating proxy); read over the plain HTTP the test app listens on.
    url: 'https://app.example',
    signing: { alg: 'RS256', key: RSA_KEY },
    stateStore: 'memory://',
    providers: [{ kind: 'direct', name: 'local', checker: () => false }],
    authorizationServer: {
      clients: [{ id: 'c', secret: 'c-secret-0123456789abcdef', redirectURIs: ['https://rp.example/cb'] }],
    },
  });
  t.teardown(() => app.close());
  const path = '/.well-known/openid-configuration';
  const meta = await checkDocument(t, `https://app.example${path}`, `${app.url}${path}`, WARNED);
  // OpenID Connect Discovery requires RS256: the in-app server offers the `signing` key's algorithm alone.
  t.deepEqual(meta.id_token_signing_alg_values_supported, ['RS256']);
});

/**
 * The plan's conditions on the document at `discoveryURL` (read at `readAt`): the issuer, https everywhere, string
 * arrays, only the members the specifications define (and `warned`), the key set, the scopes.
 */
async function checkDocument(
  t: ExecutionContext,
  discoveryURL: string,
  readAt: string,
  warned = new Set<string>(),
): Promise<Record<string, unknown>> {
  const res = await fetch(readAt);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  const meta = (await res.json()) as Record<string, unknown>;
  // CheckDiscEndpointIssuer / IssuerIsValidUrl: the discovery URL less its suffix; https, a host, nothing else.
  t.is(meta.issuer, discoveryURL.slice(0, -'/.well-known/openid-configuration'.length));
  const issuer = new URL(meta.issuer as string);
  t.is(issuer.protocol, 'https:');
  t.true(issuer.host !== '' && !issuer.search && !issuer.hash && !issuer.username);
  // ValidateServerMetadataAgainstSchema and CheckForUnexpectedParametersInServerMetadata.
  for (const name of STRING_ARRAYS)
    if (meta[name] !== undefined)
      t.true(Array.isArray(meta[name]) && (meta[name] as unknown[]).every((v) => typeof v === 'string'), name);
  t.deepEqual(
    Object.keys(meta).filter((k) => !KNOWN_METADATA.has(k) && !warned.has(k)),
    [],
    'no member the specifications do not define',
  );
  t.true((meta.response_types_supported as string[]).includes('code'));
  t.true((meta.subject_types_supported as string[]).includes('public'));
  // Every *_endpoint and jwks_uri: an https URL.
  const endpoints = Object.keys(meta).filter((k) => k.endsWith('_endpoint') || k === 'jwks_uri');
  t.true(endpoints.includes('userinfo_endpoint'));
  for (const name of endpoints) t.is(new URL(meta[name] as string).protocol, 'https:', name);
  await checkKeySet(t, new URL(new URL(meta.jwks_uri as string).pathname, readAt).href);
  t.is(meta.claims_parameter_supported, true);
  t.true(Array.isArray(meta.claims_supported));
  t.true((meta.grant_types_supported as string[]).length > 0);
  // CheckDiscEndpointScopesSupportedContainsOpenId and ScopesSupportedSyntax (RFC 6749 scope-token).
  t.true((meta.scopes_supported as string[]).includes('openid'));
  for (const scope of meta.scopes_supported as string[]) t.regex(scope, /^[\x21\x23-\x5b\x5d-\x7e]+$/);
  t.true((meta.code_challenge_methods_supported as string[]).includes('S256'));
  // The Basic plan's scope modules run only for the scopes listed here.
  t.deepEqual(
    ['profile', 'email', 'address', 'phone', 'offline_access'].filter(
      (s) => !(meta.scopes_supported as string[]).includes(s),
    ),
    [],
  );
  return meta;
}

test('oidcc-discovery-endpoint-verification: openid-client and oauth4webapi read the document and accept its issuer', async (t) => {
  const provider = await authkoaProvider(manualClock());
  t.teardown(() => provider.close());
  const issuer = new URL(provider.issuer);
  const config = await oidc.discovery(issuer, CLIENTS.basic.id, CLIENTS.basic.secret, undefined, {
    execute: [oidc.allowInsecureRequests],
  });
  t.is(config.serverMetadata().issuer, provider.issuer);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }),
  );
  t.is(as.issuer, provider.issuer);
  // The check can fail: another issuer's document is refused by both.
  const elsewhere = new URL('http://127.0.0.1:1/');
  await t.throwsAsync(
    oauth.processDiscoveryResponse(
      elsewhere,
      await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }),
    ),
  );
});
