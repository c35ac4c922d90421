import { ref } from '../openapi/components.js';
import { json, op, PUBLIC } from '../openapi/operation.js';
import type { PathItem, Text } from '../openapi/operation.js';

const TEXT: Text = [
  'The public keys session tokens are signed with',
  'The public half of the `signing` keys as a JWK Set, the current key first, for other services to verify ' +
    'session tokens with (docs/verify.md).',
];

/** The key set's route, under authRoutePath. */
export function jwksPaths(): Record<string, PathItem> {
  const keys = { 200: json(ref('KeySet'), 'current key first') };
  return { '/.well-known/jwks.json': { get: op(TEXT, 'keys', PUBLIC, keys) } };
}
