import type { RouteDocs } from '../core/provider.js';
import { redirectDoc } from '../core/route-docs.js';

/**
 * The passkey kind's routes for the OpenAPI description. The options and responses are the JSON forms
 * of WebAuthn's dictionaries (PublicKeyCredentialCreationOptionsJSON and its request counterpart, as
 * @simplewebauthn/server writes them and a browser's parse…FromJSON reads them): their members are the
 * specification's, so the objects are closed to others. Plain JSON: describing the routes does not load
 * the optional WebAuthn package.
 */
const string = { type: 'string' };
const base64url = { type: 'string', pattern: '^[A-Za-z0-9_-]*$' };
const transports = { type: 'array', items: string };
const descriptor = {
  type: 'object',
  required: ['id', 'type'],
  additionalProperties: false,
  properties: { id: base64url, type: { const: 'public-key' }, transports },
};
const userVerification = { enum: ['required', 'preferred', 'discouraged'] };

/** What `navigator.credentials.create()` takes, as JSON: a new passkey for the session's user. */
export const CREATION_OPTIONS = {
  type: 'object',
  required: ['challenge', 'rp', 'user', 'pubKeyCredParams'],
  additionalProperties: false,
  properties: {
    challenge: base64url,
    rp: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: string, id: string } },
    user: { type: 'object', required: ['id', 'name', 'displayName'], additionalProperties: false, properties: { id: base64url, name: string, displayName: string } },
    pubKeyCredParams: { type: 'array', items: { type: 'object', required: ['alg', 'type'], additionalProperties: false, properties: { alg: { type: 'integer' }, type: { const: 'public-key' } } } },
    timeout: { type: 'integer' },
    excludeCredentials: { type: 'array', items: descriptor },
    authenticatorSelection: {
      type: 'object',
      additionalProperties: false,
      properties: { authenticatorAttachment: string, residentKey: { enum: ['required', 'preferred', 'discouraged'] }, requireResidentKey: { type: 'boolean' }, userVerification },
    },
    hints: { type: 'array', items: string },
    attestation: { enum: ['none', 'indirect', 'direct', 'enterprise'] },
    attestationFormats: { type: 'array', items: string },
    extensions: { type: 'object' },
  },
};

/** What `navigator.credentials.get()` takes, as JSON: a challenge for a passkey of the site (a login) or of one user (a second step). */
export const REQUEST_OPTIONS = {
  type: 'object',
  required: ['challenge'],
  additionalProperties: false,
  properties: {
    challenge: base64url,
    timeout: { type: 'integer' },
    rpId: string,
    allowCredentials: { type: 'array', items: descriptor },
    userVerification,
    hints: { type: 'array', items: string },
    extensions: { type: 'object' },
  },
};

/** A WebAuthn credential's JSON (a browser's PublicKeyCredential.toJSON()): what register, login and the second step read. */
export const CREDENTIAL = {
  type: 'object',
  required: ['id', 'rawId', 'type', 'response'],
  properties: { id: base64url, rawId: base64url, type: { const: 'public-key' }, response: { type: 'object' }, clientExtensionResults: { type: 'object' }, authenticatorAttachment: string },
};

/** One of the user's passkeys as the list shows it: no key, no counter. */
const LISTED = {
  type: 'object',
  required: ['id', 'createdAt', 'lastUsedAt', 'deviceType', 'backedUp', 'transports'],
  additionalProperties: false,
  properties: {
    id: base64url,
    createdAt: { type: 'string', format: 'date-time' },
    lastUsedAt: { oneOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
    deviceType: { enum: ['singleDevice', 'multiDevice'] },
    backedUp: { type: 'boolean' },
    transports,
  },
};

const json = (schema: Record<string, unknown>, description: string) => ({ description, content: { 'application/json': { schema } } });
const body = (schema: Record<string, unknown>) => ({ required: true, content: { 'application/json': { schema } } });
const LOGIN_PARAMS = { type: 'object', properties: { site: string, aud: string } };

export const PASSKEY_ROUTE_DOCS: RouteDocs = {
  login: {
    post: {
      description: "The assertion for this browser's login challenge (the binding cookie `login/options` set); refused: 400 `bad_request`/`challenge_invalid`, 401 `passkey_unknown`/`passkey_invalid`.",
      requestBody: body(CREDENTIAL),
      responses: {
        200: json({ oneOf: [{ $ref: '#/components/schemas/User' }, { $ref: '#/components/schemas/MfaRequired' }] }, 'logged in: the user (session cookies set), or a second step due'),
        303: redirectDoc('a browser navigation with a second step due: to the second-step page'),
      },
    },
  },
  'register/options': {
    post: { description: "Creation options for a new passkey of the session's user (excluding the ones it has).", responses: { 200: json(CREATION_OPTIONS, 'the options, for navigator.credentials.create()') } },
  },
  register: {
    post: { description: "The attestation answering the user's register challenge: the passkey is saved.", requestBody: body(CREDENTIAL), responses: { 201: json({ type: 'object', required: ['id'], additionalProperties: false, properties: { id: base64url } }, 'saved: its credential id') } },
  },
  'login/options': {
    post: {
      description: 'A login challenge for any passkey of the site, bound to this browser by a cookie; limited per client (429 `rate_limited` with Retry-After).',
      requestBody: { content: { 'application/json': { schema: LOGIN_PARAMS }, 'application/x-www-form-urlencoded': { schema: LOGIN_PARAMS } } },
      responses: { 200: json(REQUEST_OPTIONS, 'the options, for navigator.credentials.get()') },
    },
  },
  list: {
    get: { description: "The session user's passkeys, without their keys.", responses: { 200: json({ type: 'array', items: LISTED }, 'oldest first') } },
  },
  '*': {
    delete: { description: "Removes one of the session user's passkeys (another user's is answered as a missing one, 404).", responses: { 204: { description: 'removed' } } },
  },
};
