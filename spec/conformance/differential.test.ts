import test, { type ExecutionContext } from 'ava';
import { BASIC_MODULES, type Outcome } from './modules.js';
import { oidcProvider } from './oidc-provider.js';
import { runOf } from './plan.js';
import { authkoaProvider, shiftedTime, type ProviderUnderTest } from './providers.js';

/**
 * The differential run: every module against our provider and against oidc-provider (a certified
 * OpenID provider) configured alike, with the same relying party (oauth4webapi). Both must pass each
 * module; what each observed must be the same, except where a difference is recorded below with why.
 * oidc-provider's clock is the process's Date.now, so this file moves Date.now (for both providers and
 * the relying party alike) instead of waiting: the tests run one at a time.
 */

const time = shiftedTime();
test.after.always(() => time.restore());
const clock = Object.assign(() => Date.now(), { advance: time.advance });

interface Difference {
  authkoa: Outcome;
  'oidc-provider': Outcome;
  why: string;
}

const SCOPE_CLAIMS_WHY =
  'authkoa puts the claims of the scopes asked for in the id_token as well as in userinfo, for relying parties that ' +
  'read the profile from the id_token alone (express-openid-connect, openid-client’s claims()); oidc-provider keeps ' +
  'them to userinfo when an access token is issued (Core §5.4). The suite warns (EnsureIdTokenDoesNotContainName).';

/** A scope module's outcome: the same userinfo on both, the scope's claims in authkoa's id_token only. */
function scopeClaims(claims: string[]): Difference {
  return {
    authkoa: { userinfo: claims, idToken: claims },
    'oidc-provider': { userinfo: claims, idToken: [] },
    why: SCOPE_CLAIMS_WHY,
  };
}

const PROFILE = ['family_name', 'given_name', 'name', 'preferred_username'];
const EMAIL = ['email', 'email_verified'];
const ADDRESS = ['address'];
const PHONE = ['phone_number', 'phone_number_verified'];
const AUTH_TIME_WHY =
  'authkoa puts auth_time in every id_token; oidc-provider only when max_age or a claims request asks for it, so ' +
  'the first id_token has none to compare with (the suite compares only when both have one).';
const REQUEST_OBJECT_WHY =
  'authkoa processes unsigned request objects (alg none: they say nothing the query could not, and the Form Post ' +
  'plan fails a provider that answers request_not_supported by query); oidc-provider allows only signed ones.';

/** Where the two providers answer differently on purpose, each with both answers and the reason. */
const DIFFERENCES: Record<string, Difference> = {
  'oidcc-server': {
    authkoa: { flow: 'ok', atHash: true, userinfo: true },
    'oidc-provider': { flow: 'ok', atHash: false, userinfo: true },
    why: 'at_hash is optional in the code flow; authkoa binds the access token to the id_token with it.',
  },
  'oidcc-scope-profile': scopeClaims(PROFILE),
  'oidcc-scope-email': scopeClaims(EMAIL),
  'oidcc-scope-address': scopeClaims(ADDRESS),
  'oidcc-scope-phone': scopeClaims(PHONE),
  'oidcc-scope-all': scopeClaims([...ADDRESS, ...EMAIL, ...PROFILE, ...PHONE].sort()),
  'oidcc-ensure-other-scope-order-succeeds': scopeClaims(EMAIL),
  'oidcc-alternate-happy-flow': scopeClaims(EMAIL),
  'oidcc-prompt-login': {
    authkoa: { secondLogin: true, authTime: 'later' },
    'oidc-provider': { secondLogin: true, authTime: 'not in both id_tokens' },
    why: AUTH_TIME_WHY,
  },
  'oidcc-max-age-1': {
    authkoa: { secondLogin: true, authTime: 'later' },
    'oidc-provider': { secondLogin: true, authTime: 'not in both id_tokens' },
    why: AUTH_TIME_WHY,
  },
  'oidcc-ensure-post-request-succeeds': {
    authkoa: { post: 'ok' },
    'oidc-provider': { post: 'not supported (404)' },
    why:
      'oidc-provider takes authorization requests by POST only with enableHttpPostMethods, which needs SameSite=None ' +
      '(so Secure) cookies, impossible over plain HTTP; authkoa answers such a POST 303 to the same request as a GET.',
  },
  'oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported': {
    authkoa: { requestObject: 'processed', via: 'query' },
    'oidc-provider': { requestObject: 'refused as unsupported', via: 'query' },
    why: REQUEST_OBJECT_WHY,
  },
  'oidcc-ensure-request-object-with-redirect-uri': {
    authkoa: { requestObject: 'processed', via: 'query' },
    'oidc-provider': { requestObject: 'error page' },
    why: REQUEST_OBJECT_WHY + ' Without the object, the query’s unregistered redirect_uri is an error page (passes).',
  },
  'oidcc-refresh-token': {
    authkoa: { rotated: true, crossClient: 400 },
    'oidc-provider': { rotated: false, crossClient: 400 },
    why:
      'authkoa rotates every client’s refresh token, so a stolen one is caught at its reuse (RFC 9700 §4.14.2); ' +
      'oidc-provider rotates only public clients’ by default (RFC 9700 requires it only for them).',
  },
};

async function observe(start: () => Promise<ProviderUnderTest>, name: string, t: ExecutionContext) {
  const provider = await start();
  try {
    return await BASIC_MODULES[name]!(await runOf(t, provider, { mode: 'query', kind: 'oauth4webapi', now: clock }));
  } finally {
    await provider.close();
  }
}

for (const name of Object.keys(BASIC_MODULES))
  test.serial(`${name}: authkoa and oidc-provider both pass and answer alike, or as recorded`, async (t) => {
    const outcomes = {
      authkoa: await observe(() => authkoaProvider(clock), name, t),
      'oidc-provider': await observe(() => oidcProvider(time), name, t),
    };
    const recorded = DIFFERENCES[name];
    if (!recorded) return t.deepEqual(outcomes.authkoa, outcomes['oidc-provider']);
    t.deepEqual(outcomes, { authkoa: recorded.authkoa, 'oidc-provider': recorded['oidc-provider'] }, recorded.why);
  });
