import Provider from 'oidc-provider';
// Its console filter: oidc-provider's development warnings are expected here.
import '../helpers/oidc.js';
import { serve } from '../helpers/http.js';
import { ALICE, CLIENTS, REDIRECT, type ProviderUnderTest, type ShiftedTime } from './providers.js';

/**
 * oidc-provider with the same clients, user and claims; refresh tokens as the suite asks for them
 * (`offline_access` with `prompt=consent`). Its clock is the process's `Date.now`, which `shiftedTime`
 * moves.
 */
export async function oidcProvider(time: ShiftedTime): Promise<ProviderUnderTest> {
  let handler: ((req: any, res: any) => void) | undefined;
  const served = await serve((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  const provider = new Provider(served.url, {
    clients: Object.values(CLIENTS).map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: c.auth,
      grant_types: ['authorization_code', 'refresh_token'],
    })),
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id, ...ALICE }) }),
    claims: {
      openid: ['sub'],
      profile: ['name', 'given_name', 'family_name', 'preferred_username'],
      email: ['email', 'email_verified'],
      address: ['address'],
      phone: ['phone_number', 'phone_number_verified'],
    },
    features: {
      devInteractions: { enabled: true },
      claimsParameter: { enabled: true },
    },
    pkce: { required: () => false },
    // Authorization requests by POST (enableHttpPostMethods) would need SameSite=None, so Secure, cookies: not over
    // the plain HTTP of a test. They stay off, which the suite allows (a warning).
    cookies: { keys: ['conformance-cookie-key'] },
  });
  provider.on('server_error', () => {});
  handler = provider.callback();
  return { name: 'oidc-provider', issuer: served.url, advance: time.advance, close: () => served.close() };
}
