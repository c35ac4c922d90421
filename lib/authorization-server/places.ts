/**
 * Where the server answers, as names: the paths under its prefix that other sites' code calls with credentials of its
 * own (FeatureModule.anySite), and its site-root documents. Read by the feature's row before anything else loads.
 */

/** The token, revocation, registration and userinfo endpoints: any origin may call them, no cookie counts there. */
export const ANY_SITE = ['/oauth2/token', '/oauth2/revoke', '/oauth2/register', '/oauth2/userinfo'];

/** RFC 8414's metadata, and OpenID Connect Discovery's for OpenID clients, at the site root. */
export const SITE_DOCUMENTS = ['oauth-authorization-server', 'openid-configuration'];

/**
 * The authorization endpoint's POST (OpenID Connect Core §3.1.2.1): another site's form sends the browser there, and
 * it only turns the form into the same request as a GET (routes.ts), reading no cookie; the GET acts as ever.
 */
export const FORM_POSTED = ['/oauth2/authorize'];
