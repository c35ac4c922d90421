/**
 * Writes browser/client/schema.ts, the types `authkoa/client` answers with, from the component schemas
 * of the OpenAPI document (`auth.openapi()`): the client's types and the routes' contract come from one
 * place. `npm run client-types` after changing lib/openapi/components.ts; spec/client/types.test.ts
 * fails while the file is stale.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ACCOUNT_ERRORS } from '../lib/accounts/errors.js';
import { serverOpenAPI } from '../lib/authorization-server/openapi.js';
import { linksOpenAPI } from '../lib/accounts/links/openapi.js';
import { MFA_ERRORS } from '../lib/mfa/errors.js';
import { MFA_SCHEMAS } from '../lib/mfa/schemas.js';
import { openApiDocument } from '../lib/openapi/document.js';
import { typeScriptOf } from '../lib/openapi/typescript.js';
import { TOKEN_ERRORS } from '../lib/personal-tokens/errors.js';
import { tokensOpenAPI } from '../lib/personal-tokens/openapi.js';
import { readTokensOptions } from '../lib/personal-tokens/options.js';

export const SCHEMA_FILE = fileURLToPath(new URL('../browser/client/schema.ts', import.meta.url));

const HEADER = `/**
 * The bodies authkoa's routes answer, as the OpenAPI document (\`auth.openapi()\`) describes them.
 * Written by \`npm run client-types\` (scripts/client-types.ts) from lib/openapi/components.ts: do not edit.
 */`;

/**
 * The text of browser/client/schema.ts for the current component schemas: the core ones and those of the
 * built-in accounts, personal tokens, second factor and authorization server (the connected apps), whose routes the client calls (their bodies, their error
 * codes in `ErrorCode`, in the order a configuration with all three lists them).
 */
export function clientSchemaSource(): string {
  const tokenSchemas = tokensOpenAPI(
    readTokensOptions({}, { accounts: true, stateStore: 'lmdb://x', allowVolatileStores: false })!,
  ).schemas;
  const names = { jwtCookieName: 'JWT', xsrfHeaderName: 'X-XSRF-TOKEN', jwtHeaderName: 'X-JWT', jwtQueryName: 'token' };
  const doc = openApiDocument(
    {
      url: 'http://localhost',
      authRoutePath: '/auth',
      avatarRoutePath: '/avatar',
      ...names,
      basic: false,
      avatars: true,
    },
    [],
    {
      ...{
        paths: {},
        schemas: { ...linksOpenAPI().schemas, ...tokenSchemas, ...MFA_SCHEMAS, ...serverOpenAPI().schemas },
        securitySchemes: {},
      },
      errors: { ...ACCOUNT_ERRORS, ...TOKEN_ERRORS, ...MFA_ERRORS },
      tags: {},
      credentialSchemes: [],
      loginAnswers: {},
    },
  );
  return typeScriptOf(doc.components.schemas as Record<string, Record<string, unknown>>, HEADER, {
    Error: 'ErrorBody',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(SCHEMA_FILE, clientSchemaSource());
  console.log(`wrote ${SCHEMA_FILE}`);
}
