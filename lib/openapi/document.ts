import { SCHEMAS, securitySchemes } from './components.js';
import { avatarPaths, corePaths, featurePaths, providerPaths, type PathItem, type ProviderRoutes } from './paths.js';

/** An OpenAPI 3.1 document, as plain JSON. */
export interface OpenAPIDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  servers: Array<{ url: string }>;
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

/** What the document is made from: the options it reads, and the providers once built. */
export interface OpenAPIConfig {
  url: string;
  authRoutePath: string;
  avatarRoutePath: string;
  jwtCookieName: string;
  xsrfHeaderName: string;
  jwtHeaderName: string;
  jwtQueryName: string;
  /** Basic auth is configured (`adminPasswd` or `basicAuthChecker`). */
  basic: boolean;
  /** The avatar route serves stored avatars. */
  avatars: boolean;
  jwks: boolean;
  mfa: boolean;
}

/**
 * The OpenAPI 3.1 description of the routes one configuration serves: the core routes, each
 * provider's, the features the options turn on, the avatar route; the error body with every code and
 * the ways a session is carried as components. Built from the same facts the router is built from,
 * so it follows the configuration.
 */
export function openApiDocument(c: OpenAPIConfig, providers: readonly ProviderRoutes[]): OpenAPIDocument {
  const paths: Record<string, PathItem> = {
    ...corePaths(c.authRoutePath, c.basic),
    ...featurePaths(c.authRoutePath, c),
  };
  for (const p of providers) Object.assign(paths, providerPaths(c.authRoutePath, p));
  if (c.avatars) Object.assign(paths, avatarPaths(c.avatarRoutePath));
  return {
    openapi: '3.1.0',
    info: { title: 'authkoa', version: '1', description: 'Authentication routes of this application (authkoa).' },
    servers: [{ url: c.url }],
    paths,
    components: { schemas: SCHEMAS, securitySchemes: securitySchemes(c, c.basic) },
  };
}
