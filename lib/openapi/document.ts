import { SCHEMAS, securitySchemes } from './components.js';
import { operationIds } from './operation-ids.js';
import type { PathItem } from './operation.js';
import { avatarPaths, corePaths, providerPaths, type ProviderRoutes } from './paths.js';
import { COMMON_ERRORS } from './operation.js';
import type { FeatureDocs } from '../features/set.js';

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
}

export type { FeatureDocs };

/** The groups the core operations are tagged with, beside one per provider (its name) and the features' own. */
const TAGS: Record<string, string> = {
  auth: "The request's user and status, the providers, logout",
  avatar: 'Stored avatars',
};

/**
 * The OpenAPI 3.1 description of the routes one configuration serves: the core routes, each
 * provider's, the features the options turn on, the avatar route; the error body with every code and
 * the ways a session is carried as components. Built from the same facts the router is built from,
 * so it follows the configuration.
 */
export function openApiDocument(
  c: OpenAPIConfig,
  providers: readonly ProviderRoutes[],
  features?: FeatureDocs,
): OpenAPIDocument {
  const core = corePaths(c.authRoutePath, c.basic, features?.credentialSchemes ?? []);
  const paths: Paths = { ...core, ...featureOperations(features?.paths ?? {}) };
  for (const p of providers) Object.assign(paths, providerPaths(c.authRoutePath, p, features?.loginAnswers));
  if (c.avatars) Object.assign(paths, avatarPaths(c.avatarRoutePath));
  return {
    openapi: '3.1.0',
    info: { title: 'authkoa', version: '1', description: 'Authentication routes of this application (authkoa).' },
    servers: [{ url: c.url }],
    tags: tagsOf(paths, providers, features?.tags ?? {}),
    paths: operationIds(paths, { auth: c.authRoutePath, avatar: c.avatarRoutePath }),
    components: {
      schemas: schemas(features),
      securitySchemes: { ...securitySchemes(c), ...features?.securitySchemes },
    },
  };
}

/** Each tag the operations use, once, in the order first used; a provider's says its kind. */
function tagsOf(paths: Paths, providers: readonly ProviderRoutes[], featureTags: Record<string, string>): Tag[] {
  const kinds = new Map(providers.map((p) => [p.name, p.kind]));
  const operations = Object.values(paths).flatMap((item) => Object.values(item));
  const used = operations.flatMap((o) => (o.tags as string[] | undefined) ?? []);
  const provider = (name: string) => (kinds.has(name) ? `The ${kinds.get(name)} provider "${name}"` : name);
  const described = (name: string) => TAGS[name] ?? featureTags[name] ?? provider(name);
  return [...new Set(used)].map((name) => ({ name, description: described(name) }));
}

/**
 * A feature's operations as every other is listed: public unless they say their `security`, with the common error
 * answers.
 */
function featureOperations(paths: Paths): Paths {
  const out: Paths = {};
  for (const [path, item] of Object.entries(paths)) {
    out[path] = {};
    for (const [method, op] of Object.entries(item)) {
      // As op() builds them: the feature's own answers, then the common error ones it did not give.
      const responses = (op.responses ?? {}) as Record<string, unknown>;
      const missing = Object.entries(COMMON_ERRORS).filter(([status]) => !(status in responses));
      out[path][method] = { security: [], ...op, responses: { ...responses, ...Object.fromEntries(missing) } };
    }
  }
  return out;
}

/** The components' schemas: authkoa's, the features' own, and the `ErrorCode` enum with the features' codes. */
function schemas(features: FeatureDocs | undefined): Record<string, unknown> {
  const codes = Object.keys(features?.errors ?? {});
  if (!features || (codes.length === 0 && Object.keys(features.schemas).length === 0)) return SCHEMAS;
  const error = SCHEMAS.Error as { properties: { code: { enum: string[] } } };
  const code = { ...error.properties.code, enum: [...error.properties.code.enum, ...codes] };
  return { ...features.schemas, ...SCHEMAS, Error: { ...error, properties: { ...error.properties, code } } };
}
