import type { RouteDocs } from '../core/provider.js';
import { redirectDoc, SESSION_SECURITY } from '../core/route-docs.js';

/**
 * The passkey kind's routes for the OpenAPI description. Its bodies are components of the document
 * (lib/openapi/feature-schemas.ts: the WebAuthn options and credential, a listed passkey), referred to
 * here by name: plain JSON, so describing the routes loads neither the document's code nor WebAuthn's.
 */
const string = { type: 'string' };
const base64url = { type: 'string', pattern: '^[A-Za-z0-9_-]*$' };
const component = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const CREATION_OPTIONS = component('PasskeyCreationOptions');
const REQUEST_OPTIONS = component('PasskeyRequestOptions');
const CREDENTIAL = component('PasskeyCredential');
const LISTED = component('Passkey');

const json = (schema: Record<string, unknown>, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const body = (schema: Record<string, unknown>) => ({ required: true, content: { 'application/json': { schema } } });
const SAVED = { type: 'object', required: ['id'], additionalProperties: false, properties: { id: base64url } };
const LOGIN_PARAMS = { type: 'object', properties: { site: string, aud: string } };

export const PASSKEY_ROUTE_DOCS: RouteDocs = {
  login: {
    post: {
      description:
        "The assertion for this browser's login challenge (the binding cookie `login/options` set); refused: 400 " +
        '`bad_request`/`challenge_invalid`, 401 `passkey_unknown`/`passkey_invalid`.',
      requestBody: body(CREDENTIAL),
      responses: {
        200: json(
          { oneOf: [{ $ref: '#/components/schemas/User' }, { $ref: '#/components/schemas/MfaRequired' }] },
          'logged in: the user (session cookies set), or a second step due',
        ),
        303: redirectDoc('a browser navigation with a second step due: to the second-step page'),
      },
    },
  },
  'register/options': {
    post: {
      description: "Creation options for a new passkey of the session's user (excluding the ones it has).",
      security: SESSION_SECURITY,
      responses: { 200: json(CREATION_OPTIONS, 'the options, for navigator.credentials.create()') },
    },
  },
  register: {
    post: {
      description: "The attestation answering the user's register challenge: the passkey is saved.",
      security: SESSION_SECURITY,
      requestBody: body(CREDENTIAL),
      responses: { 201: json(SAVED, 'saved: its credential id') },
    },
  },
  'login/options': {
    post: {
      description:
        'A login challenge for any passkey of the site, bound to this browser by a cookie; limited per client ' +
        '(429 `rate_limited` with Retry-After).',
      requestBody: {
        content: {
          'application/json': { schema: LOGIN_PARAMS },
          'application/x-www-form-urlencoded': { schema: LOGIN_PARAMS },
        },
      },
      responses: { 200: json(REQUEST_OPTIONS, 'the options, for navigator.credentials.get()') },
    },
  },
  list: {
    get: {
      description: "The session user's passkeys, without their keys.",
      security: SESSION_SECURITY,
      responses: { 200: json({ type: 'array', items: LISTED }, 'oldest first') },
    },
  },
  '*': {
    delete: {
      description: "Removes one of the session user's passkeys (another user's is answered as a missing one, 404).",
      security: SESSION_SECURITY,
      responses: { 204: { description: 'removed' } },
    },
  },
};
