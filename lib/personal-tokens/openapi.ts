import { ref } from '../openapi/components.js';
import { empty, json, op, SESSION, STRING, type PathItem, type Text } from '../openapi/operation.js';
import type { FeatureOpenAPI } from '../features/contract.js';
import type { PersonalTokensConfig } from './options.js';

const TEXT = {
  list: ["The user's personal access tokens", 'Without their secrets, oldest first: `created`, `lastUsed`, `expires`.'],
  create: [
    'Makes a personal access token',
    'Needs a fresh login (`fresh`, 5 minutes by default, else 401 `reauth_required`). The secret (`token`) is in ' +
      'this answer only. Send it as `Authorization: Bearer <token>`: the routes behind `auth`, `admin`, `rbac` and ' +
      '`scope` take it; a route that manages the account never does (403 `token_not_allowed`).',
  ],
  revoke: ['Revokes a personal access token', "By its `id`; another user's is an unknown one (404)."],
} satisfies Record<string, Text>;

const DATE = { type: 'string', format: 'date-time' };
const NULLABLE_DATE = { type: ['string', 'null'], format: 'date-time' };

/** The personal tokens' routes, schemas and bearer scheme, under authRoutePath (routes.ts answers them). */
export function tokensOpenAPI(config: PersonalTokensConfig): FeatureOpenAPI {
  const tag = 'tokens';
  const scope = config.scopes
    ? { ...STRING, enum: [...config.scopes] }
    : { ...STRING, pattern: '^[A-Za-z0-9:._-]{1,64}$' };
  const view = {
    type: 'object',
    required: ['id', 'name', 'scopes', 'created', 'lastUsed', 'expires'],
    properties: {
      id: { ...STRING, description: 'public: what DELETE names' },
      name: STRING,
      scopes: { type: 'array', items: scope },
      created: DATE,
      lastUsed: { ...NULLABLE_DATE, description: 'to the minute; null when never used' },
      expires: { ...NULLABLE_DATE, description: 'null: it does not expire' },
    },
  };
  const created = {
    type: 'object',
    required: [...view.required, 'token'],
    properties: {
      ...view.properties,
      token: { ...STRING, description: `the secret, \`${config.prefix}_…\`: shown once` },
    },
  };
  const asked = {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { ...STRING, minLength: 1, maxLength: 100 },
      scopes: { type: 'array', items: scope, maxItems: 50 },
      expiresIn: {
        oneOf: [
          { type: 'integer', minimum: 1, description: 'seconds' },
          { ...STRING, description: "'30d', '12h'" },
        ],
      },
    },
  };
  const id = { name: 'id', in: 'path', required: true, schema: { ...STRING, maxLength: 64 } };
  const requestBody = { required: true, content: { 'application/json': { schema: ref('PersonalTokenRequest') } } };
  const paths: Record<string, PathItem> = {
    '/tokens': {
      get: op(TEXT.list, tag, SESSION, { 200: json({ type: 'array', items: ref('PersonalToken') }, 'oldest first') }),
      post: op(TEXT.create, tag, SESSION, { 201: json(ref('NewPersonalToken'), 'made') }, { requestBody }),
    },
    '/tokens/{id}': { delete: op(TEXT.revoke, tag, SESSION, { 204: empty('revoked') }, { parameters: [id] }) },
  };
  return {
    paths,
    schemas: { PersonalToken: view, NewPersonalToken: created, PersonalTokenRequest: asked },
    securitySchemes: {
      personalToken: {
        type: 'http',
        scheme: 'bearer',
        description: `a personal access token (\`${config.prefix}_…\`), from POST /tokens`,
      },
    },
    credentialSchemes: ['personalToken'],
    tags: { tokens: "The user's personal access tokens" },
  };
}
