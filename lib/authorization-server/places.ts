/**
 * Where the server answers, as names: the paths under its prefix that other sites' code calls with credentials of its
 * own (FeatureModule.anySite), and its site-root documents. Read by the feature's row before anything else loads.
 */

/** The token, revocation, registration and userinfo endpoints: any origin may call them, no cookie counts there. */
export const ANY_SITE = ['/oauth2/token', '/oauth2/revoke', '/oauth2/register', '/oauth2/userinfo'];

/** RFC 8414's metadata, and OpenID Connect Discovery's for OpenID clients, at the site root. */
export const SITE_DOCUMENTS = ['oauth-authorization-server', 'openid-configuration'];
