import { SCHEMAS, securitySchemes } from './components.js';
import { operationIds } from './operation-ids.js';
import type { PathItem } from './operation.js';
import { avatarPaths, corePaths, featurePaths, providerPaths, type ProviderRoutes } from './paths.js';

type Paths = Record<string, PathItem>;
type Tag = { name: string; description: string };

/** An OpenAPI 3.1 document, as plain JSON. */
export interface OpenAPIDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  servers: Array<{ url: string }>;
  tags: Tag[];
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

/** The groups the operations are tagged with, beside one per provider (its name). */
const TAGS: Record<string, string> = {
  auth: "The request's user and status, the providers, logout",
  sessions: "The user's sessions, one per login",
  keys: 'The public keys session tokens are signed with',
  mfa: 'The second factor: TOTP, recovery codes, the second step of a login',
  avatar: 'Stored avatars',
};

/**
 * The OpenAPI 3.1 description of the routes one configuration serves: the core routes, each
 * provider's, the features the options turn on, the avatar route; the error body with every code and
 * the ways a session is carried as components. Built from the same facts the router is built from,
 * so it follows the configuration.
 */
export function openApiDocument(c: OpenAPIConfig, providers: readonly ProviderRoutes[]): OpenAPIDocument {
  const paths: Paths = { ...corePaths(c.authRoutePath, c.basic), ...featurePaths(c.authRoutePath, c) };
  for (const p of providers) Object.assign(paths, providerPaths(c.authRoutePath, p));
  if (c.avatars) Object.assign(paths, avatarPaths(c.avatarRoutePath));
  return {
    openapi: '3.1.0',
    info: { title: 'authkoa', version: '1', description: 'Authentication routes of this application (authkoa).' },
    servers: [{ url: c.url }],
    tags: tagsOf(paths, providers),
    paths: operationIds(paths, { auth: c.authRoutePath, avatar: c.avatarRoutePath }),
    components: { schemas: SCHEMAS, securitySchemes: securitySchemes(c) },
  };
}

/** Each tag the operations use, once, in the order first used; a provider's says its kind. */
function tagsOf(paths: Paths, providers: readonly ProviderRoutes[]): Tag[] {
  const kinds = new Map(providers.map((p) => [p.name, p.kind]));
  const operations = Object.values(paths).flatMap((item) => Object.values(item));
  const used = operations.flatMap((o) => (o.tags as string[] | undefined) ?? []);
  const provider = (name: string) => (kinds.has(name) ? `The ${kinds.get(name)} provider "${name}"` : name);
  const described = (name: string) => TAGS[name] ?? provider(name);
  return [...new Set(used)].map((name) => ({ name, description: described(name) }));
}
